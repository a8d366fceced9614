package yamlin

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// bigAnchor is a list of n items anchored once and aliased uses times.
func bigAnchor(n, uses int) string {
	var b strings.Builder
	b.WriteString("big: &big [" + strings.Repeat("x,", n-1) + "x]\n")
	for i := range uses {
		fmt.Fprintf(&b, "k%d: *big\n", i)
	}
	return b.String()
}

// laughs is the "billion laughs" document: levels of ten aliases each.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString(`a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i < levels; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(p+",", 10), ","))
	}
	return b.String()
}

// TestAliasExpansionBounded checks the contract "aliases add at most
// MaxAliasNodes nodes": a huge anchor used a hundred times and the billion
// laughs are refused at the alias that goes too far, before any decoding;
// shared parameters reused across entries are not.
func TestAliasExpansionBounded(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		line int // of the refused alias; 0 when accepted
		loop bool
	}{
		{name: "shared params in 500 entries", doc: "p: &p {a: 1, b: 2, c: {d: 3}}\nl:\n" + strings.Repeat("  - *p\n", 500)},
		{name: "huge anchor used 100 times", doc: bigAnchor(100_000, 100), line: 3},
		{name: "billion laughs", doc: laughs(9), line: 6},
		{name: "just under the bound", doc: bigAnchor(MaxAliasNodes/4-1, 4)},
		{name: "just over the bound", doc: bigAnchor(MaxAliasNodes/4, 5), line: 5},
		{name: "alias into itself", doc: "a: &a [1, *a]\n", line: 1, loop: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.doc), &doc); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err := Aliases(&doc)
			var ae *AliasError
			switch {
			case tt.line == 0 && err != nil:
				t.Errorf("refused: %v", err)
			case tt.line != 0 && (!errors.As(err, &ae) || !errors.Is(err, ErrAliases) || ae.Line != tt.line || ae.Loop != tt.loop):
				t.Errorf("error %v (%+v), want an alias error at line %d (loop %v)", err, ae, tt.line, tt.loop)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("checking took %v", d)
			}
		})
	}
}

// zeros is an endless reader, as /dev/zero.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// TestReadFileBounded checks the contract "a YAML file is read up to
// MaxBytes, never more": an endless input is refused after MaxBytes+1
// bytes with ErrTooLarge naming it.
func TestReadFileBounded(t *testing.T) {
	z := &zeros{}
	_, err := readAll("/dev/zero", z)
	if !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), "/dev/zero: ") {
		t.Errorf("error %v, want ErrTooLarge naming the file", err)
	}
	if z.n > MaxBytes+64<<10 {
		t.Errorf("read %d bytes, want at most about %d", z.n, MaxBytes+1)
	}
	data, err := readAll("small", io.LimitReader(&zeros{}, 1000))
	if err != nil || len(data) != 1000 {
		t.Errorf("small file: %d bytes, %v", len(data), err)
	}
	if _, err := ReadFile("/dev/zero"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile(/dev/zero): %v, want ErrTooLarge", err)
	}
}

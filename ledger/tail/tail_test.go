package tail_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/tail"
)

const header = "request_id,start,end,key_hash,key_alias,team,user,model,model_group,host,status,recorded_spend," +
	"input_tokens,cache_read_tokens,cache_write_tokens,cache_write_1h_tokens,output_tokens,reasoning_tokens,web_search_calls,service_tier,region\n"

// rows returns canonical CSV rows from..to-1, a call each.
func rows(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "r-%d,2026-10-01T00:%02d:00Z,2026-10-01T00:%02d:05Z,k,a,t,u,gpt-4o,g,,success,0.01,100,0,0,0,10,0,0,standard,\n", i, i, i)
	}
	return b.String()
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// calls reads src to its end and returns the calls read.
func calls(t *testing.T, src *ledger.SpanSource) int {
	t.Helper()
	if src == nil {
		return 0
	}
	r, err := src.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for {
		var b ledger.Batch
		err := r.Next(context.Background(), &b)
		n += len(b.Calls)
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// read plans paths past marks, reads every file planned and returns the
// marks to keep: what a caller of NewPlan does.
func read(t *testing.T, paths []string, marks map[string]tail.Mark) (*tail.Plan, map[string]tail.Mark, []string) {
	t.Helper()
	plan, err := tail.NewPlan(paths, marks)
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]tail.Mark{}
	for p, m := range marks {
		if !slices.Contains(plan.Drop, p) {
			next[p] = m
		}
	}
	var got []string
	for i := range plan.Files {
		f := &plan.Files[i]
		n := calls(t, f.Source())
		m := f.Mark()
		next[f.Path] = m
		got = append(got, fmt.Sprintf("%s fresh=%v calls=%d offset=%d line=%d whole=%v", filepath.Base(f.Path), f.Fresh, n, m.Offset, m.Line, m.Whole))
	}
	return plan, next, got
}

// TestNewPlan: a file of four lines (the header and three calls) read
// once, then changed, is read past its mark, again whole, or not at all.
func TestNewPlan(t *testing.T) {
	first := header + rows(0, 3) // lines 1-4
	size := len(first)
	tests := []struct {
		name   string
		change func(t *testing.T, dir string) []string // the paths listed after it
		want   []string                                // per file planned: name, fresh, calls read, mark
		drop   []string
		unread int
	}{
		{name: "unchanged: not opened", change: func(t *testing.T, dir string) []string {
			return []string{filepath.Join(dir, "a.csv")}
		}},
		{name: "grown by two lines", change: func(t *testing.T, dir string) []string {
			appendTo(t, filepath.Join(dir, "a.csv"), rows(3, 5))
			return []string{filepath.Join(dir, "a.csv")}
		}, want: []string{fmt.Sprintf("a.csv fresh=true calls=2 offset=%d line=7 whole=false", size+len(rows(3, 5)))}},
		{name: "a last line without its break waits", change: func(t *testing.T, dir string) []string {
			appendTo(t, filepath.Join(dir, "a.csv"), strings.TrimSuffix(rows(3, 4), "\n"))
			return []string{filepath.Join(dir, "a.csv")}
		}, want: []string{fmt.Sprintf("a.csv fresh=true calls=0 offset=%d line=5 whole=false", size)}},
		{name: "rotated and grown", change: func(t *testing.T, dir string) []string {
			if err := os.Rename(filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")); err != nil {
				t.Fatal(err)
			}
			appendTo(t, filepath.Join(dir, "b.csv"), rows(3, 4))
			return []string{filepath.Join(dir, "b.csv")}
		}, want: []string{fmt.Sprintf("b.csv fresh=true calls=1 offset=%d line=6 whole=false", size+len(rows(3, 4)))}, drop: []string{"a.csv"}},
		{name: "regenerated in place: read again whole", change: func(t *testing.T, dir string) []string {
			write(t, filepath.Join(dir, "a.csv"), header+rows(1, 3)+rows(0, 1))
			return []string{filepath.Join(dir, "a.csv")}
		}, want: []string{fmt.Sprintf("a.csv fresh=false calls=3 offset=%d line=5 whole=false", size)}},
		{name: "a new gzip file: read whole, as read before", change: func(t *testing.T, dir string) []string {
			var b bytes.Buffer
			z := gzip.NewWriter(&b)
			z.Write([]byte(header + rows(0, 2)))
			z.Close()
			write(t, filepath.Join(dir, "a.csv.1.gz"), b.String())
			return []string{filepath.Join(dir, "a.csv"), filepath.Join(dir, "a.csv.1.gz")}
		}, want: []string{fmt.Sprintf("a.csv.1.gz fresh=false calls=2 offset=%d line=0 whole=true", gzSize(t))}},
		{name: "a link in a loop: unread, the others read", change: func(t *testing.T, dir string) []string {
			loop := filepath.Join(dir, "loop.csv")
			if err := os.Symlink(loop, loop); err != nil {
				t.Fatal(err)
			}
			appendTo(t, filepath.Join(dir, "a.csv"), rows(3, 4))
			return []string{loop, filepath.Join(dir, "a.csv")}
		}, want: []string{fmt.Sprintf("a.csv fresh=true calls=1 offset=%d line=6 whole=false", size+len(rows(3, 4)))}, unread: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			a := filepath.Join(dir, "a.csv")
			write(t, a, first)
			_, marks, got := read(t, []string{a}, nil)
			if want := fmt.Sprintf("a.csv fresh=true calls=3 offset=%d line=5 whole=false", size); !slices.Equal(got, []string{want}) {
				t.Fatalf("first read: %v, want %s", got, want)
			}
			plan, _, got := read(t, tt.change(t, dir), marks)
			if !slices.Equal(got, tt.want) {
				t.Errorf("planned %v, want %v", got, tt.want)
			}
			var drop []string
			for _, p := range plan.Drop {
				drop = append(drop, filepath.Base(p))
			}
			if !slices.Equal(drop, tt.drop) || len(plan.Unread) != tt.unread {
				t.Errorf("dropped %v, unread %v; want %v, %d unread", drop, plan.Unread, tt.drop, tt.unread)
			}
		})
	}
}

// gzSize is the size of the gzip file of TestNewPlan's gzip case.
func gzSize(t *testing.T) int {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(header + rows(0, 2)))
	z.Close()
	return b.Len()
}

// TestHalfLineReadOnceUnchanged: a last line without its line break is
// read once a plan finds the file as the last one left it: its writer is
// done with it.
func TestHalfLineReadOnceUnchanged(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	text := header + rows(0, 2) + strings.TrimSuffix(rows(2, 3), "\n")
	write(t, a, text)
	_, marks, got := read(t, []string{a}, nil)
	if want := fmt.Sprintf("a.csv fresh=true calls=2 offset=%d line=4 whole=false", len(header+rows(0, 2))); !slices.Equal(got, []string{want}) {
		t.Fatalf("first read: %v, want %s", got, want)
	}
	_, marks, got = read(t, []string{a}, marks)
	// Line stays 4: the offset is inside line 4, past its last byte (a
	// line break written later ends it).
	if want := fmt.Sprintf("a.csv fresh=true calls=1 offset=%d line=4 whole=false", len(text)); !slices.Equal(got, []string{want}) {
		t.Errorf("found unchanged: %v, want %s", got, want)
	}
	if _, _, got = read(t, []string{a}, marks); len(got) != 0 {
		t.Errorf("read to its end, then: %v, want nothing planned", got)
	}
}

package textout

import (
	"errors"
	"strings"
	"testing"
)

// failAfter accepts n writes, then fails every one.
type failAfter struct {
	n   int
	got strings.Builder
}

var errFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errFull
	}
	f.n--
	return f.got.Write(p)
}

// TestWriterKeepsFirstError: the writes after a failure are dropped and
// the first error stays.
func TestWriterKeepsFirstError(t *testing.T) {
	dst := &failAfter{n: 1}
	w := &Writer{W: dst}
	w.Printf("a=%d\n", 1)
	w.Printf("b=%d\n", 2)
	if _, err := w.Write([]byte("c\n")); !errors.Is(err, errFull) {
		t.Errorf("write after the failure: %v, want %v", err, errFull)
	}
	if !errors.Is(w.Err, errFull) || dst.got.String() != "a=1\n" {
		t.Errorf("Err = %v, written %q; want %v and only the first line", w.Err, dst.got.String(), errFull)
	}
}

package ledger

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// TestDocsCanonicalExample reads the canonical CSV example of docs/calls.md,
// so that the documentation stays true to the reader.
func TestDocsCanonicalExample(t *testing.T) {
	data, err := os.ReadFile("../docs/calls.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "```csv\n")
	example, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("docs/calls.md has no csv example")
	}
	r, err := Open("docs/calls.md example", strings.NewReader(example), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.(io.Closer).Close()
	if r.Format() != FormatCanonicalCSV {
		t.Errorf("the example reads as %s, want %s", r.Format(), FormatCanonicalCSV)
	}
	var b Batch
	calls := 0
	for {
		err := r.Next(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Rejected) > 0 {
			t.Fatalf("the documented example has rejected rows: %v", b.Rejected)
		}
		calls += len(b.Calls)
	}
	if calls == 0 {
		t.Fatal("the documented example has no calls")
	}
}

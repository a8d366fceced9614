package ledger

import (
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
	res := readAll(t, "docs/calls.md example", []byte(example), Options{})
	if res.Err != "" || res.Format != FormatCanonicalCSV {
		t.Fatalf("the example reads as %q (error %q), want %s", res.Format, res.Err, FormatCanonicalCSV)
	}
	if len(res.Rejected) > 0 || len(res.Calls) == 0 {
		t.Fatalf("the documented example gives %d calls and rejections %v", len(res.Calls), res.Rejected)
	}
	if last := res.Calls[len(res.Calls)-1]; last.Host != "azure" {
		t.Errorf("the example's last call has host %q, want azure (the host column)", last.Host)
	}
}

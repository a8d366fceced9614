package provider

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestDocsDeepSeekExample reads the DeepSeek example of
// docs/provider-usage.md, so that the documentation stays true to the
// reader.
func TestDocsDeepSeekExample(t *testing.T) {
	data, err := os.ReadFile("../docs/provider-usage.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "```csv\n")
	example, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("docs/provider-usage.md has no csv example")
	}
	x, err := Read(context.Background(), "docs example", strings.NewReader(example))
	if err != nil {
		t.Fatal(err)
	}
	if x.Format != DeepSeekUsage || len(x.Rows) != 1 || x.Rows[0].Key == "" || !x.Rows[0].Billed.Equal(dec("0.000906")) {
		t.Fatalf("the example reads as %s with rows %+v", x.Format, x.Rows)
	}
}

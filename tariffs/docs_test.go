package tariffs

import (
	"os"
	"strings"
	"testing"
)

// TestDocsExample parses the complete example of docs/tariffs.md, so that
// the documentation stays true to the parser.
func TestDocsExample(t *testing.T) {
	data, err := os.ReadFile("../docs/tariffs.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "## A complete example")
	if !ok {
		t.Fatal(`docs/tariffs.md has no "## A complete example" section`)
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	example, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("the complete example has no yaml block")
	}
	p, ps := Parse("docs/tariffs.md example", []byte(example))
	if p == nil || len(ps) > 0 {
		t.Fatalf("the documented example does not parse cleanly:\n%v", ps)
	}
	if len(p.Models) == 0 || len(p.Versions) == 0 {
		t.Fatalf("the example has %d models and %d versions", len(p.Models), len(p.Versions))
	}
}

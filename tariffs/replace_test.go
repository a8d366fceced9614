package tariffs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/tariffs"
)

// hostFile writes a one-version file of provider p pricing hosts, with
// models given as "id: name, name" and an optional "replaces" after "<".
func hostFile(p, hosts string, models ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider: %s\nhosts: [%s]\ncurrency: USD\ntimezone: UTC\nbilling_time: end\n", p, hosts)
	b.WriteString("sources: [{url: https://example.com/p, kind: secondary, checked: 2026-11-30}]\nmodels:\n")
	var prices strings.Builder
	for _, m := range models {
		def, replaces, _ := strings.Cut(m, " < ")
		id, names, _ := strings.Cut(def, ": ")
		fmt.Fprintf(&b, "  - id: %s\n    names: [%s]\n", id, names)
		if replaces != "" {
			fmt.Fprintf(&b, "    replaces: %s\n", replaces)
		}
		fmt.Fprintf(&prices, "      %s: {standard: {input: 1, output: 2}}\n", id)
	}
	b.WriteString("versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices:\n" + prices.String())
	return b.String()
}

// TestReplaces checks how a model takes over the names of another file's
// model: on the hosts both price, whichever file comes first, and never
// a name of a model it does not replace.
func TestReplaces(t *testing.T) {
	catalog := hostFile("openrouter", "openrouter", "or-sonnet: anthropic/claude-sonnet-4.6, anthropic/claude-sonnet-4-6", "or-gpt: openai/gpt-4o")
	firstParty := hostFile("openai", "openai", "gpt-4o: gpt-4o, openai/gpt-4o")
	tests := []struct {
		name    string
		files   []string
		host    string
		lookup  string
		want    string // the model the name resolves to
		problem string // the one problem expected, "" for none
	}{
		{name: "without replaces a name on the host is claimed twice",
			files: []string{catalog, hostFile("imported-openrouter", "openrouter", "imp: anthropic/claude-sonnet-4.6")},
			host:  "openrouter", lookup: "anthropic/claude-sonnet-4.6", want: "or-sonnet", problem: `name "anthropic/claude-sonnet-4.6" is claimed by models "or-sonnet"`},
		{name: "a replacing model takes the name it lists",
			files: []string{catalog, hostFile("imported-openrouter", "openrouter", "imp: anthropic/claude-sonnet-4.6 < or-sonnet")},
			host:  "openrouter", lookup: "anthropic/claude-sonnet-4.6", want: "imp"},
		{name: "and every other name of the replaced model on the host",
			files: []string{catalog, hostFile("imported-openrouter", "openrouter", "imp: anthropic/claude-sonnet-4.6 < or-sonnet")},
			host:  "openrouter", lookup: "or-sonnet", want: "imp"},
		{name: "the replaced model's neighbours are kept",
			files: []string{catalog, hostFile("imported-openrouter", "openrouter", "imp: anthropic/claude-sonnet-4.6 < or-sonnet")},
			host:  "openrouter", lookup: "openai/gpt-4o", want: "or-gpt"},
		{name: "whichever file comes first",
			files: []string{hostFile("imported-openrouter", "openrouter", "imp: anthropic/claude-sonnet-4.6 < or-sonnet"), catalog},
			host:  "openrouter", lookup: "anthropic/claude-sonnet-4-6", want: "imp"},
		{name: "a first party's calls with no host known",
			files: []string{firstParty, hostFile("imported-openai", "openai", "imp-gpt: gpt-4o < gpt-4o")},
			host:  "", lookup: "gpt-4o", want: "imp-gpt"},
		{name: "replacing does not reach a name of another model",
			files: []string{catalog, hostFile("imported-openrouter", "openrouter", "imp: anthropic/claude-sonnet-4.6, openai/gpt-4o < or-sonnet")},
			host:  "openrouter", lookup: "openai/gpt-4o", want: "or-gpt", problem: `name "openai/gpt-4o" is claimed by models "or-gpt"`},
		{name: "a replaced model no file defines is a warning",
			files: []string{hostFile("imported-openrouter", "openrouter", "imp: anthropic/claude-sonnet-4.6 < or-sonnet")},
			host:  "openrouter", lookup: "anthropic/claude-sonnet-4.6", want: "imp", problem: `warning: model "imp" replaces "or-sonnet", which no file of this catalog defines: nothing is replaced`},
		{name: "a model of another host cannot be replaced",
			files: []string{catalog, hostFile("imported-azure", "azure", "imp: gpt-4o < or-gpt")},
			host:  "openrouter", lookup: "openai/gpt-4o", want: "or-gpt", problem: `model "imp" replaces "or-gpt", whose file prices none of its hosts (azure)`},
		{name: "one model replaced twice",
			files: []string{catalog, hostFile("imported-openrouter", "openrouter", "imp: x/a < or-gpt", "imp2: x/b < or-gpt")},
			host:  "openrouter", lookup: "openai/gpt-4o", want: "imp", problem: `model "or-gpt" is replaced by "imp" and "imp2"`},
		{name: "a model of its own file",
			files: []string{hostFile("openrouter", "openrouter", "a: x/a", "b: x/b < a")},
			host:  "openrouter", lookup: "x/a", want: "a", problem: `model "b" replaces "a" of its own file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var providers []*tariffs.Provider
			for i, f := range tt.files {
				p, ps := tariffs.Parse(fmt.Sprintf("f%d.yaml", i), []byte(f))
				if p == nil {
					t.Fatalf("file %d: %v", i, ps)
				}
				providers = append(providers, p)
			}
			cat, ps := tariffs.New(providers)
			var got []string
			for _, p := range ps {
				got = append(got, p.Error())
			}
			if tt.problem == "" && len(got) > 0 || tt.problem != "" && (len(got) != 1 || !strings.Contains(got[0], tt.problem)) {
				t.Errorf("problems %q, want %q", got, tt.problem)
			}
			if m, _, ok := cat.ResolveOn(tt.host, tt.lookup); !ok || m.ID != tt.want {
				t.Errorf("%s on %q resolves to %v, want %s", tt.lookup, tt.host, m, tt.want)
			}
		})
	}
}

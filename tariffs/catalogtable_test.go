package tariffs

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the catalog table of docs/tariffs.md")

const (
	tableStart = "<!-- catalog table: go test ./tariffs -run TestCatalogTable -update rewrites it -->\n"
	tableEnd   = "<!-- end of catalog table -->\n"
)

// TestCatalogTable keeps the table of docs/tariffs.md, one row per model
// and host (tariff file), true to the embedded catalog: the versions that
// price the model, each with the sources it names, their kinds and the
// date they were checked.
func TestCatalogTable(t *testing.T) {
	cat, ps := Load("")
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	want := catalogTable(cat)
	data, err := os.ReadFile("../docs/tariffs.md")
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok := strings.Cut(string(data), tableStart)
	_, tail, closed := strings.Cut(rest, tableEnd)
	if !ok || !closed {
		t.Fatal("docs/tariffs.md has no catalog table markers")
	}
	if *update {
		if err := os.WriteFile("../docs/tariffs.md", []byte(head+tableStart+want+tableEnd+tail), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, _, _ := strings.Cut(rest, tableEnd); got != want {
		t.Error("docs/tariffs.md's catalog table is stale: run go test ./tariffs -run TestCatalogTable -update")
	}
}

// TestCatalogVersionsRestOnTwoSources: every version of the embedded
// catalog names two sources or more, one of them the provider's own word
// unless the file says why none could be read.
func TestCatalogVersionsRestOnTwoSources(t *testing.T) {
	cat, _ := Load("")
	for _, p := range cat.Providers {
		for _, v := range p.Versions {
			if len(v.Sources) < 2 {
				t.Errorf("%s:%d: version %s names %d source(s), want 2 or more", p.File, v.Line, v.Name, len(v.Sources))
			}
			if v.Basis < SourceChangelog && v.Unreadable == "" {
				t.Errorf("%s:%d: version %s rests on %s sources only", p.File, v.Line, v.Name, v.Basis)
			}
		}
	}
}

// catalogTable writes the markdown table of the catalog: per tariff file,
// its sources numbered, then one row per model with the model's price
// history (a version that leaves the model's prices as they were is not
// repeated), each entry citing its version's sources by number.
func catalogTable(cat *Catalog) string {
	var b strings.Builder
	for _, p := range cat.Providers {
		fmt.Fprintf(&b, "#### %s (hosts: %s)\n\n", strings.TrimPrefix(p.File, "tariffs/catalog/"), strings.Join(p.Hosts, ", "))
		num := map[string]int{}
		for i, s := range p.Sources {
			num[s.URL] = i + 1
			fmt.Fprintf(&b, "%d. <%s> — %s, checked %s\n", i+1, s.URL, s.Kind, s.Checked)
		}
		b.WriteString("\n| model | price history: version (from; promotion) [sources] |\n|---|---|\n")
		for _, m := range p.Models {
			fmt.Fprintf(&b, "| `%s` | %s |\n", m.ID, history(p, m, num))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// history lists the versions that set or change m's prices, or retire it.
func history(p *Provider, m *Model, num map[string]int) string {
	var cells []string
	var last *ModelPrices
	for _, v := range p.Versions {
		mp := v.Prices[m]
		switch {
		case mp == nil && v.Retired[m] && last != nil:
			cells = append(cells, fmt.Sprintf("retired by %s (%s) %s", v.Name, v.Effective.Format("2006-01-02"), cite(v, num)))
			last = nil
			continue
		case mp == nil || (last != nil && samePrices(last, mp) && v.PromotionOf(m) == nil):
			continue
		}
		cell := fmt.Sprintf("%s (%s", v.Name, v.Effective.Format("2006-01-02"))
		if pr := v.PromotionOf(m); pr != nil {
			cell += "; " + pr.String()
		}
		cells = append(cells, cell+") "+cite(v, num))
		last = mp
	}
	if len(cells) == 0 {
		return "never priced"
	}
	return strings.Join(cells, "<br>")
}

// cite writes the numbers of a version's sources: "[1, 4]".
func cite(v *Version, num map[string]int) string {
	var ns []string
	for _, u := range v.Sources {
		ns = append(ns, fmt.Sprint(num[u]))
	}
	return "[" + strings.Join(ns, ", ") + "]"
}

// samePrices reports whether two versions price a model alike: every
// period, prompt-size tier, service tier and region.
func samePrices(a, b *ModelPrices) bool {
	if len(a.Periods) != len(b.Periods) || len(a.Tiers) != len(b.Tiers) || len(a.Variants) != len(b.Variants) {
		return false
	}
	for i := range a.Periods {
		if !a.Periods[i].Equal(&b.Periods[i]) {
			return false
		}
	}
	for i := range a.Tiers {
		if a.Tiers[i].Above != b.Tiers[i].Above || len(a.Tiers[i].Periods) != len(b.Tiers[i].Periods) {
			return false
		}
		for j := range a.Tiers[i].Periods {
			if !a.Tiers[i].Periods[j].Equal(&b.Tiers[i].Periods[j]) {
				return false
			}
		}
	}
	for i := range a.Variants {
		va, vb := a.Variants[i], b.Variants[i]
		if va.Service != vb.Service || va.Region != vb.Region || !samePrices(va.Prices, vb.Prices) {
			return false
		}
	}
	return true
}

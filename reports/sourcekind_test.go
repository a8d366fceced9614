package reports

import (
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// kindsTariff has a version on the file's sources (one official, one
// secondary: it rests on secondary) and one on an official source of its own.
const kindsTariff = `provider: kindco
currency: USD
timezone: UTC
billing_time: end
sources:
  - {url: https://kindco.example/pricing, kind: official, checked: 2026-11-30}
  - {url: https://blog.example/kindco, kind: secondary, checked: 2026-11-30}
models:
  - id: kind-model
versions:
  - effective: 2026-01-01T00:00:00Z
    name: launch
    prices: {kind-model: {standard: {input: 1, output: 2}}}
  - effective: 2026-09-02T00:00:00Z
    name: cut
    source: https://kindco.example/pricing
    prices: {kind-model: {standard: {input: 0.5, output: 1}}}
`

// TestWorkbookSourceKinds reads back the kind each rate rests on from the
// Tariffs sheet and the kind of each source from the Summary.
func TestWorkbookSourceKinds(t *testing.T) {
	p, ps := tariffs.Parse("kindco.yaml", []byte(kindsTariff))
	if p == nil {
		t.Fatal(ps)
	}
	cat, ps := tariffs.New([]*tariffs.Provider{p})
	if cat == nil {
		t.Fatal(ps)
	}
	from := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	until := from.AddDate(0, 1, 0)
	e := pricing.New(cat, pricing.Options{Dims: pricing.MonthDims, Since: from, Until: until})
	for i, end := range []string{"2026-09-01T10:00:00Z", "2026-09-20T10:00:00Z"} {
		at, _ := time.Parse(time.RFC3339, end)
		c := ledger.Call{RequestID: string(rune('a' + i)), Identity: string(rune('a' + i)), Gateway: ledger.LiteLLM,
			Start: at.Add(-time.Second), End: at, Model: "kind-model", Key: "k",
			Recorded: ledger.AmountOf(decimal.RequireFromString("0.001")), Tokens: ledger.Tokens{Input: 1000, Output: 100}}
		e.AddPriced(&c)
	}
	m, err := pricing.MonthOf(e, from, until, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := openWorkbook(t, m, Provenance{Produced: until, Program: "tokenfare test"})

	rows := sheetRows(t, f, SheetTariffs)
	header := rows[rowWith(t, rows, "Source kind")]
	version, source, kind := slices.Index(header, "Version"), slices.Index(header, "Source"), slices.Index(header, "Source kind")
	got := map[string][2]string{}
	for _, r := range rows[rowWith(t, rows, "Source kind")+1:] {
		if len(r) > kind {
			got[r[version]] = [2]string{r[source], r[kind]}
		}
	}
	want := map[string][2]string{
		"launch": {"the tariff file's sources", "secondary"},
		"cut":    {"https://kindco.example/pricing", "official"},
	}
	for v, w := range want {
		if got[v] != w {
			t.Errorf("Tariffs: version %s rests on %v, want %v", v, got[v], w)
		}
	}

	summary := sheetRows(t, f, SheetSummary)
	var kinds, bases []string
	for i, r := range summary {
		if len(r) == 0 {
			continue
		}
		switch {
		case r[0] == "Tariff sources":
			for _, s := range summary[i+1:] {
				if len(s) < 4 || s[0] != "kindco" || s[1] == "" {
					break
				}
				kinds = append(kinds, s[1]+" "+s[3])
			}
		case r[0] == "kindco" && len(r) > 6:
			bases = append(bases, r[2]+": "+r[6])
		}
	}
	if w := []string{"official https://kindco.example/pricing", "secondary https://blog.example/kindco"}; !slices.Equal(kinds, w) {
		t.Errorf("Summary sources = %q, want %q", kinds, w)
	}
	if w := []string{"launch: secondary source", "cut: official source"}; !slices.Equal(bases, w) {
		t.Errorf("Summary versions = %q, want %q", bases, w)
	}
}

func sheetRows(t *testing.T, f *excelize.File, sheet string) [][]string {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// rowWith returns the index of the first row that has a cell col.
func rowWith(t *testing.T, rows [][]string, col string) int {
	t.Helper()
	for i, r := range rows {
		if slices.Contains(r, col) {
			return i
		}
	}
	t.Fatalf("no row has a %q column", col)
	return 0
}

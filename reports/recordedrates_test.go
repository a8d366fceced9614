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

// TestBlendedSheetRecordedRates: the Blended prices sheet's "Gateway
// recorded at" column shows the rates the recorded spend matched, as the
// flat_price explanation reads them. The gateway recorded one call of
// claude-test (modifiersTariff) with 1,000 input, 1,000 1-hour write and
// 100 output tokens and one web search at (1000 × 3 + 1000 × 3.75 +
// 100 × 15) / 1M = 0.00825: 1-hour writes at the 5-minute 3.75, the search
// at no fee. The tariff's own 6.00 and 0.01 are not what it recorded at.
func TestBlendedSheetRecordedRates(t *testing.T) {
	f := modifiersWorkbook(t)
	rows, err := f.GetRows(SheetBlended, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	hr := rowWith(t, rows, "Gateway recorded at")
	usage, at, set := slices.Index(rows[hr], "Usage"), slices.Index(rows[hr], "Gateway recorded at"), slices.Index(rows[hr], "Recorded rate set")
	got := map[string]string{}
	var label string
	for _, r := range rows[hr+1:] {
		if len(r) > set {
			got[r[usage]], label = r[at], r[set]
		}
	}
	want := map[string]string{"input": "3", "cache_write_1h": "3.75", "output": "15", "web_search": "0"}
	for u, w := range want {
		if g, err := decimal.NewFromString(got[u]); err != nil || !g.Equal(decimal.RequireFromString(w)) {
			t.Errorf("%s: gateway recorded at %q, want %s", u, got[u], w)
		}
	}
	if w := "standard, version v1, 1-hour cache writes at the 5-minute price, no tool fees"; label != w {
		t.Errorf("recorded rate set %q, want %q", label, w)
	}
}

// modifiersWorkbook is the workbook of September 2026 with one call of
// claude-test (modifiersTariff), recorded at 0.00825.
func modifiersWorkbook(t *testing.T) *excelize.File {
	t.Helper()
	p, ps := tariffs.Parse("acme.yaml", []byte(modifiersTariff))
	if p == nil {
		t.Fatal(ps)
	}
	cat, ps := tariffs.New([]*tariffs.Provider{p})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	from := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	until := from.AddDate(0, 1, 0)
	end := time.Date(2026, 9, 20, 2, 0, 0, 0, time.UTC)
	c := ledger.Call{RequestID: "a", Identity: "a", Gateway: ledger.LiteLLM, Start: end.Add(-time.Second), End: end,
		Model: "claude-test", Key: "k", Recorded: ledger.AmountOf(decimal.RequireFromString("0.00825")),
		Tokens: ledger.Tokens{Input: 1000, CacheWrite1h: 1000, Output: 100}, Tools: ledger.ToolUses{ledger.WebSearch: 1}}
	e := pricing.New(cat, pricing.Options{Dims: pricing.MonthDims, Since: from, Until: until})
	e.AddPriced(&c)
	m, err := pricing.MonthOf(e, from, until, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := openWorkbook(t, m, Provenance{Produced: until, Program: "tokenfare test"})
	return f
}

// TestTariffsSheetColumns: the Tariffs sheet keeps the prices together, the
// 1-hour write beside the 5-minute one, the fees per use after the token
// prices, then what the rates rest on; a tool the tariff does not price is
// empty, not 0.
func TestTariffsSheetColumns(t *testing.T) {
	f := modifiersWorkbook(t)
	rows, err := f.GetRows(SheetTariffs, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	hr := rowWith(t, rows, "Source kind")
	header := rows[hr]
	want := []string{"Input", "Cache read", "Cache write", "Cache write 1h", "Output", "Reasoning", "Request",
		"Web search (per use)", "Web fetch (per use)", "File search (per use)", "Currency", "Source", "Source kind", "Promotion"}
	first := slices.Index(header, "Input")
	if first < 0 || !slices.Equal(header[first:], want) {
		t.Fatalf("Tariffs columns from Input: %q, want %q", header[max(first, 0):], want)
	}
	row := rows[hr+1]
	for col, w := range map[string]string{"Cache write": "3.75", "Cache write 1h": "6", "Web search (per use)": "0.01",
		"Web fetch (per use)": "", "Currency": "USD", "Source kind": "official"} {
		got := ""
		if i := slices.Index(header, col); i < len(row) {
			got = row[i]
		}
		if got != w {
			t.Errorf("%s = %q, want %q", col, got, w)
		}
	}
}

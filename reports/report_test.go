package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// sampleReconciliation is a reconciliation by key of two groups: one key
// priced in USD, official 0.5 and recorded 0.25 (gap 0.25, ratio 0.5); one
// key whose calls no tariff prices, recorded 0.1 (gap -0.1, no ratio).
// Totals: official 0.5, recorded 0.35, gap 0.15, ratio 0.35/0.5 = 0.7.
func sampleReconciliation() *pricing.Reconciliation {
	r := &pricing.Reconciliation{
		Rows:       pricing.Rows{Read: 3, Priced: 2, Unpriced: 1},
		Currencies: []string{"USD"},
		Totals: pricing.Totals{Calls: 3, Official: dec("0.5"), Recorded: dec("0.35"), Gap: dec("0.15"),
			Ratio: decimal.NewNullDecimal(dec("0.7")), Explained: dec("0.15")},
		By: []pricing.Dim{pricing.DimKey},
		Explanations: []pricing.Explanation{
			{Kind: pricing.KindUnpricedModel, Model: "mystery", Calls: 1, Amount: dec("-0.1"), Detail: "unpriced"},
			{Kind: pricing.KindFlatPrice, Model: "flash", Calls: 2, Amount: dec("0.25"), Version: "v1", Period: "peak", Detail: "flat"},
		},
	}
	r.SetGroups(sampleGroups())
	return r
}

// sampleGroups are sampleReconciliation's groups.
func sampleGroups() []pricing.Group {
	return []pricing.Group{
		{Key: pricing.GroupKey{Key: "k1"}, KeyAlias: "team-a", Currencies: []string{"USD"}, Calls: 2, PricedCalls: 2,
			Tokens: pricing.TokenCounts{Input: 1000, Output: 200}, Official: dec("0.5"), Recorded: dec("0.25"),
			Gap: dec("0.25"), Ratio: decimal.NewNullDecimal(dec("0.5"))},
		{Key: pricing.GroupKey{Key: "k2"}, Calls: 1, Tokens: pricing.TokenCounts{Input: 10},
			Official: decimal.Zero, Recorded: dec("0.1"), Gap: dec("-0.1")},
	}
}

func render(t *testing.T, f Format, write func(*bytes.Buffer, Format) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, f); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	return b.String()
}

func TestReconciliationJSON(t *testing.T) {
	out := render(t, JSON, func(b *bytes.Buffer, f Format) error { return Reconciliation(b, f, sampleReconciliation()) })
	var doc struct {
		Currency string            `json:"currency"`
		Totals   map[string]any    `json:"totals"`
		By       []string          `json:"by"`
		Groups   []json.RawMessage `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Currency != "USD" || doc.Totals["ratio"] != "0.700000" || doc.Totals["gap"] != "0.15" || strings.Join(doc.By, ",") != "key" {
		t.Errorf("currency %q, totals %v, by %v: want USD, ratio 0.700000, gap 0.15, by key", doc.Currency, doc.Totals, doc.By)
	}
	want := []string{
		`{"keys":{"key":"k1","key_alias":"team-a"},"calls":2,"priced_calls":2,"tokens":{"input":1000,"cache_read":0,"cache_write":0,"output":200,"reasoning":0},"official":"0.5","recorded":"0.25","gap":"0.25","ratio":"0.500000"}`,
		`{"keys":{"key":"k2"},"calls":1,"priced_calls":0,"tokens":{"input":10,"cache_read":0,"cache_write":0,"output":0,"reasoning":0},"official":"0","recorded":"0.1","gap":"-0.1","ratio":""}`,
	}
	for i, g := range doc.Groups {
		var compact bytes.Buffer
		json.Compact(&compact, g)
		if compact.String() != want[i] {
			t.Errorf("group %d:\n got %s\nwant %s", i, compact.String(), want[i])
		}
	}
}

func TestReconciliationCSV(t *testing.T) {
	out := render(t, CSV, func(b *bytes.Buffer, f Format) error { return Reconciliation(b, f, sampleReconciliation()) })
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"key", "key_alias", "calls", "priced_calls", "input", "cache_read", "cache_write", "output", "reasoning", "official", "recorded", "gap", "ratio",
			"cache_write_1h", "web_search", "web_fetch", "file_search", "currency"},
		{"k1", "team-a", "2", "2", "1000", "0", "0", "200", "0", "0.5", "0.25", "0.25", "0.500000", "0", "0", "0", "0", "USD"},
		// Nothing priced: the reconciliation's currency, no ratio.
		{"k2", "", "1", "0", "10", "0", "0", "0", "0", "0", "0.1", "-0.1", "", "0", "0", "0", "0", "USD"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), out)
	}
	for i := range want {
		if strings.Join(rows[i], ",") != strings.Join(want[i], ",") {
			t.Errorf("row %d:\n got %v\nwant %v", i, rows[i], want[i])
		}
	}
}

func TestReconciliationTable(t *testing.T) {
	out := render(t, Table, func(b *bytes.Buffer, f Format) error { return Reconciliation(b, f, sampleReconciliation()) })
	for _, want := range []string{
		"official  0.5000 USD\n",
		"recorded/official = 0.700000\n",
		"k1     team-a      2    0.5000    0.2500   0.2500  0.500000",
		"k2          -      1    0.0000    0.1000  -0.1000         -", // no alias, no ratio
		"explained 0.1500 of a gap of 0.1500",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// Explanations come largest first: 0.25 before -0.1.
	if strings.Index(out, "flat_price") > strings.Index(out, "unpriced_model") {
		t.Errorf("explanations not ordered by size:\n%s", out)
	}
}

// TestTableQuotesControlCharacters: a key or model from the logs holding a
// line break, a tab or a terminal escape is shown quoted on its own row,
// so that it neither breaks the table nor reaches the terminal raw.
func TestTableQuotesControlCharacters(t *testing.T) {
	r := sampleReconciliation()
	gs := sampleGroups()
	gs[0].KeyAlias = "team\nx\tlabel"
	r.SetGroups(gs)
	r.Explanations[0].Model = "evil\x1b[2J"
	out := render(t, Table, func(b *bytes.Buffer, f Format) error { return Reconciliation(b, f, r) })
	for _, want := range []string{
		`k1  "team\nx\tlabel"      2    0.5000`,
		`unpriced_model     "evil\x1b[2J"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\t\x1b") || strings.Count(out, "\n") != strings.Count(render(t, Table, func(b *bytes.Buffer, f Format) error {
		return Reconciliation(b, f, sampleReconciliation())
	}), "\n") {
		t.Errorf("a control character reached the table raw:\n%q", out)
	}
}

// TestYAMLFollowsJSON checks that YAML has JSON's fields in JSON's order.
func TestYAMLFollowsJSON(t *testing.T) {
	out := render(t, YAML, func(b *bytes.Buffer, f Format) error { return Reconciliation(b, f, sampleReconciliation()) })
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	top := doc.Content[0]
	for i := 0; i < len(top.Content); i += 2 {
		keys = append(keys, top.Content[i].Value)
	}
	if got, want := strings.Join(keys, " "), "rows currency totals by groups explanations"; got != want {
		t.Errorf("keys %q, want %q", got, want)
	}
	if !strings.Contains(out, `ratio: ""`) || !strings.Contains(out, `gap: "0.15"`) {
		t.Errorf("an undefined ratio is \"\" and money stays a string:\n%s", out)
	}
}

// gatewayBlend is a gateway-mode blend of one time-of-use model: input
// between 0.15 and 0.3 with its own tokens 100% peak, at the gateway-wide
// share 0.2: 0.15 + 0.2 × 0.15 = 0.18.
func gatewayBlend(mode pricing.BlendMode) *pricing.Blend {
	share := decimal.NewNullDecimal(dec("0.2"))
	b := &pricing.Blend{From: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 9, 29, 0, 0, 0, 0, time.UTC),
		Mode: mode, Rows: pricing.Rows{Read: 1, Priced: 1},
		Models: []pricing.BlendModel{
			{Model: "flash", Provider: "edgeco", Currency: "CNY", Calls: 1, Versions: []string{"v1", "v2"}, Official: dec("0.3"), AtBlended: dec("0.18"),
				Prices: []pricing.BlendPrice{{Usage: tariffs.Input, Tokens: 1_000_000, PeakShare: dec("1"),
					OffPeak: dec("0.15"), Peak: dec("0.3"), Blended: dec("0.18"), Official: dec("0.3")}}},
			{Model: "idle", Provider: "edgeco", Currency: "CNY", Reason: "no priced calls in the window"},
		}}
	if mode == pricing.ModeGateway {
		b.PeakShare, b.Models[0].Prices[0].ShareUsed = share, share
	}
	return b
}

func TestBlendShowsTheShareUsed(t *testing.T) {
	tests := []struct {
		format Format
		want   string
	}{
		{JSON, `"peak_share_used": "0.200000"`},
		{YAML, `peak_share_used: "0.200000"`},
		{CSV, "flash,edgeco,1,input,1000000,1.000000,0.200000,0.15,0.3,0.18,0.3,,v1 v2,,CNY\n"},
		{Table, "flash  input  1000000    1.000000    0.200000      0.15   0.3"},
	}
	for _, tt := range tests {
		t.Run(tt.format.String(), func(t *testing.T) {
			out := render(t, tt.format, func(b *bytes.Buffer, f Format) error { return Blend(b, f, gatewayBlend(pricing.ModeGateway)) })
			if !strings.Contains(out, tt.want) {
				t.Errorf("lacks %q:\n%s", tt.want, out)
			}
			perModel := render(t, tt.format, func(b *bytes.Buffer, f Format) error { return Blend(b, f, gatewayBlend(pricing.ModePerModel)) })
			if strings.Contains(perModel, "0.200000") || strings.Contains(perModel, "SHARE USED") {
				t.Errorf("per-model blend shows a share used:\n%s", perModel)
			}
		})
	}
}

func TestBlendCSVListsModelsWithoutCalls(t *testing.T) {
	out := render(t, CSV, func(b *bytes.Buffer, f Format) error { return Blend(b, f, gatewayBlend(pricing.ModePerModel)) })
	if want := "idle,edgeco,0,,,,,,,,,no priced calls in the window,,,CNY\n"; !strings.Contains(out, want) {
		t.Errorf("lacks %q:\n%s", want, out)
	}
}

// TestBlendNamesTheTariff: every format says which tariff priced the
// calls: the instant and the versions, or that each call had its own.
func TestBlendNamesTheTariff(t *testing.T) {
	b := gatewayBlend(pricing.ModePerModel)
	b.TariffAt = time.Date(2026, 9, 29, 0, 0, 0, 0, time.UTC)
	b.Models[0].Versions = []string{"v2"}
	tests := []struct {
		format Format
		want   string
	}{
		{JSON, `"tariff_at": "2026-09-29T00:00:00Z"`},
		{YAML, `- v2`},
		{CSV, ",v2,2026-09-29T00:00:00Z,CNY\n"},
		{Table, "tariff    in force at 2026-09-29T00:00:00Z, applied to every call of the window"},
	}
	for _, tt := range tests {
		out := render(t, tt.format, func(w *bytes.Buffer, f Format) error { return Blend(w, f, b) })
		if !strings.Contains(out, tt.want) {
			t.Errorf("%s lacks %q:\n%s", tt.format, tt.want, out)
		}
	}
	hist := render(t, Table, func(w *bytes.Buffer, f Format) error { return Blend(w, f, gatewayBlend(pricing.ModePerModel)) })
	if !strings.Contains(hist, "each call at the version in force at its own instant (historical)") || !strings.Contains(hist, "v1, v2") {
		t.Errorf("historical table:\n%s", hist)
	}
}

func TestParseFormat(t *testing.T) {
	if f, err := ParseFormat("yaml", Table, YAML); err != nil || f != YAML {
		t.Errorf("yaml among table, yaml: %v, %v", f, err)
	}
	if _, err := ParseFormat("yaml", Table, CSV); err == nil || !strings.Contains(err.Error(), "want table, csv") {
		t.Errorf("yaml not offered: %v, want an error naming table, csv", err)
	}
}

// TestCallWritersWithoutCalls checks what a run that prices no call
// writes: the CSV header and the table header, no JSON line.
func TestCallWritersWithoutCalls(t *testing.T) {
	for _, tt := range []struct {
		format Format
		want   string
	}{
		{CSV, "request_id,billed_at,model,logged_model,outcome,version,period,tier,key,input,cache_read,cache_write,output,reasoning,official,recorded,gap," +
			"cache_write_1h,web_search,web_fetch,file_search,service_tier,region,host,currency\n"},
		{Table, "BILLED AT"},
		{JSON, ""},
	} {
		var b bytes.Buffer
		w, err := NewCallWriter(&b, tt.format)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if (tt.want == "" && b.Len() != 0) || !strings.HasPrefix(b.String(), tt.want) {
			t.Errorf("%s: wrote %q, want %q", tt.format, b.String(), tt.want)
		}
	}
	if _, err := NewCallWriter(&bytes.Buffer{}, YAML); err == nil {
		t.Error("priced calls as YAML: no error")
	}
}

// TestExplanationAmountsAligned: a model name longer than the column
// widens it, so every amount, and the detail after it, starts in the same
// place.
func TestExplanationAmountsAligned(t *testing.T) {
	r := sampleReconciliation()
	r.Explanations = append(r.Explanations, pricing.Explanation{Kind: pricing.KindUnexplained,
		Model: "vertex-claude-sonnet-4-6-global", Calls: 1, Amount: dec("3.8"), Detail: "none matches"})
	out := render(t, Table, func(b *bytes.Buffer, f Format) error { return Reconciliation(b, f, r) })
	starts := map[int]bool{}
	for _, line := range strings.Split(out, "\n") {
		for _, detail := range []string{"unpriced", "flat", "none matches"} {
			if strings.HasSuffix(line, "  "+detail) {
				starts[len(line)-len(detail)] = true
			}
		}
	}
	if len(starts) != 1 {
		t.Errorf("details start in %d places, want 1:\n%s", len(starts), out)
	}
}

// TestBlendTableSaysWhatIsPerUse: a tool's row counts uses and prices one
// use, a request's counts calls; the table says so under the header that
// reads per 1M tokens, and says nothing when every row is tokens.
func TestBlendTableSaysWhatIsPerUse(t *testing.T) {
	tests := []struct {
		name  string
		extra []tariffs.Usage
		want  string
	}{
		{name: "tokens only", want: ""},
		{name: "a web search", extra: []tariffs.Usage{tariffs.WebSearch},
			want: "per use   web_search: TOKENS counts uses and the prices are per use (not per 1M tokens)\n"},
		{name: "searches, fetches and requests", extra: []tariffs.Usage{tariffs.WebSearch, tariffs.Request, tariffs.WebFetch},
			want: "per use   web_search, web_fetch: TOKENS counts uses and the prices are per use; request: TOKENS counts calls and the prices are per call (not per 1M tokens)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := gatewayBlend(pricing.ModePerModel)
			for _, u := range tt.extra {
				b.Models[0].Prices = append(b.Models[0].Prices, pricing.BlendPrice{Usage: u, Tokens: 3, PeakShare: decimal.Zero,
					OffPeak: dec("0.01"), Peak: dec("0.01"), Blended: dec("0.01"), Official: dec("0.03")})
			}
			out := render(t, Table, func(w *bytes.Buffer, f Format) error { return Blend(w, f, b) })
			got := ""
			for _, line := range strings.SplitAfter(out, "\n") {
				if strings.HasPrefix(line, "per use") {
					got = line
				}
			}
			if got != tt.want {
				t.Errorf("note %q, want %q:\n%s", got, tt.want, out)
			}
		})
	}
}

// TestBlendCSVLeftOutRowsAreText checks that the rows of what a blend
// leaves out write a model name that a spreadsheet would run as text, as
// the model's price rows do.
func TestBlendCSVLeftOutRowsAreText(t *testing.T) {
	b := gatewayBlend(pricing.ModePerModel)
	b.Models[0].Model = "=HYPERLINK(\"x\")"
	b.Models[0].LeftOut = []pricing.BlendLeftOut{{What: "service tier batch", Unit: "calls", Quantity: 2, Official: dec("0.1")}}
	out := render(t, CSV, func(w *bytes.Buffer, f Format) error { return Blend(w, f, b) })
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var leftOut int
	for _, row := range rows[1:] {
		if strings.HasPrefix(row[0], "=") {
			t.Errorf("a row writes the model as a formula: %q", row)
		}
		if row[3] == "service tier batch" {
			leftOut++
		}
	}
	if leftOut != 1 {
		t.Errorf("%d left-out rows, want 1:\n%s", leftOut, out)
	}
}

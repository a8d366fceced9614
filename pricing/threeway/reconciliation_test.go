package threeway_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/provider"
	"github.com/tokenfare/tokenfare/tariffs"
)

const fixtures = "../../testdata/provider"

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// threeWay reads the exports, prices the calls against cat, showing each
// to the builder as its observer, and builds the three-way reconciliation.
func threeWay(t *testing.T, cat *tariffs.Catalog, opts pricing.Options, calls []ledger.Call, exports ...string) *threeway.Reconciliation {
	t.Helper()
	var xs []*provider.Export
	for _, path := range exports {
		x, err := provider.ReadFile(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		xs = append(xs, x)
	}
	b, err := threeway.New(cat, opts, provider.ThreeWayRows(xs))
	if err != nil {
		t.Fatal(err)
	}
	return observe(t, b, cat, opts, calls)
}

// observe prices the calls, shows each to b through a pricing.Observer and
// builds the reconciliation.
func observe(t testing.TB, b *threeway.Builder, cat *tariffs.Catalog, opts pricing.Options, calls []ledger.Call) *threeway.Reconciliation {
	t.Helper()
	var o pricing.Observer = b
	e := pricing.New(cat, opts)
	for i := range calls {
		pc := e.AddPriced(&calls[i])
		if err := o.Observe(&calls[i], &pc); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build(e.Rows())
}

func readCalls(t *testing.T, path string) []ledger.Call {
	t.Helper()
	ctx := context.Background()
	r, err := ledger.FileSource(path, ledger.Options{}).Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []ledger.Call
	var b ledger.Batch
	for {
		err := r.Next(ctx, &b)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Rejected) > 0 {
			t.Fatalf("rejected: %v", b.Rejected)
		}
		out = append(out, b.Calls...)
	}
}

func loadTariffs(t *testing.T, dir string) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffs.Load(dir)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return cat
}

func findCell(t *testing.T, tw *threeway.Reconciliation, day, model, key string) *threeway.Cell {
	t.Helper()
	for i := range tw.Cells {
		c := &tw.Cells[i]
		if c.Day.Format(time.DateOnly) == day && c.Model == model && c.Key == key {
			return c
		}
	}
	t.Fatalf("no cell %s %s key %q", day, model, key)
	return nil
}

func partsOf(parts []threeway.Part) map[string]decimal.Decimal {
	m := map[string]decimal.Decimal{}
	for _, p := range parts {
		m[p.Kind.String()] = p.Amount
	}
	return m
}

// checkMoney compares named amounts with Equal.
func checkMoney(t *testing.T, what string, got, want map[string]decimal.Decimal) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok || !g.Equal(w) {
			t.Errorf("%s %s = %v, want %s", what, k, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s has %s = %s, not expected", what, k, g)
		}
	}
}

// checkSum checks that the parts add up to the gap.
func checkSum(t *testing.T, what string, parts []threeway.Part, gap decimal.NullDecimal) {
	t.Helper()
	sum := decimal.Zero
	for _, p := range parts {
		sum = sum.Add(p.Amount)
	}
	if !gap.Valid || !sum.Equal(gap.Decimal) {
		t.Errorf("%s: parts add up to %s, gap %v", what, sum, gap)
	}
}

// TestThreeWaySmallCase aligns the fixtures of testdata/provider — one
// export in each provider's documented shape — with nine logged calls, and
// checks every figure by hand. All on Monday 2026-10-12, UTC.
func TestThreeWaySmallCase(t *testing.T) {
	cat := loadTariffs(t, filepath.Join(fixtures, "tariffs"))
	calls := readCalls(t, filepath.Join(fixtures, "calls.csv"))
	tw := threeWay(t, cat, pricing.Options{}, calls, filepath.Join(fixtures, "openai-usage.jsonl"), filepath.Join(fixtures, "openai-costs.json"),
		filepath.Join(fixtures, "anthropic-usage.json"), filepath.Join(fixtures, "anthropic-cost.json"),
		filepath.Join(fixtures, "deepseek-usage.csv"))

	// Rows: 9 calls, o3 failed; 12 provider rows: 1 OpenAI usage (the second
	// page's bucket is empty), 3 OpenAI costs, 1 Anthropic usage, 5
	// Anthropic costs, 2 DeepSeek rows.
	if tw.Rows.Read != 9 || tw.Rows.Priced != 8 || tw.Rows.Failed != 1 || tw.ProviderRows != 12 {
		t.Errorf("rows %+v, provider rows %d: want 9 read, 8 priced, 1 failed, 12 provider rows", tw.Rows, tw.ProviderRows)
	}
	// Only DeepSeek's export has keys: alignment by key for deepseek alone;
	// four cells: OpenAI, Anthropic, and DeepSeek's two keys.
	if strings.Join(tw.Keyed, ",") != "deepseek" || len(tw.Cells) != 4 {
		t.Fatalf("keyed %v, %d cells: want deepseek, 4 cells", tw.Keyed, len(tw.Cells))
	}

	// OpenAI gpt-4o-mini (input 0.15, cache read 0.075, output 0.60 per 1M).
	// Gateway: o1 1000 in + 200 cached + 100 out = 0.00015 + 0.000015 +
	// 0.00006 = 0.000225; o2 2000 in + 300 out = 0.0003 + 0.00018 = 0.00048.
	// Official 0.000705, recorded 0.000225 + 0.0005 = 0.000725.
	// Provider: 3 requests, input_tokens 4200 of which 200 cached: 4000
	// uncached, 200 cached, 500 out = 0.0006 + 0.000015 + 0.0003 = 0.000915.
	// Missing: 1 call, 1000 input, 100 output = 0.00015 + 0.00006 = 0.00021.
	// Billed 0.0006 + 1.5e-05 + 0.00030000000000000003 (as the API's floats
	// print) = 0.00091500000000000003; drift 3e-20, within rounding.
	o := findCell(t, tw, "2026-10-12", "gpt-4o-mini", "")
	if o.GatewayCalls != 2 || o.ProviderRequests != 3 || o.MissingCalls != 1 || o.UnknownCalls != 0 ||
		o.Missing != (pricing.TokenCounts{Input: 1000, Output: 100}) || o.Unknown != (pricing.TokenCounts{}) ||
		o.ProviderTokens != (pricing.TokenCounts{Input: 4000, CacheRead: 200, Output: 500}) {
		t.Errorf("openai cell usage: %+v", o)
	}
	checkMoney(t, "openai cell", map[string]decimal.Decimal{"recorded": o.Recorded, "official": o.Official,
		"provider_official": o.ProviderOfficial.Decimal, "billed": o.Billed, "gap": o.Gap.Decimal},
		map[string]decimal.Decimal{"recorded": dec("0.000725"), "official": dec("0.000705"), "provider_official": dec("0.000915"),
			"billed": dec("0.00091500000000000003"), "gap": dec("0.00019000000000000003")})
	checkMoney(t, "openai parts", partsOf(o.Parts), map[string]decimal.Decimal{"recorded_vs_tariff": dec("-0.00002"),
		"missing_usage": dec("0.00021"), "tariff_drift": dec("0.00000000000000000003")})
	checkSum(t, "openai", o.Parts, o.Gap)

	// Anthropic claude-haiku-4-5 (input 1, cache read 0.10, cache write 1.25,
	// output 5 per 1M). Gateway: a1 0.001 + 0.0002 + 0.0005 + 0.001 =
	// 0.0027; a2 500 in + 100 out = 0.0005 + 0.0005 = 0.001; a3 100 in + 20
	// out = 0.0001 + 0.0001 = 0.0002: official = recorded = 0.0039.
	// Provider: 1500 uncached, 2000 read, 400 written (5m), 300 out = 0.0015
	// + 0.0002 + 0.0005 + 0.0015 = 0.0037. No request counts. Unknown: 100
	// input, 20 output = -0.0002. Billed in cents: 0.15 + 0.02 + 0.05 + 0.15
	// = 0.37 cents = 0.0037, plus web search 1.0 cent = 0.01 billed in total:
	// 0.0137, drift 0.01. Gap 0.0137 - 0.0039 = 0.0098.
	a := findCell(t, tw, "2026-10-12", "claude-haiku-4-5", "")
	if a.HasRequests || a.GatewayCalls != 3 || a.Unknown != (pricing.TokenCounts{Input: 100, Output: 20}) || a.Missing != (pricing.TokenCounts{}) {
		t.Errorf("anthropic cell usage: %+v", a)
	}
	checkMoney(t, "anthropic cell", map[string]decimal.Decimal{"recorded": a.Recorded, "official": a.Official,
		"provider_official": a.ProviderOfficial.Decimal, "billed": a.Billed, "gap": a.Gap.Decimal},
		map[string]decimal.Decimal{"recorded": dec("0.0039"), "official": dec("0.0039"), "provider_official": dec("0.0037"),
			"billed": dec("0.0137"), "gap": dec("0.0098")})
	checkMoney(t, "anthropic parts", partsOf(a.Parts), map[string]decimal.Decimal{"unknown_usage": dec("-0.0002"), "tariff_drift": dec("0.01")})
	checkSum(t, "anthropic", a.Parts, a.Gap)

	// DeepSeek deepseek-flash, key alpha. d1 at 02:00 UTC = 10:00 Beijing on
	// a Monday, peak (0.30 / 0.006 / 1.20): 0.0003 + 0.000006 + 0.0006 =
	// 0.000906, recorded at off-peak 0.00015 + 0.000003 + 0.0003 = 0.000453;
	// d2 at 12:30 UTC, off-peak: 2000 in + 100 out = 0.0003 + 0.00006 =
	// 0.00036. Official 0.001266, recorded 0.000813.
	// Provider: the 02:00 hour bills exactly d1 (0.000906); the 12:00 hour
	// has 2 requests, 3000 in and 150 out = 0.00045 + 0.00009 = 0.00054. So
	// 3 requests, provider official = billed = 0.001446, no drift. Missing:
	// 1 call, 1000 input, 50 output = 0.00015 + 0.00003 = 0.00018.
	alpha, beta := ledger.HashKey("sk-deepseek-alpha-0001"), ledger.HashKey("sk-deepseek-beta-0002")
	d := findCell(t, tw, "2026-10-12", "deepseek-flash", alpha)
	if d.GatewayCalls != 2 || d.ProviderRequests != 3 || d.MissingCalls != 1 || d.Missing != (pricing.TokenCounts{Input: 1000, Output: 50}) {
		t.Errorf("deepseek alpha usage: %+v", d)
	}
	checkMoney(t, "deepseek alpha", map[string]decimal.Decimal{"recorded": d.Recorded, "official": d.Official,
		"provider_official": d.ProviderOfficial.Decimal, "billed": d.Billed, "gap": d.Gap.Decimal},
		map[string]decimal.Decimal{"recorded": dec("0.000813"), "official": dec("0.001266"), "provider_official": dec("0.001446"),
			"billed": dec("0.001446"), "gap": dec("0.000633")})
	checkMoney(t, "deepseek alpha parts", partsOf(d.Parts), map[string]decimal.Decimal{"recorded_vs_tariff": dec("0.000453"), "missing_usage": dec("0.00018")})
	checkSum(t, "deepseek alpha", d.Parts, d.Gap)

	// Key beta: d3 at 02:30 UTC, peak, 100 in + 10 out = 0.00003 + 0.000012
	// = 0.000042, which the provider never counted nor billed: unknown 1
	// call, gap 0 - 0.000042.
	bc := findCell(t, tw, "2026-10-12", "deepseek-flash", beta)
	if bc.UnknownCalls != 1 || bc.Unknown != (pricing.TokenCounts{Input: 100, Output: 10}) || !bc.Billed.IsZero() {
		t.Errorf("deepseek beta: %+v", bc)
	}
	checkMoney(t, "deepseek beta parts", partsOf(bc.Parts), map[string]decimal.Decimal{"unknown_usage": dec("-0.000042")})
	checkSum(t, "deepseek beta", bc.Parts, bc.Gap)

	// DeepSeek totals: recorded 0.000813 + 0.000042 = 0.000855, billed
	// 0.001446, gap 0.000591 = 0.000453 + 0.00018 - 0.000042.
	for _, p := range tw.Providers {
		if p.Provider != "deepseek" {
			continue
		}
		checkMoney(t, "deepseek totals", map[string]decimal.Decimal{"recorded": p.Recorded, "official": p.Official, "billed": p.Billed, "gap": p.Gap.Decimal},
			map[string]decimal.Decimal{"recorded": dec("0.000855"), "official": dec("0.001308"), "billed": dec("0.001446"), "gap": dec("0.000591")})
		checkSum(t, "deepseek totals", p.Parts, p.Gap)
	}

	// Drift: the only drift that is not float noise is Anthropic's web
	// search: the cost report bills it (cost_type web_search) for the one
	// search the usage report counts, and the test tariff has no fee.
	var material []threeway.Drift
	for _, x := range tw.Drifts {
		if !x.Drift.IsZero() && !x.Rounding {
			material = append(material, x)
		}
	}
	if len(material) != 1 || material[0].Model != "claude-haiku-4-5" || material[0].Usage != threeway.Billed(tariffs.WebSearch) || material[0].Tokens != 1 ||
		material[0].Version != "2026-01-01" || !material[0].Drift.Equal(dec("0.01")) || !material[0].BilledPrice.Decimal.Equal(dec("0.01")) {
		t.Errorf("drift: %+v, want one: claude-haiku-4-5 version 2026-01-01 web_search, 1 use billed 0.01", material)
	}
}

// TestThreeWayScenarioDroppedRowsWrongPrice: the gateway's log lost two
// rows, and the tariff file has one wrong price (deepseek-v4-pro's
// off-peak cache read of version 2026-09-10-deepseek-flash written 0.02,
// DeepSeek charges 0.022). The provider's export has every call, billed at
// the right prices. The report must name the two dropped calls' days and
// models, and the wrong price's version, period and usage type.
func TestThreeWayScenarioDroppedRowsWrongPrice(t *testing.T) {
	dir := t.TempDir()
	catalog, err := os.ReadFile("../../tariffs/catalog/deepseek.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(catalog)
	at := strings.Index(text, "name: 2026-09-10-deepseek-flash")
	right := "deepseek-v4-pro:\n        offpeak: {input: 0.66, cache_read: 0.022,"
	i := strings.Index(text[at:], right)
	if at < 0 || i < 0 {
		t.Fatal("the catalog's deepseek-v4-pro off-peak rates of 2026-09-10-deepseek-flash are not where the test expects them")
	}
	wrong := text[:at+i] + strings.Replace(text[at+i:], right, "deepseek-v4-pro:\n        offpeak: {input: 0.66, cache_read: 0.02,", 1)
	os.Mkdir(filepath.Join(dir, "tariffs"), 0o755)
	write(t, filepath.Join(dir, "tariffs", "deepseek.yaml"), wrong)

	// Every call, billed by the hour at DeepSeek's prices (peak 01:00-04:00
	// and 06:00-10:00 UTC on weekdays; flash peak 0.30 / 0.006 / 1.20,
	// off-peak 0.15 / 0.003 / 0.60; v4-pro peak 1.32 / 0.044 / 3.96,
	// off-peak 0.66 / 0.022 / 1.98, per 1M tokens: miss / hit / output):
	//   f1 Tue 10-13 02:00 flash peak   1000 miss 2000 hit 300 out: 0.0003   0.000012 0.00036
	//   f2 Tue 10-13 12:00 flash off    2000 miss         500 out: 0.0003   0        0.0003
	//   f3 Wed 10-14 03:00 flash peak    100 miss          10 out: 0.00003  0        0.000012
	//   p1 Wed 10-14 12:00 pro off      1000 miss 5000 hit 200 out: 0.00066  0.00011  0.000396
	//   p2 Thu 10-15 02:00 pro peak      500 miss         100 out: 0.00066  0        0.000396
	//   p3 Thu 10-15 13:00 pro off       100 miss 1000 hit  10 out: 0.000066 0.000022 0.0000198
	write(t, filepath.Join(dir, "deepseek.csv"), `time,model,requests,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens,cache_hit_amount,cache_miss_amount,output_amount,currency
2026-10-13T02:00:00Z,deepseek-flash,1,2000,1000,300,0.000012,0.0003,0.00036,USD
2026-10-13T12:00:00Z,deepseek-flash,1,0,2000,500,0,0.0003,0.0003,USD
2026-10-14T03:00:00Z,deepseek-flash,1,0,100,10,0,0.00003,0.000012,USD
2026-10-14T12:00:00Z,deepseek-v4-pro,1,5000,1000,200,0.00011,0.00066,0.000396,USD
2026-10-15T02:00:00Z,deepseek-v4-pro,1,0,500,100,0,0.00066,0.000396,USD
2026-10-15T13:00:00Z,deepseek-v4-pro,1,1000,100,10,0.000022,0.000066,0.0000198,USD
`)
	// The gateway logged f1, f3, p1 and p3 (f2 and p2 were dropped),
	// recording what DeepSeek billed.
	write(t, filepath.Join(dir, "calls.csv"), `request_id,start,end,model,status,recorded_spend,input_tokens,cache_read_tokens,cache_write_tokens,output_tokens,reasoning_tokens
f1,2026-10-13T02:00:00Z,2026-10-13T02:00:20Z,deepseek-flash,success,0.000672,1000,2000,0,300,0
f3,2026-10-14T03:00:00Z,2026-10-14T03:00:20Z,deepseek-flash,success,0.000042,100,0,0,10,0
p1,2026-10-14T12:00:00Z,2026-10-14T12:00:20Z,deepseek-v4-pro,success,0.001166,1000,5000,0,200,0
p3,2026-10-15T13:00:00Z,2026-10-15T13:00:20Z,deepseek-v4-pro,success,0.0001078,100,1000,0,10,0
`)
	cat := loadTariffs(t, filepath.Join(dir, "tariffs"))
	tw := threeWay(t, cat, pricing.Options{}, readCalls(t, filepath.Join(dir, "calls.csv")), filepath.Join(dir, "deepseek.csv"))

	var missing []string
	for _, c := range tw.Cells {
		if c.MissingCalls > 0 {
			missing = append(missing, c.Day.Format(time.DateOnly)+" "+c.Model)
		}
		if c.UnknownCalls > 0 || c.Unknown != (pricing.TokenCounts{}) {
			t.Errorf("%s %s: unknown usage %+v, want none", c.Day.Format(time.DateOnly), c.Model, c.Unknown)
		}
		if c.Gap.Valid {
			checkSum(t, c.Day.Format(time.DateOnly)+" "+c.Model, c.Parts, c.Gap)
		}
	}
	if got := strings.Join(missing, ", "); got != "2026-10-13 deepseek-flash, 2026-10-15 deepseek-v4-pro" {
		t.Errorf("missing calls on %q, want 2026-10-13 deepseek-flash, 2026-10-15 deepseek-v4-pro", got)
	}
	// The dropped calls cost, at the (right) flash off-peak and pro peak
	// prices: f2 0.0006, p2 0.001056.
	for _, w := range []struct{ day, model, cost string }{{"2026-10-13", "deepseek-flash", "0.0006"}, {"2026-10-15", "deepseek-v4-pro", "0.001056"}} {
		c := findCell(t, tw, w.day, w.model, "")
		if got := partsOf(c.Parts)["missing_usage"]; !got.Equal(dec(w.cost)) {
			t.Errorf("%s %s missing_usage %s, want %s", w.day, w.model, got, w.cost)
		}
	}
	// The wrong price: 6000 off-peak cache-read tokens of v4-pro (p1 5000,
	// p3 1000) cost 0.00012 at 0.02 and were billed 0.000132 at 0.022.
	var material []threeway.Drift
	for _, d := range tw.Drifts {
		if !d.Drift.IsZero() && !d.Rounding {
			material = append(material, d)
		}
	}
	if len(material) != 1 {
		t.Fatalf("drift %+v, want one entry", material)
	}
	d := material[0]
	if d.Model != "deepseek-v4-pro" || d.Version != "2026-09-10-deepseek-flash" || d.Period != "offpeak" || d.Usage != threeway.Billed(tariffs.CacheRead) ||
		d.Tokens != 6000 || !d.Official.Equal(dec("0.00012")) || !d.Billed.Equal(dec("0.000132")) || !d.Drift.Equal(dec("0.000012")) ||
		!d.TariffPrice.Decimal.Equal(dec("0.02")) || !d.BilledPrice.Decimal.Equal(dec("0.022")) ||
		d.First.Format(time.DateOnly) != "2026-10-14" || d.Last.Format(time.DateOnly) != "2026-10-15" {
		t.Errorf("drift %+v, want deepseek-v4-pro 2026-09-10-deepseek-flash offpeak cache_read, 6000 tokens, 0.00012 against 0.000132 (0.02 against 0.022 per 1M), 2026-10-14 to 2026-10-15", d)
	}
}

// TestThreeWayWindow: with a window, provider rows whose bucket lies
// outside it are counted and left out, like the calls billed outside it.
func TestThreeWayWindow(t *testing.T) {
	cat := loadTariffs(t, filepath.Join(fixtures, "tariffs"))
	calls := readCalls(t, filepath.Join(fixtures, "calls.csv"))
	// From 2026-10-12T12:00Z: the calls before are outside (o1, o2, o3, a1,
	// a2, d1, d3; a3 ends at 12:00 exactly and d2 at 12:30 are inside); the
	// daily buckets of 2026-10-12 reach into the window and are kept (10
	// rows), and so is DeepSeek's 12:00 hour; its 02:00 hour is outside.
	tw := threeWay(t, cat, pricing.Options{Since: time.Date(2026, 10, 12, 12, 0, 0, 0, time.UTC)}, calls,
		filepath.Join(fixtures, "openai-usage.jsonl"), filepath.Join(fixtures, "openai-costs.json"),
		filepath.Join(fixtures, "anthropic-usage.json"), filepath.Join(fixtures, "anthropic-cost.json"),
		filepath.Join(fixtures, "deepseek-usage.csv"))
	if tw.ProviderRows != 12 || tw.ProviderOutside != 1 || tw.Rows.Outside != 7 {
		t.Errorf("provider rows %d, outside %d, calls outside %d: want 12, 1, 7", tw.ProviderRows, tw.ProviderOutside, tw.Rows.Outside)
	}
	// DeepSeek key alpha keeps the 12:00 hour alone: 2 requests against d2.
	d := findCell(t, tw, "2026-10-12", "deepseek-flash", ledger.HashKey("sk-deepseek-alpha-0001"))
	if d.GatewayCalls != 1 || d.ProviderRequests != 2 || d.MissingCalls != 1 {
		t.Errorf("deepseek alpha: %d calls, %d requests, %d missing: want 1, 2, 1", d.GatewayCalls, d.ProviderRequests, d.MissingCalls)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkObserve shows priced calls of three days, two models and
// four keys to a three-way builder aligned by key, beside the engine alone.
func BenchmarkObserve(b *testing.B) {
	cat, ps := tariffs.Load(filepath.Join(fixtures, "tariffs"))
	if len(ps) > 0 {
		b.Fatal(ps)
	}
	rows := []threeway.Row{{Provider: "deepseek",
		Start: time.Date(2026, 10, 12, 2, 0, 0, 0, time.UTC), End: time.Date(2026, 10, 12, 3, 0, 0, 0, time.UTC),
		Model: "deepseek-flash", Key: ledger.HashKey("k0"), HasTokens: true}}
	for _, n := range []int{100_000} {
		b.Run("calls="+strconv.Itoa(n), func(b *testing.B) {
			calls := make([]ledger.Call, n)
			for i := range calls {
				at := time.Date(2026, 10, 12+i%3, i%24, 0, 0, 0, time.UTC)
				calls[i] = ledger.Call{Start: at, End: at, Model: []string{"deepseek-flash", "gpt-4o-mini"}[i%2],
					Key: ledger.HashKey("k" + strconv.Itoa(i%4)), Tokens: ledger.Tokens{Input: 100, Output: 10}}
			}
			b.Run("engine-only", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					e := pricing.New(cat, pricing.Options{})
					for i := range calls {
						e.AddPriced(&calls[i])
					}
				}
			})
			b.Run("three-way", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					tb, err := threeway.New(cat, pricing.Options{}, rows)
					if err != nil {
						b.Fatal(err)
					}
					e := pricing.New(cat, pricing.Options{})
					for i := range calls {
						pc := e.AddPriced(&calls[i])
						tb.Observe(&calls[i], &pc)
					}
					tb.Build(e.Rows())
				}
			})
		})
	}
}

// TestThreeWayDuplicateCountsOnce: call d1's row is written twice in one
// source. As in reconcile, the call counts once in calls, tokens and
// recorded spend: the second row is the same call exported again.
func TestThreeWayDuplicateCountsOnce(t *testing.T) {
	cat := loadTariffs(t, filepath.Join(fixtures, "tariffs"))
	calls := readCalls(t, filepath.Join(fixtures, "calls.csv"))
	for _, c := range calls {
		if c.RequestID == "d1" {
			calls = append(calls, c)
			break
		}
	}
	exports := []string{filepath.Join(fixtures, "deepseek-usage.csv")}
	tw := threeWay(t, cat, pricing.Options{}, calls, exports...)
	if tw.Rows.Duplicate != 1 {
		t.Fatalf("rows %+v: want 1 duplicate", tw.Rows)
	}
	// Key alpha: d1 0.000453 + d2 0.00036 = 0.000813 recorded, d1 once,
	// against the official 0.001266 of d1 and d2 (TestThreeWaySmallCase).
	// 2 calls, 3000 input, 1000 cache read, 600 output. Billed 0.001446:
	// gap 0.000633, of which 0.000453 recorded below the tariff and
	// 0.00018 missing usage.
	alpha := ledger.HashKey("sk-deepseek-alpha-0001")
	d := findCell(t, tw, "2026-10-12", "deepseek-flash", alpha)
	if d.GatewayCalls != 2 || d.GatewayTokens != (pricing.TokenCounts{Input: 3000, CacheRead: 1000, Output: 600}) {
		t.Errorf("deepseek alpha: %d calls, tokens %+v; want 2 calls, 3000 input, 1000 cache read, 600 output", d.GatewayCalls, d.GatewayTokens)
	}
	checkMoney(t, "deepseek alpha", map[string]decimal.Decimal{"recorded": d.Recorded, "official": d.Official, "gap": d.Gap.Decimal},
		map[string]decimal.Decimal{"recorded": dec("0.000813"), "official": dec("0.001266"), "gap": dec("0.000633")})
	checkMoney(t, "deepseek alpha parts", partsOf(d.Parts), map[string]decimal.Decimal{"recorded_vs_tariff": dec("0.000453"), "missing_usage": dec("0.00018")})
	checkSum(t, "deepseek alpha", d.Parts, d.Gap)

	// The reconcile of the same calls records as much for deepseek.
	e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimKey}})
	for i := range calls {
		e.AddPriced(&calls[i])
	}
	for g, err := range e.Reconcile().Groups() {
		if err != nil {
			t.Fatal(err)
		}
		if g.Key.Key == alpha && !g.Recorded.Equal(d.Recorded) {
			t.Errorf("reconcile records %s for key alpha, three-way %s", g.Recorded, d.Recorded)
		}
	}
}

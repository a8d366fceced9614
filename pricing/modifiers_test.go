package pricing

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// modifierTariff prices, per 1M tokens: claude-test with 5-minute and
// 1-hour cache writes, web search at $10 per 1,000, batch at half and US
// processing at 1.1 ×; gpt-test with web and file search, flex at half and
// priority rates of its own; plain with none of them.
const modifierTariff = `provider: acme
currency: USD
timezone: UTC
billing_time: end
sources:
  - {url: https://example.com, checked: 2026-12-01, kind: official}
models:
  - id: claude-test
  - id: gpt-test
  - id: plain
versions:
  - effective: 2026-01-01T00:00:00Z
    prices:
      claude-test:
        standard: {input: 3.00, cache_read: 0.30, cache_write: 3.75, cache_write_1h: 6.00, output: 15.00}
      gpt-test:
        standard: {input: 2.50, cache_read: 0.25, output: 15.00}
      plain:
        standard: {input: 1.00, output: 2.00}
    tools:
      claude-test:
        web_search: {price: 10.00, per: 1000}
      gpt-test:
        web_search: {price: 10.00, per: 1000}
        file_search: {price: 2.50, per: 1000}
    service_tiers:
      batch: {multiplier: 0.5, models: [claude-test]}
      flex: {multiplier: 0.5, models: [gpt-test]}
      priority:
        prices:
          gpt-test:
            standard: {input: 5.00, cache_read: 0.50, output: 30.00}
    regions:
      us: {multiplier: 1.1, models: [claude-test]}
`

func modifierCatalog(t testing.TB) *tariffs.Catalog {
	t.Helper()
	p, ps := tariffs.Parse("acme.yaml", []byte(modifierTariff))
	if p == nil {
		t.Fatal(ps)
	}
	cat, ps := tariffs.New([]*tariffs.Provider{p})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return cat
}

// modifierCall is a call to model with tokens, tool uses, tier and region.
func modifierCall(id, model string, tk ledger.Tokens, tools ledger.ToolUses, tier ledger.ServiceTier, region string) ledger.Call {
	c := call(id, model, "2026-10-01T10:00:00Z", 0, 0, 0)
	c.Tokens, c.Tools, c.ServiceTier, c.Region = tk, tools, tier, region
	return c
}

func TestModifierCosts(t *testing.T) {
	tests := []struct {
		name string
		c    ledger.Call
		want string // worked by hand
	}{
		{name: "1-hour writes at their own rate",
			c: modifierCall("a", "claude-test", ledger.Tokens{Input: 1000, CacheWrite: 2000, CacheWrite1h: 4000, Output: 500}, ledger.ToolUses{}, ledger.TierStandard, ""),
			// (1000 × 3 + 2000 × 3.75 + 4000 × 6 + 500 × 15) / 1M = 42000 / 1M; at the
			// 5-minute rate the 1-hour writes would give 0.033.
			want: "0.042"},
		{name: "web searches are not free",
			c: modifierCall("b", "claude-test", ledger.Tokens{Input: 1000, Output: 100}, ledger.ToolUses{ledger.WebSearch: 3}, ledger.TierStandard, ""),
			// (1000 × 3 + 100 × 15) / 1M + 3 × 10 / 1000
			want: "0.0345"},
		{name: "batch at half the standard rate",
			c: modifierCall("c", "claude-test", ledger.Tokens{Input: 10000, Output: 2000}, ledger.ToolUses{}, ledger.TierBatch, ""),
			// (10000 × 3 + 2000 × 15) / 1M × 0.5; standard would be 0.06
			want: "0.03"},
		{name: "batch in the US",
			c: modifierCall("d", "claude-test", ledger.Tokens{Input: 10000, Output: 2000}, ledger.ToolUses{}, ledger.TierBatch, "us"),
			// 0.06 × 0.5 × 1.1
			want: "0.033"},
		{name: "US processing, web search fee kept",
			c: modifierCall("e", "claude-test", ledger.Tokens{Input: 1000, Output: 1000}, ledger.ToolUses{ledger.WebSearch: 1}, ledger.TierStandard, "us"),
			// (1000 × 3 + 1000 × 15) / 1M × 1.1 + 0.01
			want: "0.0298"},
		{name: "priority rates of its own",
			c: modifierCall("f", "gpt-test", ledger.Tokens{Input: 1000, CacheRead: 1000, Output: 100}, ledger.ToolUses{}, ledger.TierPriority, ""),
			// (1000 × 5 + 1000 × 0.50 + 100 × 30) / 1M
			want: "0.0085"},
		{name: "flex at half",
			c: modifierCall("g", "gpt-test", ledger.Tokens{Input: 1000, CacheRead: 1000, Output: 100}, ledger.ToolUses{}, ledger.TierFlex, ""),
			// (1000 × 2.50 + 1000 × 0.25 + 100 × 15) / 1M × 0.5
			want: "0.002125"},
		{name: "file and web search",
			c: modifierCall("h", "gpt-test", ledger.Tokens{Input: 100, Output: 10}, ledger.ToolUses{ledger.FileSearch: 4, ledger.WebSearch: 1}, ledger.TierStandard, ""),
			// (100 × 2.50 + 10 × 15) / 1M + 4 × 0.0025 + 1 × 0.01
			want: "0.0204"},
		{name: "unpriced 1-hour writes and searches cost nothing here",
			c: modifierCall("i", "plain", ledger.Tokens{Input: 100, CacheWrite1h: 1000}, ledger.ToolUses{ledger.WebSearch: 2}, ledger.TierStandard, ""),
			// 100 × 1 / 1M; the 1000 1-hour writes and 2 searches are reported unpriced
			want: "0.0001"},
		{name: "a tier the model lacks is priced at standard",
			c: modifierCall("j", "plain", ledger.Tokens{Input: 1000, Output: 1000}, ledger.ToolUses{}, ledger.TierBatch, ""),
			// (1000 × 1 + 1000 × 2) / 1M, reported as an unpriced service tier
			want: "0.003"},
		{name: "a region the model lacks is priced without it",
			c: modifierCall("k", "gpt-test", ledger.Tokens{Input: 1000}, ledger.ToolUses{}, ledger.TierStandard, "eu"),
			// 1000 × 2.50 / 1M, reported as an unpriced region
			want: "0.0025"},
	}
	cat := modifierCatalog(t)
	e := New(cat, Options{Dims: []Dim{DimModel}})
	sum := dec("0")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc := e.AddPriced(&tt.c)
			if pc.Outcome != Priced {
				t.Fatalf("outcome %v, want priced", pc.Outcome)
			}
			if _, got := pc.Cost(&tt.c); !got.Equal(dec(tt.want)) {
				t.Errorf("cost %s, want %s", got, tt.want)
			}
		})
		sum = sum.Add(dec(tt.want))
	}
	// The buckets, each priced once, come to the same total as the calls.
	if got := e.Reconcile().Totals.Official; !got.Equal(sum) {
		t.Errorf("total official %s, want the calls' sum %s", got, sum)
	}
	var got []string
	for _, u := range e.Unpriced() {
		got = append(got, fmt.Sprintf("%s %s %d", u.Model, u.What(), u.Quantity))
	}
	want := []string{"gpt-test region eu 1", "plain cache_write_1h 1000", "plain web_search 2", "plain service tier batch 1"}
	if !slices.Equal(got, want) {
		t.Errorf("unpriced %q, want %q", got, want)
	}
}

// TestBlendLeavesOutModifiers: the blend holds standard calls without a
// region; it lists the batch, priority and regional calls and the
// unpriced quantities it leaves out, and prices a tool per use.
func TestBlendLeavesOutModifiers(t *testing.T) {
	cat := modifierCatalog(t)
	e := New(cat, Options{Dims: []Dim{DimModel}})
	for _, c := range []ledger.Call{
		modifierCall("a", "claude-test", ledger.Tokens{Input: 1000, CacheWrite1h: 4000, Output: 500}, ledger.ToolUses{ledger.WebSearch: 3}, ledger.TierStandard, ""),
		modifierCall("b", "claude-test", ledger.Tokens{Input: 10000, Output: 2000}, ledger.ToolUses{}, ledger.TierBatch, ""),
		modifierCall("c", "claude-test", ledger.Tokens{Input: 1000, Output: 1000}, ledger.ToolUses{}, ledger.TierStandard, "us"),
		modifierCall("d", "plain", ledger.Tokens{Input: 100, CacheWrite1h: 1000}, ledger.ToolUses{ledger.WebSearch: 2}, ledger.TierStandard, ""),
	} {
		e.AddPriced(&c)
	}
	bl := e.BlendWindow(at("2026-10-01T00:00:00Z"), at("2026-10-02T00:00:00Z"), ModePerModel)
	got := map[string][]string{}
	for _, m := range bl.Models {
		for _, p := range m.Prices {
			got[m.Model] = append(got[m.Model], fmt.Sprintf("%s %d at %s", p.Usage, p.Tokens, p.Blended))
		}
		for _, l := range m.LeftOut {
			got[m.Model] = append(got[m.Model], fmt.Sprintf("left out %s %d %s %s", l.What, l.Quantity, l.Unit, l.Official))
		}
	}
	want := map[string][]string{
		"claude-test": {
			"input 1000 at 3", "cache_write_1h 4000 at 6", "output 500 at 15", "web_search 3 at 0.01",
			// (1000 × 3 + 1000 × 15) / 1M × 1.1; (10000 × 3 + 2000 × 15) / 1M × 0.5
			"left out region us 1 calls 0.0198", "left out service tier batch 1 calls 0.03",
		},
		"plain": {"input 100 at 1", "left out cache_write_1h 1000 tokens 0", "left out web_search 2 uses 0"},
	}
	for model, w := range want {
		if !slices.Equal(got[model], w) {
			t.Errorf("%s:\n got %q\nwant %q", model, got[model], w)
		}
	}
}

package pricing_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// catalogCall is one call as a gateway logs it, completed at end.
type catalogCall struct {
	model  string
	end    string
	tokens ledger.Tokens
	tools  ledger.ToolUses
	tier   ledger.ServiceTier
	region string
}

func (cc catalogCall) call(id string) ledger.Call {
	end, err := time.Parse(time.RFC3339, cc.end)
	if err != nil {
		panic(err)
	}
	return ledger.Call{RequestID: id, Identity: id, Gateway: ledger.LiteLLM, Start: end.Add(-10 * time.Second), End: end,
		Model: cc.model, Key: "k1", Tokens: cc.tokens, Tools: cc.tools, ServiceTier: cc.tier, Region: cc.region}
}

// TestCatalogModifiers prices calls that carry each billed modifier at the
// embedded catalog's rates, worked by hand per 1M tokens (tool fees per
// use). Each figure differs from what the call would cost if the modifier
// were ignored: a 1-hour write at the 5-minute rate, a free web search, a
// batch call at the standard rate all fail here.
func TestCatalogModifiers(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	cny, ps := tariffs.LoadLists("", []tariffs.PriceList{{Provider: "deepseek", Name: "cny"}})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	const oct, nov = "2026-10-15T12:00:00Z", "2026-11-03T06:00:00Z" // Thursday; Tuesday 14:00 Beijing (DeepSeek peak)
	var ws = func(n int64) ledger.ToolUses { var u ledger.ToolUses; u[ledger.WebSearch] = n; return u }
	tests := []struct {
		name string
		cat  *tariffs.Catalog
		c    catalogCall
		want string
	}{
		// Sonnet 4.6: input 3, 5m write 3.75, 1h write 6, output 15.
		// 1000×3 + 2000×3.75 + 4000×6 + 500×15 = 3000 + 7500 + 24000 + 7500 = 42000
		// (at the 5-minute rate the 1-hour writes would make it 33000).
		{"Anthropic 1-hour cache write", cat, catalogCall{"claude-sonnet-4-6", oct,
			ledger.Tokens{Input: 1000, CacheWrite: 2000, CacheWrite1h: 4000, Output: 500}, ledger.ToolUses{}, ledger.TierStandard, ""}, "0.042"},
		// 1000×3 + 500×15 = 10500 → 0.0105, plus 3 searches × 10/1000 = 0.03.
		{"Anthropic web search", cat, catalogCall{"anthropic/claude-sonnet-4-6", oct,
			ledger.Tokens{Input: 1000, Output: 500}, ws(3), ledger.TierStandard, ""}, "0.0405"},
		// (10000×3 + 20000×0.30 + 2000×15) × 0.5 = 66000 × 0.5 = 33000.
		{"Anthropic batch", cat, catalogCall{"claude-sonnet-4-6", oct,
			ledger.Tokens{Input: 10000, CacheRead: 20000, Output: 2000}, ledger.ToolUses{}, ledger.TierBatch, ""}, "0.033"},
		// Opus 4.6: (1000×5 + 1000×25) × 1.1 = 30000 × 1.1 = 33000.
		{"Anthropic US-only inference", cat, catalogCall{"claude-opus-4-6", oct,
			ledger.Tokens{Input: 1000, Output: 1000}, ledger.ToolUses{}, ledger.TierStandard, "us"}, "0.033"},
		// gpt-5.4: 100000×2.50 + 50000×0.25 + 10000×15 = 412500; batch half.
		{"OpenAI batch", cat, catalogCall{"gpt-5.4", oct,
			ledger.Tokens{Input: 100000, CacheRead: 50000, Output: 10000}, ledger.ToolUses{}, ledger.TierBatch, ""}, "0.20625"},
		{"OpenAI flex", cat, catalogCall{"openai/gpt-5.4", oct,
			ledger.Tokens{Input: 100000, CacheRead: 50000, Output: 10000}, ledger.ToolUses{}, ledger.TierFlex, ""}, "0.20625"},
		// Priority rates 5 / 0.50 / 30: 500000 + 25000 + 300000 = 825000.
		{"OpenAI priority", cat, catalogCall{"gpt-5.4", oct,
			ledger.Tokens{Input: 100000, CacheRead: 50000, Output: 10000}, ledger.ToolUses{}, ledger.TierPriority, ""}, "0.825"},
		// gpt-4o batch 1.25 for input and cached input, 5 for output:
		// 150000×1.25 + 10000×5 = 187500 + 50000 = 237500.
		{"OpenAI gpt-4o batch", cat, catalogCall{"gpt-4o", oct,
			ledger.Tokens{Input: 100000, CacheRead: 50000, Output: 10000}, ledger.ToolUses{}, ledger.TierBatch, ""}, "0.2375"},
		// 1000×2.50 + 100×15 = 4000 → 0.004; 2 web searches × 0.01 and 4
		// file searches × 0.0025 = 0.02 + 0.01.
		{"OpenAI web and file search", cat, catalogCall{"gpt-5.4", oct,
			ledger.Tokens{Input: 1000, Output: 100}, ledger.ToolUses{ledger.WebSearch: 2, ledger.FileSearch: 4}, ledger.TierStandard, ""}, "0.034"},
		// 4000 × 1.1 = 4400.
		{"OpenAI data residency", cat, catalogCall{"gpt-5.4", oct,
			ledger.Tokens{Input: 1000, Output: 100}, ledger.ToolUses{}, ledger.TierStandard, "eu"}, "0.0044"},
		// gemini-3.1-pro: 1000×2 + 100×12 = 3200 → 0.0032; 5 queries × 0.014.
		{"Gemini grounding", cat, catalogCall{"gemini/gemini-3.1-pro-preview", oct,
			ledger.Tokens{Input: 1000, Output: 100}, ws(5), ledger.TierStandard, ""}, "0.0732"},
		// gemini-3.5-flash: 1000000 × 1.50 × 0.5.
		{"Gemini batch", cat, catalogCall{"gemini-3.5-flash", oct,
			ledger.Tokens{Input: 1000000}, ledger.ToolUses{}, ledger.TierBatch, ""}, "0.75"},
		// gemini-3.1-pro below its 200K tier: 100000 × 2 × 1.8 = 360000.
		{"Gemini priority", cat, catalogCall{"gemini-3.1-pro", oct,
			ledger.Tokens{Input: 100000}, ledger.ToolUses{}, ledger.TierPriority, ""}, "0.36"},
		// Above it the tier's rates are multiplied too: 300000 × 4 × 1.8.
		{"Gemini priority, long prompt", cat, catalogCall{"gemini-3.1-pro", oct,
			ledger.Tokens{Input: 300000}, ledger.ToolUses{}, ledger.TierPriority, ""}, "2.16"},
		// deepseek-flash at peak: 1000×0.30 + 100×1.20 = 420 → 0.00042; 4
		// searches and 2 fetches × 0.75/1000 = 0.0045.
		{"DeepSeek search and fetch, USD", cat, catalogCall{"deepseek/deepseek-flash", nov,
			ledger.Tokens{Input: 1000, Output: 100}, ledger.ToolUses{ledger.WebSearch: 4, ledger.WebFetch: 2}, ledger.TierStandard, ""}, "0.00492"},
		// CNY list: 1000×2 + 100×8 = 2800 → 0.0028 元; 6 uses × 5/1000 = 0.03 元.
		{"DeepSeek search and fetch, CNY", cny, catalogCall{"deepseek-flash", nov,
			ledger.Tokens{Input: 1000, Output: 100}, ledger.ToolUses{ledger.WebSearch: 4, ledger.WebFetch: 2}, ledger.TierStandard, ""}, "0.0328"},
		// Search and Fetch were free until 2026-11-01: 1000×0.30 + 100×1.20
		// at Thursday 10:00 Beijing 2026-10-15 (peak), the 6 uses at 0.
		{"DeepSeek search and fetch before the fee, USD", cat, catalogCall{"deepseek-flash", "2026-10-15T02:00:00Z",
			ledger.Tokens{Input: 1000, Output: 100}, ledger.ToolUses{ledger.WebSearch: 4, ledger.WebFetch: 2}, ledger.TierStandard, ""}, "0.00042"},
		// CNY list: 1000×2 + 100×8 = 2800 → 0.0028 元, the uses at 0.
		{"DeepSeek search and fetch before the fee, CNY", cny, catalogCall{"deepseek-flash", "2026-10-15T02:00:00Z",
			ledger.Tokens{Input: 1000, Output: 100}, ledger.ToolUses{ledger.WebSearch: 4, ledger.WebFetch: 2}, ledger.TierStandard, ""}, "0.0028"},
		// DashScope V4 Pro at 23:00 Beijing (15:00 UTC), off-peak: 1000000 ×
		// 4.5 + 100000 × 13.5 = 4.5 + 1.35 元.
		{"DashScope off-peak", cat, catalogCall{"dashscope/deepseek-v4-pro", "2026-10-15T15:00:00Z",
			ledger.Tokens{Input: 1000000, Output: 100000}, ledger.ToolUses{}, ledger.TierStandard, ""}, "5.85"},
		// The same at 10:00 Beijing, peak: 9 + 2.7.
		{"DashScope peak", cat, catalogCall{"dashscope/deepseek-v4-pro", "2026-10-15T02:00:00Z",
			ledger.Tokens{Input: 1000000, Output: 100000}, ledger.ToolUses{}, ledger.TierStandard, ""}, "11.7"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := pricing.New(tt.cat, pricing.Options{Dims: []pricing.Dim{pricing.DimModel}})
			c := tt.c.call(string(rune('a' + i)))
			pc := e.AddPriced(&c)
			_, cost := pc.Cost(&c)
			if pc.Outcome != pricing.Priced || !cost.Equal(decimal.RequireFromString(tt.want)) {
				t.Errorf("%s at %s, want priced at %s", pc.Outcome, cost, tt.want)
			}
			if un := e.Unpriced(); len(un) > 0 {
				t.Errorf("unpriced quantities %v: the catalog should price every modifier of this call", un)
			}
		})
	}
}

// TestCatalogModifiersNotPriced checks what the catalog leaves out on
// purpose: the call is priced at what is known and the rest is reported.
func TestCatalogModifiersNotPriced(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	tests := []struct {
		name string
		c    catalogCall
		want string // cost of what is priced
		what string // the unpriced quantity reported
	}{
		// When DeepSeek's Search was first offered is not known: a search
		// logged before the 2026-09-10 version is reported, not taken as
		// free. deepseek-v4-flash at Tuesday 10:00 Beijing 2026-09-01
		// (peak): 1000×0.44 + 100×1.32 = 572 → 0.000572.
		{"DeepSeek search before its first priced version", catalogCall{"deepseek-v4-flash", "2026-09-01T02:00:00Z",
			ledger.Tokens{Input: 1000, Output: 100}, ledger.ToolUses{ledger.WebSearch: 4}, ledger.TierStandard, ""}, "0.000572", "web_search"},
		// Anthropic publishes no Priority Tier price: standard rates,
		// 1000×3 + 500×15 = 10500.
		{"Anthropic priority", catalogCall{"claude-sonnet-4-6", "2026-10-15T12:00:00Z",
			ledger.Tokens{Input: 1000, Output: 500}, ledger.ToolUses{}, ledger.TierPriority, ""}, "0.0105", "service tier priority"},
		// Sonnet 4.5 refuses US-only inference: no multiplier.
		{"US-only inference on a 4.5 model", catalogCall{"claude-sonnet-4-5", "2026-10-15T12:00:00Z",
			ledger.Tokens{Input: 1000, Output: 500}, ledger.ToolUses{}, ledger.TierStandard, "us"}, "0.0105", "region us"},
		// gpt-4o pays no data-residency uplift (released before 2026-03-05):
		// the catalog has no multiplier for it, 1000×2.50 + 100×10 = 3500.
		{"data residency on gpt-4o", catalogCall{"gpt-4o", "2026-10-15T12:00:00Z",
			ledger.Tokens{Input: 1000, Output: 100}, ledger.ToolUses{}, ledger.TierStandard, "eu"}, "0.0035", "region eu"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimModel}})
			c := tt.c.call(string(rune('a' + i)))
			pc := e.AddPriced(&c)
			_, cost := pc.Cost(&c)
			if pc.Outcome != pricing.Priced || !cost.Equal(decimal.RequireFromString(tt.want)) {
				t.Errorf("%s at %s, want priced at %s", pc.Outcome, cost, tt.want)
			}
			un := e.Unpriced()
			if len(un) != 1 || un[0].What() != tt.what {
				t.Errorf("unpriced quantities %v, want one: %s", un, tt.what)
			}
		})
	}
}

// TestCatalogHostModifiers prices calls served by a host (Bedrock, Vertex
// AI, Foundry, Azure OpenAI) that carry a billed modifier, at the host's
// own list in the embedded catalog, worked by hand per 1M tokens. A 1-hour
// write priced at the 5-minute rate or left unpriced, and an Azure batch,
// flex or priority call priced at the standard rates, fail here.
func TestCatalogHostModifiers(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	const oct = "2026-10-15T12:00:00Z"
	tests := []struct {
		name string
		host string
		c    catalogCall
		want string
	}{
		// Bedrock regional (us. profile) Sonnet 4.6, 1.10 x global: input
		// 3.30, 5m write 4.125, 1h write 2 x 3.30 = 6.60, output 16.50.
		// 1000×3.30 + 2000×4.125 + 4000×6.60 + 500×16.50
		// = 3300 + 8250 + 26400 + 8250 = 46200 (at the 5-minute rate the
		// 1-hour writes would make it 36300).
		{"Bedrock regional Sonnet 4.6 1-hour write", "bedrock", catalogCall{"bedrock/us.anthropic.claude-sonnet-4-6", oct,
			ledger.Tokens{Input: 1000, CacheWrite: 2000, CacheWrite1h: 4000, Output: 500}, ledger.ToolUses{}, ledger.TierStandard, ""}, "0.0462"},
		// Bedrock global Opus 4.6: 1000×5 + 1000×10 + 100×25 = 17500.
		{"Bedrock global Opus 4.6 1-hour write", "bedrock", catalogCall{"bedrock/global.anthropic.claude-opus-4-6-v1", oct,
			ledger.Tokens{Input: 1000, CacheWrite1h: 1000, Output: 100}, ledger.ToolUses{}, ledger.TierStandard, ""}, "0.0175"},
		// Vertex regional Haiku 4.5: 1h write 2 x 1.10 = 2.20; 10000×2.20
		// + 1000×5.50 = 22000 + 5500 = 27500.
		{"Vertex regional Haiku 4.5 1-hour write", "vertex_ai", catalogCall{"vertex_ai/regional/claude-haiku-4-5@20251001", oct,
			ledger.Tokens{CacheWrite1h: 10000, Output: 1000}, ledger.ToolUses{}, ledger.TierStandard, ""}, "0.0275"},
		// Foundry Sonnet 4.6 at Anthropic's list: 1000×3 + 1000×6 = 9000.
		{"Foundry Sonnet 4.6 1-hour write", "azure_ai", catalogCall{"azure_ai/claude-sonnet-4-6", oct,
			ledger.Tokens{Input: 1000, CacheWrite1h: 1000}, ledger.ToolUses{}, ledger.TierStandard, ""}, "0.009"},
		// Vertex Gemini 3.1 Pro batch, half of 2 / 12:
		// (100000×2 + 10000×12) × 0.5 = 320000 × 0.5.
		{"Vertex Gemini batch", "vertex_ai", catalogCall{"vertex_ai/gemini-3.1-pro-preview", oct,
			ledger.Tokens{Input: 100000, Output: 10000}, ledger.ToolUses{}, ledger.TierBatch, ""}, "0.16"},
		// Azure Global gpt-5.4 priority meters 5 / 0.50 / 30:
		// 100000×5 + 50000×0.50 + 10000×30 = 500000 + 25000 + 300000.
		{"Azure Global gpt-5.4 priority", "azure", catalogCall{"azure/gpt-5.4", oct,
			ledger.Tokens{Input: 100000, CacheRead: 50000, Output: 10000}, ledger.ToolUses{}, ledger.TierPriority, ""}, "0.825"},
		// Data Zone gpt-5.4-mini priority 1.65 / 0.165 / 9.90:
		// 100000×1.65 + 10000×9.90 = 165000 + 99000.
		{"Azure Data Zone gpt-5.4-mini priority", "azure", catalogCall{"azure/us/gpt-5.4-mini", oct,
			ledger.Tokens{Input: 100000, Output: 10000}, ledger.ToolUses{}, ledger.TierPriority, ""}, "0.264"},
		// Data Zone gpt-5.4 batch 1.375 / 0.143 / 8.25:
		// 100000×1.375 + 50000×0.143 + 10000×8.25 = 137500 + 7150 + 82500.
		{"Azure Data Zone gpt-5.4 batch", "azure", catalogCall{"azure/eu/gpt-5.4", oct,
			ledger.Tokens{Input: 100000, CacheRead: 50000, Output: 10000}, ledger.ToolUses{}, ledger.TierBatch, ""}, "0.22715"},
		// gpt-4o Global batch 1.25 / 5.00, no cached meter: cached input at
		// 1.25 too. 150000×1.25 + 10000×5 = 187500 + 50000.
		{"Azure Global gpt-4o batch", "azure", catalogCall{"azure/gpt-4o-2024-11-20", oct,
			ledger.Tokens{Input: 100000, CacheRead: 50000, Output: 10000}, ledger.ToolUses{}, ledger.TierBatch, ""}, "0.2375"},
		// Global gpt-5.4-mini flex, half of 0.75 / 0.075 / 4.50:
		// (75000 + 3750 + 45000) × 0.5 = 123750 × 0.5.
		{"Azure Global gpt-5.4-mini flex", "azure", catalogCall{"azure/gpt-5.4-mini", oct,
			ledger.Tokens{Input: 100000, CacheRead: 50000, Output: 10000}, ledger.ToolUses{}, ledger.TierFlex, ""}, "0.061875"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimModel}})
			c := tt.c.call(string(rune('a' + i)))
			c.Host = tt.host
			pc := e.AddPriced(&c)
			_, cost := pc.Cost(&c)
			if pc.Outcome != pricing.Priced || !cost.Equal(decimal.RequireFromString(tt.want)) {
				t.Errorf("%s at %s, want priced at %s", pc.Outcome, cost, tt.want)
			}
			if un := e.Unpriced(); len(un) > 0 {
				t.Errorf("unpriced quantities %v: the host's list should price every modifier of this call", un)
			}
		})
	}
}

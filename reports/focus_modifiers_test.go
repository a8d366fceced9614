package reports

import (
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// modifiersTariff: 1-hour writes at 6.00 per 1M, web search at $10 per
// 1,000, batch at half the token prices.
const modifiersTariff = `provider: acme
currency: USD
timezone: UTC
billing_time: end
sources:
  - {url: https://example.com, checked: 2026-12-01, kind: official}
models:
  - id: claude-test
versions:
  - effective: 2026-01-01T00:00:00Z
    name: v1
    prices:
      claude-test:
        standard: {input: 3.00, cache_write: 3.75, cache_write_1h: 6.00, output: 15.00}
    tools:
      claude-test:
        web_search: {price: 10.00, per: 1000}
    service_tiers:
      batch: {multiplier: 0.5}
`

// TestFOCUSModifierRows: 1-hour writes and web searches are rows of their
// own meter, and a batch call's rows carry its tier in SkuPriceId.
func TestFOCUSModifierRows(t *testing.T) {
	p, ps := tariffs.Parse("acme.yaml", []byte(modifiersTariff))
	if p == nil {
		t.Fatal(ps)
	}
	cat, ps := tariffs.New([]*tariffs.Provider{p})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	end := time.Date(2026, 9, 1, 2, 0, 0, 0, time.UTC)
	calls := []ledger.Call{
		{RequestID: "a", Identity: "a", Gateway: ledger.LiteLLM, Start: end.Add(-time.Second), End: end, Model: "claude-test", Key: "k",
			Tokens: ledger.Tokens{CacheWrite1h: 2_000_000}, Tools: ledger.ToolUses{ledger.WebSearch: 3}},
		{RequestID: "b", Identity: "b", Gateway: ledger.LiteLLM, Start: end.Add(-time.Second), End: end, Model: "claude-test", Key: "k",
			Tokens: ledger.Tokens{Output: 1_000_000}, ServiceTier: ledger.TierBatch},
	}
	e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimKey, pricing.DimDay}})
	for i := range calls {
		e.AddPriced(&calls[i])
	}
	rows := focusRows(t, e.Charges().All())
	// 2M 1-hour writes × 6.00 = 12; 3 searches × 0.01 = 0.03; 1M batch
	// output × 15 × 0.5 = 7.5.
	want := []map[string]string{
		{"x_UsageType": "cache_write_1h", "SkuMeter": "Cache Write Tokens (1h)", "ListUnitPrice": "6", "PricingQuantity": "2",
			"ListCost": "12", "SkuPriceId": "acme@v1/claude-test/cache_write_1h/standard", "x_ServiceTier": "standard"},
		{"x_UsageType": "web_search", "SkuMeter": "Web Searches", "ListUnitPrice": "0.01", "PricingQuantity": "3",
			"PricingUnit": "Requests", "ConsumedUnit": "Requests", "ListCost": "0.03"},
		{"x_UsageType": "output", "SkuMeter": "Output Tokens", "ListUnitPrice": "7.5", "ListCost": "7.5",
			"SkuPriceId": "acme@v1/claude-test/output/standard/batch", "x_ServiceTier": "batch",
			"SkuPriceDetails": `{"x_TariffVersion":"acme@v1","x_PricingPeriod":"standard","x_PromptTier":0,"x_ServiceTier":"batch"}`},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%v", len(rows), len(want), rows)
	}
	for i, w := range want {
		got := rows[i]
		for col, v := range w {
			if got[col] != v {
				t.Errorf("row %d: %s = %q, want %q", i+1, col, got[col], v)
			}
		}
	}
}

package threeway_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/provider"
	"github.com/tokenfare/tokenfare/tariffs"
)

// longPromptTariff prices claude-sonnet-4-5 at 3 / 15 per 1M tokens
// (input / output), and above 200,000 prompt tokens at 6 / 22.5.
const longPromptTariff = `provider: anthropic
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://platform.claude.com/docs/en/about-claude/pricing, kind: official, checked: 2026-12-01}]
models:
  - id: claude-sonnet-4-5
    names: [claude-sonnet-4-5, claude-sonnet-4-5-20250929]
versions:
  - effective: 2026-01-01T00:00:00Z
    name: 2026-01-01
    prices:
      claude-sonnet-4-5:
        standard: {input: 3.0, output: 15.0}
    tiers:
      claude-sonnet-4-5:
        - above: 200000
          prices:
            standard: {input: 6.0, output: 22.5}
`

func longPromptCatalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "anthropic.yaml"), longPromptTariff)
	return loadTariffs(t, dir)
}

// TestPromptSizeTier: a row's PromptSize picks the tariff's prompt-size
// tier its usage is priced at; 0 is the base tier. 1,000,000 input and
// 100,000 output tokens cost 3 + 1.5 = 4.5 at the base rates, 6 + 2.25 =
// 8.25 above 200,000 prompt tokens.
func TestPromptSizeTier(t *testing.T) {
	cat := longPromptCatalog(t)
	day := time.Date(2026, 10, 12, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		promptSize int64
		want       string
	}{
		{"not given: the base tier", 0, "4.5"},
		{"at the bound: still the base tier", 200_000, "4.5"},
		{"above the bound: the long-prompt tier", 200_001, "8.25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := threeway.Row{Provider: "anthropic", Start: day, End: day.Add(24 * time.Hour), Model: "claude-sonnet-4-5",
				PromptSize: tt.promptSize, HasTokens: true, Qty: pricing.Quantities{tariffs.Input: 1_000_000, tariffs.Output: 100_000}}
			b, err := threeway.New(cat, pricing.Options{}, []threeway.Row{row})
			if err != nil {
				t.Fatal(err)
			}
			c := findCell(t, b.Build(pricing.Rows{}), "2026-10-12", "claude-sonnet-4-5", "")
			if !c.ProviderOfficial.Valid || !c.ProviderOfficial.Decimal.Equal(dec(tt.want)) {
				t.Errorf("provider official %v, want %s", c.ProviderOfficial, tt.want)
			}
		})
	}
}

// TestAnthropicLongContextRows: Anthropic's usage report grouped by
// context_window prices its "200k-1M" rows at the long-prompt tier, read
// by package provider and priced here. The two rows of one day, 1,000,000
// input and 100,000 output tokens each: 4.5 in the base window, 8.25 in
// the long one, 12.75 in all.
func TestAnthropicLongContextRows(t *testing.T) {
	page := `{"data": [{"starting_at": "2026-10-12T00:00:00Z", "ending_at": "2026-10-13T00:00:00Z", "results": [
  {"uncached_input_tokens": 1000000, "output_tokens": 100000, "model": "claude-sonnet-4-5-20250929", "context_window": "0-200k"},
  {"uncached_input_tokens": 1000000, "output_tokens": 100000, "model": "claude-sonnet-4-5-20250929", "context_window": "200k-1M"}]}],
 "has_more": false, "next_page": null}`
	x, err := provider.Read(context.Background(), "usage.json", strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	b, err := threeway.New(longPromptCatalog(t), pricing.Options{}, provider.ThreeWayRows([]*provider.Export{x}))
	if err != nil {
		t.Fatal(err)
	}
	c := findCell(t, b.Build(pricing.Rows{}), "2026-10-12", "claude-sonnet-4-5", "")
	if !c.ProviderOfficial.Decimal.Equal(dec("12.75")) {
		t.Errorf("provider official %v, want 12.75 (4.5 base + 8.25 long prompt)", c.ProviderOfficial)
	}
}

// TestCurrencyNotTheTariffs: a bill in another currency than its tariff's
// is refused, naming the row's place.
func TestCurrencyNotTheTariffs(t *testing.T) {
	day := time.Date(2026, 10, 12, 0, 0, 0, 0, time.UTC)
	row := threeway.Row{Provider: "anthropic", Start: day, End: day.Add(time.Hour), Model: "claude-sonnet-4-5",
		Billing: threeway.BilledInTotal, Billed: dec("1"), Currency: "EUR", Where: "cost.json: data[0].results[0]"}
	_, err := threeway.New(longPromptCatalog(t), pricing.Options{}, []threeway.Row{row})
	if want := "cost.json: data[0].results[0]: billed in EUR, but the anthropic tariff is in USD"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestBillingString names each billing mode.
func TestBillingString(t *testing.T) {
	tests := []struct {
		b    threeway.Billing
		want string
	}{
		{threeway.NotBilled, "not billed"},
		{threeway.BilledByUsage, "billed by usage"},
		{threeway.BilledInTotal, "billed in total"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.b.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBuilderIsObserver: fed through pricing.Observers after another
// observer, the builder sees every call: of the small case's nine calls,
// the failed o3 is left out, and without exports (no keys) the other
// eight fall in three cells, by provider: anthropic 3, deepseek 3,
// openai 2.
func TestBuilderIsObserver(t *testing.T) {
	cat := loadTariffs(t, filepath.Join(fixtures, "tariffs"))
	calls := readCalls(t, filepath.Join(fixtures, "calls.csv"))
	b, err := threeway.New(cat, pricing.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	counter := pricing.ObserverFunc(func(*ledger.Call, *pricing.PricedCall) error { seen++; return nil })
	obs := pricing.Observers{counter, b}
	e := pricing.New(cat, pricing.Options{})
	for i := range calls {
		pc := e.AddPriced(&calls[i])
		if err := obs.Observe(&calls[i], &pc); err != nil {
			t.Fatal(err)
		}
	}
	tw := b.Build(e.Rows())
	var perCell []int64
	for _, c := range tw.Cells {
		perCell = append(perCell, c.GatewayCalls)
	}
	if seen != 9 || !slices.Equal(perCell, []int64{3, 3, 2}) {
		t.Errorf("%d calls seen, gateway calls per cell %v: want 9, [3 3 2]", seen, perCell)
	}
}

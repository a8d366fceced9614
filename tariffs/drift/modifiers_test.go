package drift

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// testdata/litellm-modifiers.json holds entries of LiteLLM's
// model_prices_and_context_window.json as copied verbatim by
// RoCry/llm-api-price@8442b939a6ead479f7995b5d74d8dce488bd0966 (2026-07-24),
// trimmed to their price keys: claude-sonnet-4-6, claude-opus-4-6, gpt-5.4,
// gpt-5.4-nano, gpt-4o, gemini/gemini-3.1-pro-preview and
// gemini/gemini-2.5-flash. testdata/genai-anthropic.yml is genai-prices'
// claude-sonnet-4-6 (its commit is in the file).

// TestReadModifierKeys reads the keys that price 1-hour writes, web
// searches and service tiers, per 1M tokens (a search per use).
func TestReadModifierKeys(t *testing.T) {
	lite := entries(readDB(t, "litellm-modifiers.json"))
	genai := entries(readDB(t, "genai-anthropic.yml"))
	at := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		e       *Entry
		service tariffs.ServiceTier
		usage   tariffs.Usage
		prompt  int64
		want    string // "" when the entry lists no such price
	}{
		{"LiteLLM 1-hour write", lite["claude-sonnet-4-6"], tariffs.Standard, tariffs.CacheWrite1h, 0, "6"},
		{"LiteLLM 5-minute write stays apart", lite["claude-sonnet-4-6"], tariffs.Standard, tariffs.CacheWrite, 0, "3.75"},
		{"LiteLLM web search, medium context, per search", lite["claude-sonnet-4-6"], tariffs.Standard, tariffs.WebSearch, 0, "0.01"},
		{"LiteLLM Gemini 3 search per query", lite["gemini/gemini-3.1-pro-preview"], tariffs.Standard, tariffs.WebSearch, 0, "0.014"},
		{"LiteLLM batch input", lite["gpt-5.4"], tariffs.Batch, tariffs.Input, 0, "1.25"},
		{"LiteLLM batch lists no cached input", lite["gpt-5.4"], tariffs.Batch, tariffs.CacheRead, 0, ""},
		{"LiteLLM flex cached input", lite["gpt-5.4"], tariffs.Flex, tariffs.CacheRead, 0, "0.13"},
		{"LiteLLM priority output", lite["gpt-4o"], tariffs.Priority, tariffs.Output, 0, "17"},
		{"LiteLLM priority of a long prompt", lite["gemini/gemini-3.1-pro-preview"], tariffs.Priority, tariffs.Input, 200001, "7.2"},
		{"LiteLLM priority of a short prompt", lite["gemini/gemini-3.1-pro-preview"], tariffs.Priority, tariffs.Input, 1000, "3.6"},
		{"the standard rate is not the batch one", lite["gpt-4o"], tariffs.Standard, tariffs.Input, 0, "2.5"},
		{"genai-prices 1-hour write", genai["claude-sonnet-4-6"], tariffs.Standard, tariffs.CacheWrite1h, 0, "6"},
		{"genai-prices web_searches_kcount per search", genai["claude-sonnet-4-6"], tariffs.Standard, tariffs.WebSearch, 0, "0.01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.e == nil {
				t.Fatal("entry not read")
			}
			r := &tt.e.choose(at).rates
			if tt.service != tariffs.Standard {
				r = r.service[tt.service]
			}
			var got decimal.Decimal
			ok := false
			if r != nil {
				got, ok = r.price(tt.usage, tt.prompt)
			}
			switch {
			case tt.want == "" && ok:
				t.Errorf("%s [%s] = %s, want none listed", tt.usage, tt.service, got)
			case tt.want != "" && (!ok || !got.Equal(decimal.RequireFromString(tt.want))):
				t.Errorf("%s [%s] = %s (listed %v), want %s", tt.usage, tt.service, got, ok, tt.want)
			}
		})
	}
}

// TestCompareModifiers puts the real entries beside the embedded catalog
// on 2026-10-15. The differences expected, worked by hand:
//   - gpt-5.4 flex cached input: catalog 0.25 × 0.5 = 0.125, LiteLLM 0.13
//     (rounded).
//   - gpt-5.4 above 272K prompt tokens in batch and flex: the catalog
//     multiplies its long-context rates (5 × 0.5 = 2.5 input, 22.5 × 0.5 =
//     11.25 output, 0.5 × 0.5 = 0.25 cached in flex); LiteLLM has no
//     long-context batch or flex keys and charges its base ones (1.25, 7.5,
//     0.13).
//   - gemini-3.1-pro above 200K in batch: 4 × 0.5 = 2 and 18 × 0.5 = 9
//     against LiteLLM's base 1 and 6.
//   - gpt-5.4-nano flex: the catalog has no flex rates for it (it prices
//     such calls at the standard 0.20 / 0.02 / 1.25); LiteLLM lists 0.1 /
//     0.01 / 0.625.
//
// 1-hour writes, web search fees, priority and every other batch rate
// agree, and nothing is reported for LiteLLM's regional multipliers.
func TestCompareModifiers(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	at := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	dbs := []*Database{readDB(t, "litellm-modifiers.json"), readDB(t, "genai-anthropic.yml")}
	var got []string
	for _, f := range Compare(cat, dbs, at, ScopeAll) {
		if f.Kind != PriceDiffers {
			continue
		}
		got = append(got, fmt.Sprintf("%s %s>%d [%s] %s %s", f.Model.ID, f.Usage, f.Above, f.Service, f.Catalog, f.Other))
		if strings.Contains(f.Model.ID, "nano") && !strings.Contains(f.Note, "no flex rates") {
			t.Errorf("gpt-5.4-nano flex finding without the note that the catalog has no flex rates: %q", f.Note)
		}
	}
	slices.Sort(got)
	want := []string{
		"gemini-3.1-pro input>200000 [batch] 2 1",
		"gemini-3.1-pro output>200000 [batch] 9 6",
		"gpt-5.4 cache_read>0 [flex] 0.125 0.13",
		"gpt-5.4 cache_read>272000 [flex] 0.25 0.13",
		"gpt-5.4 input>272000 [batch] 2.5 1.25",
		"gpt-5.4 input>272000 [flex] 2.5 1.25",
		"gpt-5.4 output>272000 [batch] 11.25 7.5",
		"gpt-5.4 output>272000 [flex] 11.25 7.5",
		"gpt-5.4-nano cache_read>0 [flex] 0.02 0.01",
		"gpt-5.4-nano input>0 [flex] 0.2 0.1",
		"gpt-5.4-nano output>0 [flex] 1.25 0.625",
	}
	if !slices.Equal(got, want) {
		t.Errorf("price differences:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCompareFlagsMissingModifiers compares against a catalog that prices
// neither 1-hour writes nor web searches: both are reported, with the
// catalog's 0 and a note, instead of passing as agreement.
func TestCompareFlagsMissingModifiers(t *testing.T) {
	p, ps := tariffs.Parse("anthropic.yaml", []byte(`provider: anthropic
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://example.com, checked: 2026-12-01}]
models:
  - id: claude-sonnet-4-6
versions:
  - effective: 2026-01-01T00:00:00Z
    prices:
      claude-sonnet-4-6:
        standard: {input: 3, cache_read: 0.3, cache_write: 3.75, output: 15}
`))
	if p == nil {
		t.Fatal(ps)
	}
	cat, ps := tariffs.New([]*tariffs.Provider{p})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	db := readDB(t, "genai-anthropic.yml")
	var got []string
	for _, f := range Compare(cat, []*Database{db}, time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC), ScopeAll) {
		got = append(got, fmt.Sprintf("%s %s %s %s", f.Kind, f.Usage, f.Catalog, f.Other))
		if !strings.Contains(f.Note, "does not price it") {
			t.Errorf("%s: note %q, want it to say the catalog does not price it", f.Usage, f.Note)
		}
	}
	want := []string{"price cache_write_1h 0 6", "price web_search 0 0.01"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
}

// TestCompareRegions compares LiteLLM's region multipliers with the
// catalog's: the real entries agree (gpt-5.4 eu and us 1.1, Opus 4.6 us
// 1.1); a 4.5 model with a us multiplier, which Anthropic refuses, is
// reported with no catalog multiplier; a wrong one is reported as such.
func TestCompareRegions(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	at := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	made, err := Read(context.Background(), "made.json", strings.NewReader(`{
  "claude-sonnet-4-5": {"input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05, "litellm_provider": "anthropic",
    "mode": "chat", "provider_specific_entry": {"us": 1.1, "fast": 2.0}},
  "gpt-5.4-mini": {"input_cost_per_token": 7.5e-07, "output_cost_per_token": 4.5e-06, "litellm_provider": "openai",
    "mode": "chat", "regional_processing_uplift_multiplier_eu": 1.2}
}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range Compare(cat, []*Database{readDB(t, "litellm-modifiers.json"), made}, at, ScopeAll) {
		if f.Kind != RegionDiffers {
			continue
		}
		got = append(got, fmt.Sprintf("%s %s %s %s %t", f.Model.ID, f.Region, f.Catalog, f.Other, f.Note != ""))
	}
	want := []string{"claude-sonnet-4-5 us 0 1.1 true", "gpt-5.4-mini eu 1.1 1.2 false"}
	if !slices.Equal(got, want) {
		t.Errorf("region findings %v, want %v", got, want)
	}
}

func entries(db *Database) map[string]*Entry {
	out := map[string]*Entry{}
	for _, e := range db.Entries {
		out[e.Name] = e
	}
	return out
}

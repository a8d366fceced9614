package tariffs

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// unpriced stands for "no price at this instant" in the want column of
// openAIFigures: the model is not yet (or no longer) priced.
const unpriced = "unpriced"

// callTokens are the tokens of one call, by usage type. The prompt is the
// sum of the first three: it decides the long-context tier.
type callTokens struct {
	input, cacheRead, cacheWrite, output int64
}

// openAIPoint is one instant of a case and the call's cost then, worked by
// hand from the provider's price per 1M tokens.
type openAIPoint struct {
	at   string
	want string // USD, or unpriced
}

// figureCase is a call logged under a name on a host, in a service tier
// and region, and its cost at several instants worked by hand.
type figureCase struct {
	name   string
	host   string
	logged string // as the gateway logs it
	tier   ServiceTier
	region string
	tokens callTokens
	points []openAIPoint // want: USD, unpriced or retired
}

// openAIFigures are the corrections of OpenAI's list and of Azure's and
// Foundry's listings, each point worked by hand as tokens x price / 1M.
var openAIFigures = []figureCase{
	{
		// 200,000 x 5 / 1M + 100,000 x 30 / 1M = 1.00 + 3.00; after the
		// cut 200,000 x 4 + 100,000 x 20 = 0.80 + 2.00; the list price
		// again from 2026-12-01.
		name: "gpt-5.6-sol standard around its cut", host: "openai", logged: "gpt-5.6-sol",
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{
			{"2026-08-20T12:00:00Z", "4.00"},
			{"2026-08-21T19:33:00Z", "4.00"},
			{"2026-08-21T19:34:00Z", "2.80"},
			{"2026-09-01T00:00:00Z", "2.80"},
			{"2026-11-30T23:59:00Z", "2.80"},
			{"2026-12-01T00:00:00Z", "4.00"},
		},
	},
	{
		// Above 272K: 300,000 x 10 + 100,000 x 45 = 3.00 + 4.50; after the
		// cut 300,000 x 8 + 100,000 x 30 = 2.40 + 3.00.
		name: "gpt-5.6-sol long context around its cut", host: "openai", logged: "openai/gpt-5.6-sol",
		tokens: callTokens{input: 300_000, output: 100_000},
		points: []openAIPoint{
			{"2026-08-20T12:00:00Z", "7.50"},
			{"2026-09-01T00:00:00Z", "5.40"},
			{"2026-12-02T00:00:00Z", "7.50"},
		},
	},
	{
		// Prompt 270,000 (standard). Before: 50,000 x 5 + 200,000 x 0.50 +
		// 20,000 x 6.25 + 10,000 x 30 = 0.25 + 0.10 + 0.125 + 0.30; after:
		// 50,000 x 4 + 200,000 x 0.40 + 20,000 x 5 + 10,000 x 20 = 0.20 +
		// 0.08 + 0.10 + 0.20.
		name: "gpt-5.6 alias with cache reads and writes", host: "", logged: "gpt-5.6",
		tokens: callTokens{input: 50_000, cacheRead: 200_000, cacheWrite: 20_000, output: 10_000},
		points: []openAIPoint{
			{"2026-08-20T12:00:00Z", "0.775"},
			{"2026-09-01T00:00:00Z", "0.58"},
		},
	},
	{
		name: "gpt-5.6-sol launch snapshot", host: "openai", logged: "openai/gpt-5.6-sol-2026-07-09",
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{{"2026-09-01T00:00:00Z", "2.80"}},
	},
	{
		// Fast mode at twice Standard: 200,000 x 10 + 100,000 x 60 = 2.00 +
		// 6.00; after the cut 200,000 x 8 + 100,000 x 40 = 1.60 + 4.00.
		name: "gpt-5.6-sol priority", host: "openai", logged: "gpt-5.6-sol", tier: Priority,
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{
			{"2026-08-20T12:00:00Z", "8.00"},
			{"2026-09-01T00:00:00Z", "5.60"},
		},
	},
	{
		// Half of Standard: 200,000 x 2 + 100,000 x 10 = 0.40 + 1.00, then
		// 200,000 x 2.50 + 100,000 x 15 = 0.50 + 1.50.
		name: "gpt-5.6-sol batch", host: "openai", logged: "gpt-5.6-sol", tier: Batch,
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{
			{"2026-09-01T00:00:00Z", "1.40"},
			{"2026-12-02T00:00:00Z", "2.00"},
		},
	},
	{
		// Fast mode cache writes at twice Standard's 2.50: 100,000 x 4 +
		// 100,000 x 5 = 0.40 + 0.50.
		name: "gpt-5.6-terra priority cache writes", host: "openai", logged: "gpt-5.6-terra", tier: Priority,
		tokens: callTokens{input: 100_000, cacheWrite: 100_000},
		points: []openAIPoint{{"2026-08-01T00:00:00Z", "0.90"}},
	},
	{
		// 200,000 x 10 + 100,000 x 50 = 2.00 + 5.00.
		name: "gpt-6-astra", host: "openai", logged: "gpt-6-astra",
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{
			{"2026-09-02T23:59:00Z", unpriced},
			{"2026-09-03T00:00:00Z", "7.00"},
			{"2026-12-06T12:00:00Z", "7.00"},
		},
	},
	{
		// Above 272K: 300,000 x 20 + 100,000 x 75 = 6.00 + 7.50.
		name: "gpt-6-astra long context", host: "openai", logged: "gpt-6-astra",
		tokens: callTokens{input: 300_000, output: 100_000},
		points: []openAIPoint{{"2026-10-01T00:00:00Z", "13.50"}},
	},
	{
		// Fast mode: 200,000 x 20 + 100,000 x 100 = 4.00 + 10.00.
		name: "gpt-6-astra snapshot in priority", host: "openai", logged: "openai/gpt-6-astra-2026-09-03", tier: Priority,
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{{"2026-10-01T00:00:00Z", "14.00"}},
	},
	{
		// 100,000 x 2 + 100,000 x 0.20 + 100,000 x 10 = 0.20 + 0.02 + 1.00.
		name: "gpt-6-sol", host: "openai", logged: "gpt-6-sol",
		tokens: callTokens{input: 100_000, cacheRead: 100_000, output: 100_000},
		points: []openAIPoint{
			{"2026-09-21T23:59:00Z", unpriced},
			{"2026-10-01T00:00:00Z", "1.22"},
		},
	},
	{
		// 100,000 x 0.10 + 100,000 x 0.01 + 100,000 x 0.50 = 0.01 + 0.001 + 0.05.
		name: "gpt-6-luna", host: "openai", logged: "openai/gpt-6-luna",
		tokens: callTokens{input: 100_000, cacheRead: 100_000, output: 100_000},
		points: []openAIPoint{{"2026-10-01T00:00:00Z", "0.061"}},
	},
	{
		// 100,000 x 2 + 100,000 x 0.10 + 100,000 x 10 = 0.20 + 0.01 + 1.00.
		name: "gpt-6.1-sol snapshot", host: "openai", logged: "gpt-6.1-sol-2026-09-29",
		tokens: callTokens{input: 100_000, cacheRead: 100_000, output: 100_000},
		points: []openAIPoint{
			{"2026-09-28T23:59:00Z", unpriced},
			{"2026-10-15T00:00:00Z", "1.21"},
		},
	},
	{
		// Flex at half: (100,000 x 1 + 100,000 x 0.05 + 100,000 x 5) / 2 =
		// (0.10 + 0.005 + 0.50) / 2.
		name: "gpt-6.1-terra flex", host: "openai", logged: "gpt-6.1-terra", tier: Flex,
		tokens: callTokens{input: 100_000, cacheRead: 100_000, output: 100_000},
		points: []openAIPoint{{"2026-11-01T00:00:00Z", "0.3025"}},
	},
	{
		// Above 272K: 300,000 x 16 + 100,000 x 60 = 4.80 + 6.00.
		name: "gpt-6.2-astra long context", host: "openai", logged: "gpt-6.2-astra",
		tokens: callTokens{input: 300_000, output: 100_000},
		points: []openAIPoint{
			{"2026-11-16T23:59:00Z", unpriced},
			{"2026-12-06T12:00:00Z", "10.80"},
		},
	},
	{
		// Batch at half: (100,000 x 2 + 100,000 x 0.10 + 100,000 x 10) / 2.
		name: "gpt-6.2-sol batch", host: "openai", logged: "openai/gpt-6.2-sol", tier: Batch,
		tokens: callTokens{input: 100_000, cacheRead: 100_000, output: 100_000},
		points: []openAIPoint{{"2026-12-06T12:00:00Z", "0.605"}},
	},
	{
		// Azure Global: 200,000 x 5 + 100,000 x 30, then from 2026-09-01
		// 200,000 x 4 + 100,000 x 20, the list meters again from 2026-12-01.
		name: "azure gpt-5.6-sol global around its promotion", host: "azure", logged: "azure/gpt-5.6-sol",
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{
			{"2026-08-25T00:00:00Z", "4.00"},
			{"2026-09-01T00:00:00Z", "2.80"},
			{"2026-12-01T00:00:00Z", "4.00"},
		},
	},
	{
		// Data Zone 200,000 x 4.40 + 100,000 x 22 = 0.88 + 2.20.
		name: "azure gpt-5.6-sol data zone in its promotion", host: "azure", logged: "azure/eu/gpt-5.6-sol",
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{{"2026-10-01T00:00:00Z", "3.08"}},
	},
	{
		// Above 272K: 300,000 x 20 + 100,000 x 75 = 6.00 + 7.50.
		name: "azure gpt-6-astra long context", host: "azure", logged: "azure/gpt-6-astra-2026-09-03",
		tokens: callTokens{input: 300_000, output: 100_000},
		points: []openAIPoint{{"2026-10-01T00:00:00Z", "13.50"}},
	},
	{
		// The rise to 3 / 15 was cancelled: 200,000 x 2 + 100,000 x 10.
		name: "foundry claude-sonnet-5 after 2026-09-01", host: "azure_ai", logged: "azure_ai/claude-sonnet-5",
		tokens: callTokens{input: 200_000, output: 100_000},
		points: []openAIPoint{{"2026-09-15T00:00:00Z", "1.40"}},
	},
}

// TestOpenAIFigures prices the calls of openAIFigures on the embedded
// catalog.
func TestOpenAIFigures(t *testing.T) {
	checkFigures(t, embeddedCatalog(t), openAIFigures)
}

// checkFigures prices every point of cases on cat: the model the logged
// name resolves to on its host, its status at the instant, the call's
// service tier and region (which must have rates of their own) and its
// long-context tier.
func checkFigures(t *testing.T, cat *Catalog, cases []figureCase) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			m, host, ok := cat.ResolveOn(tt.host, tt.logged)
			if !ok {
				t.Fatalf("%q is not priced on host %q", tt.logged, host)
			}
			for _, p := range tt.points {
				checkPoint(t, m, tt, p)
			}
		})
	}
}

// checkPoint checks the status or the cost of one case at one instant.
func checkPoint(t *testing.T, m *Model, tt figureCase, p openAIPoint) {
	t.Helper()
	at, err := time.Parse(time.RFC3339, p.at)
	if err != nil {
		t.Fatal(err)
	}
	q := m.At(at)
	want := map[string]Status{unpriced: Unpriced, retired: Retired}[p.want]
	if p.want != unpriced && p.want != retired {
		want = Priced
	}
	if q.Status != want {
		t.Errorf("%s at %s is %s, want %s", m.ID, p.at, q.Status, want)
		return
	}
	if want != Priced {
		return
	}
	prices, miss := q.Prices.Variant(tt.tier, tt.region)
	if miss != 0 {
		t.Errorf("%s at %s has no rates for %s, region %q", m.ID, p.at, tt.tier, tt.region)
		return
	}
	tk := tt.tokens
	r := prices.For(q.Period, tk.input+tk.cacheRead+tk.cacheWrite)
	million := decimal.NewFromInt(1_000_000)
	got := decimal.Zero
	for _, c := range []struct {
		u Usage
		n int64
	}{{Input, tk.input}, {CacheRead, tk.cacheRead}, {CacheWrite, tk.cacheWrite}, {Output, tk.output}} {
		got = got.Add(r.Price(c.u).Mul(decimal.NewFromInt(c.n)).Div(million))
	}
	if w := decimal.RequireFromString(p.want); !got.Equal(w) {
		t.Errorf("%s (%s) at %s, %s: costs %s, by hand %s", tt.logged, m.ID, p.at, tt.tier, got, w)
	}
}

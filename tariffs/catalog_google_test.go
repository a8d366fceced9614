package tariffs

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// geminiCall is a call of input uncached input tokens, cached cache-read
// tokens and output output tokens (thinking included); its prompt is
// input + cached tokens.
type geminiCall struct {
	input, cached, output int64
}

// cost prices c at r, the sum of each quantity times its price per 1M.
func (c geminiCall) cost(r *Rates) decimal.Decimal {
	million := decimal.NewFromInt(1_000_000)
	return r.Price(Input).Mul(decimal.NewFromInt(c.input)).
		Add(r.Price(CacheRead).Mul(decimal.NewFromInt(c.cached))).
		Add(r.Price(Output).Mul(decimal.NewFromInt(c.output))).Div(million)
}

// geminiPrices looks up a logged name on a host in the embedded catalog
// and returns its prices in service tier s at at, failing the test when
// the name is unknown, not priced then, or has no rates in that tier.
func geminiPrices(t *testing.T, cat *Catalog, host, name, at string, s ServiceTier) *ModelPrices {
	t.Helper()
	m, _, ok := cat.ResolveOn(host, name)
	if !ok {
		t.Fatalf("%q is not a name on host %q", name, host)
	}
	ts, err := time.Parse(time.RFC3339, at)
	if err != nil {
		t.Fatal(err)
	}
	q := m.At(ts)
	if q.Status != Priced {
		t.Fatalf("%q (%s) is not priced at %s: status %v", name, m.ID, at, q.Status)
	}
	mp, miss := q.Prices.Variant(s, "")
	if miss != 0 {
		t.Fatalf("%q (%s) at %s has no %s rates", name, m.ID, at, s)
	}
	return mp
}

// TestGeminiLateModels prices calls to the Gemini models of late 2026, on
// the Gemini API and on Vertex AI, from their published rates. The call has
// 300,000 uncached input tokens, 100,000 cache reads and 20,000 output
// tokens: a 400,000-token prompt, above the 200,000 where Gemini 3.1 Pro
// changes rates, which no Gemini 4 model does. Worked by hand:
//
//   - Carbon and Argon at the launch price (2 / 0.10 / 10) through
//     2026-11-30: 0.60 + 0.01 + 0.20 = 0.81; from 2026-12-01 (4 / 0.20 / 20):
//     1.20 + 0.02 + 0.40 = 1.62.
//   - Hydrogen (1.50 / 0.075 / 7.50): 0.45 + 0.0075 + 0.15 = 0.6075; batch
//     at half: 0.30375.
//   - Neon (3 / 0.15 / 15): 0.90 + 0.015 + 0.30 = 1.215.
//   - 3.8 Flash introductory (0.75 / 0.075 / 3.75): 0.225 + 0.0075 + 0.075 =
//     0.3075; from 2027 (1.50 / 0.15 / 7.50): 0.45 + 0.015 + 0.15 = 0.615.
//   - 3.6 Flash before its cut of 2026-08-13, at its launch price 1.50 /
//     0.15 / 7.50: 0.615.
//
// The catalog at ba0b7fc had no Gemini 3.8 Flash or Gemini 4 model and
// priced 3.6 Flash at 0.75 from its launch, so every case fails there.
func TestGeminiLateModels(t *testing.T) {
	cat := embeddedCatalog(t)
	call := geminiCall{input: 300_000, cached: 100_000, output: 20_000}
	tests := []struct {
		name    string
		host    string
		logged  string
		at      string
		service ServiceTier
		input   string // price per 1M, by hand
		cached  string
		output  string
		cost    string
	}{
		{"carbon at its launch price", "gemini", "gemini/gemini-4-carbon", "2026-11-20T12:00:00Z", Standard, "2", "0.10", "10", "0.81"},
		{"carbon at its list price", "gemini", "gemini/gemini-4-carbon", "2026-12-02T12:00:00Z", Standard, "4", "0.20", "20", "1.62"},
		{"argon on the last minute of its launch price", "gemini", "gemini-4-argon", "2026-11-30T23:59:00Z", Standard, "2", "0.10", "10", "0.81"},
		{"argon from 2026-12-01", "gemini", "gemini/gemini-4-argon", "2026-12-01T00:00:00Z", Standard, "4", "0.20", "20", "1.62"},
		{"hydrogen", "gemini", "gemini/gemini-4-hydrogen", "2026-12-06T12:00:00Z", Standard, "1.50", "0.075", "7.50", "0.6075"},
		{"hydrogen batch", "gemini", "gemini/gemini-4-hydrogen", "2026-12-06T12:00:00Z", Batch, "0.75", "0.0375", "3.75", "0.30375"},
		{"neon", "gemini", "gemini-4-neon", "2026-12-06T12:00:00Z", Standard, "3", "0.15", "15", "1.215"},
		{"3.8 flash introductory", "gemini", "gemini/gemini-3.8-flash", "2026-12-06T12:00:00Z", Standard, "0.75", "0.075", "3.75", "0.3075"},
		{"3.8 flash from 2027", "gemini", "gemini/gemini-3.8-flash", "2027-01-01T00:00:00Z", Standard, "1.50", "0.15", "7.50", "0.615"},
		{"3.6 flash at launch, before its cut", "gemini", "gemini-3.6-flash", "2026-08-01T12:00:00Z", Standard, "1.50", "0.15", "7.50", "0.615"},
		{"vertex carbon at its list price", "vertex_ai", "vertex_ai/gemini-4-carbon", "2026-12-02T12:00:00Z", Standard, "4", "0.20", "20", "1.62"},
		{"vertex hydrogen batch", "vertex_ai", "vertex_ai/gemini-4-hydrogen", "2026-12-06T12:00:00Z", Batch, "0.75", "0.0375", "3.75", "0.30375"},
		{"vertex 3.8 flash introductory", "vertex_ai", "vertex_ai/gemini-3.8-flash", "2026-12-06T12:00:00Z", Standard, "0.75", "0.075", "3.75", "0.3075"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mp := geminiPrices(t, cat, tt.host, tt.logged, tt.at, tt.service)
			r := mp.For(0, call.input+call.cached)
			for _, c := range []struct {
				u    Usage
				want string
			}{{Input, tt.input}, {CacheRead, tt.cached}, {Output, tt.output}} {
				if got := r.Price(c.u); !got.Equal(decimal.RequireFromString(c.want)) {
					t.Errorf("%s at %s: %v price %s per 1M, want %s", tt.logged, tt.at, c.u, got, c.want)
				}
			}
			if got := call.cost(r); !got.Equal(decimal.RequireFromString(tt.cost)) {
				t.Errorf("%s at %s: call costs %s, by hand %s", tt.logged, tt.at, got, tt.cost)
			}
		})
	}
}

// TestVertexClaudeLateModels checks Claude on Vertex AI from 2026-09-01:
// Sonnet 5 keeps its 2 / 10 (the rise to 3 / 15 announced for 2026-09-01
// was cancelled), and Opus 5.5 and Fable 5.1 carry Anthropic's list, the
// regional endpoints 1.10 x. The call is 1,000,000 input and 100,000 output
// tokens, worked by hand: Sonnet 5 global 2 + 1 = 3.00 (not 3 + 1.50 =
// 4.50), regional 2.20 + 1.10 = 3.30 (not 4.95); Opus 5.5 global 4 + 2 =
// 6.00, regional 4.40 + 2.20 = 6.60; Fable 5.1 regional 11 + 5.50 = 16.50.
// The catalog at ba0b7fc priced Vertex Sonnet 5 at 3 / 15 from 2026-09-01
// and had no Opus 5.5 or Fable 5.1, so every case fails there.
func TestVertexClaudeLateModels(t *testing.T) {
	cat := embeddedCatalog(t)
	tests := []struct {
		name   string
		logged string
		at     string
		rates  claudeRates
		cost   string
	}{
		{"sonnet 5 on 2026-09-01", "vertex_ai/claude-sonnet-5@default", "2026-09-01T00:00:00Z", claudeRates{"2", "0.20", "2.50", "4", "10"}, "3"},
		{"sonnet 5 in december", "vertex_ai/global/claude-sonnet-5", "2026-12-06T12:00:00Z", claudeRates{"2", "0.20", "2.50", "4", "10"}, "3"},
		{"sonnet 5 regional", "vertex_ai/regional/claude-sonnet-5@default", "2026-10-01T12:00:00Z", claudeRates{"2.20", "0.22", "2.75", "4.40", "11"}, "3.30"},
		{"opus 5.5 global", "vertex_ai/claude-opus-5-5@default", "2026-12-06T12:00:00Z", claudeRates{"4", "0.20", "5", "8", "20"}, "6"},
		{"opus 5.5 regional", "vertex_ai/regional/claude-opus-5-5", "2026-12-06T12:00:00Z", claudeRates{"4.40", "0.22", "5.50", "8.80", "22"}, "6.60"},
		{"fable 5.1 regional", "vertex_ai/regional/claude-fable-5-1@default", "2026-12-06T12:00:00Z", claudeRates{"11", "0.275", "13.75", "22", "55"}, "16.50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := quoteAt(t, cat, "vertex_ai", tt.logged, tt.at, 1_000_000)
			checkRates(t, tt.at, r, tt.rates)
			if got := callCost(r, 1_000_000, 100_000); !got.Equal(decimal.RequireFromString(tt.cost)) {
				t.Errorf("%s at %s: call costs %s, by hand %s", tt.logged, tt.at, got, tt.cost)
			}
		})
	}
}

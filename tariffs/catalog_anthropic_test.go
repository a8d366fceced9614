package tariffs

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// claudeRates are a Claude model's prices per 1M tokens, as strings worked
// by hand from the provider's table: input, cache read, 5-minute cache
// write, 1-hour cache write, output.
type claudeRates struct {
	input, cacheRead, cacheWrite, cacheWrite1h, output string
}

// quoteAt looks up a logged name on a host in the embedded catalog and
// returns the rates in force at at for a prompt of prompt tokens, failing
// the test when the name is unknown or not priced then.
func quoteAt(t *testing.T, cat *Catalog, host, name, at string, prompt int64) *Rates {
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
	return q.Prices.For(q.Period, prompt)
}

// checkRates compares every price of r, the rates at instant at, with want,
// with decimal.Equal.
func checkRates(t *testing.T, at string, r *Rates, want claudeRates) {
	t.Helper()
	for _, c := range []struct {
		u    Usage
		name string
		want string
	}{
		{Input, "input", want.input},
		{CacheRead, "cache read", want.cacheRead},
		{CacheWrite, "5-minute cache write", want.cacheWrite},
		{CacheWrite1h, "1-hour cache write", want.cacheWrite1h},
		{Output, "output", want.output},
	} {
		if got := r.Price(c.u); !got.Equal(decimal.RequireFromString(c.want)) {
			t.Errorf("at %s, %s: got %s per 1M, want %s", at, c.name, got, c.want)
		}
	}
}

// callCost is the cost of a call of input uncached input tokens and output
// output tokens at r.
func callCost(r *Rates, input, output int64) decimal.Decimal {
	million := decimal.NewFromInt(1_000_000)
	return r.Price(Input).Mul(decimal.NewFromInt(input)).
		Add(r.Price(Output).Mul(decimal.NewFromInt(output))).Div(million)
}

// TestSonnet5KeepsItsLaunchPrice checks that Claude Sonnet 5 costs the same
// before and after 2026-09-01, on the Claude API and on Bedrock: the rise to
// 3 / 15 announced at launch was cancelled. The call is 1,000,000 input and
// 100,000 output tokens: 2 + 1 = 3.00 USD, not 3 + 1.50 = 4.50; on Bedrock's
// regional endpoints 2.20 + 1.10 = 3.30, not 3.30 + 1.65 = 4.95.
func TestSonnet5KeepsItsLaunchPrice(t *testing.T) {
	cat := embeddedCatalog(t)
	first := claudeRates{"2", "0.20", "2.50", "4", "10"}
	global := first
	regional := claudeRates{"2.20", "0.22", "2.75", "4.40", "11"}
	tests := []struct {
		name   string
		host   string
		logged string
		rates  claudeRates
		cost   string
	}{
		{"claude api", "anthropic", "claude-sonnet-5", first, "3.00"},
		{"claude api with prefix, no host", "", "anthropic/claude-sonnet-5", first, "3.00"},
		{"bedrock global", "bedrock", "bedrock/global.anthropic.claude-sonnet-5", global, "3.00"},
		{"bedrock us profile", "bedrock", "bedrock/converse/us.anthropic.claude-sonnet-5", regional, "3.30"},
		{"bedrock in-region", "bedrock", "anthropic.claude-sonnet-5", regional, "3.30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, at := range []string{"2026-08-31T23:59:00Z", "2026-09-01T00:00:00Z", "2026-10-15T12:00:00Z", "2026-12-06T12:00:00Z"} {
				r := quoteAt(t, cat, tt.host, tt.logged, at, 1000)
				checkRates(t, at, r, tt.rates)
				if got := callCost(r, 1_000_000, 100_000); !got.Equal(decimal.RequireFromString(tt.cost)) {
					t.Errorf("at %s, 1M input + 100K output costs %s, by hand %s", at, got, tt.cost)
				}
			}
		})
	}
}

// TestAnthropicModelsOf2026 checks the models and price changes of the
// second half of 2026 on the Claude API and on Bedrock, each at an instant
// after its release, at the rates of the provider's table.
func TestAnthropicModelsOf2026(t *testing.T) {
	cat := embeddedCatalog(t)
	fable51 := claudeRates{"10", "0.25", "12.50", "20", "50"}
	fable52 := claudeRates{"8", "0.20", "10", "16", "40"}
	opus55 := claudeRates{"4", "0.20", "5", "8", "20"}
	tests := []struct {
		name   string
		host   string
		logged string
		at     string
		prompt int64
		rates  claudeRates
	}{
		// Fable 5.1 and Mythos 5.1 (2026-09-01): hits at 0.025 x 10.
		{"fable 5.1", "anthropic", "claude-fable-5-1", "2026-09-15T00:00:00Z", 1000, fable51},
		{"mythos 5.1", "", "anthropic/claude-mythos-5-1", "2026-09-15T00:00:00Z", 1000, fable51},
		// Opus 5.5 (2026-09-22): hits at 0.05 x 4, writes 1.25 x and 2 x 4.
		{"opus 5.5", "anthropic", "claude-opus-5-5", "2026-10-15T12:00:00Z", 1000, opus55},
		// Fable 5.2 and Mythos 5.2 (2026-11-09): writes 1.25 x and 2 x 8.
		{"fable 5.2", "anthropic", "claude-fable-5-2", "2026-11-20T00:00:00Z", 1000, fable52},
		{"mythos 5.2", "anthropic", "claude-mythos-5-2", "2026-12-06T12:00:00Z", 1000, fable52},
		{"mythos 5", "anthropic", "claude-mythos-5", "2026-07-01T00:00:00Z", 1000, claudeRates{"10", "1", "12.50", "20", "50"}},
		// Bedrock: global at Anthropic's prices, regional 1.10 x.
		{"bedrock fable 5.1 global", "bedrock", "bedrock/global.anthropic.claude-fable-5-1", "2026-10-01T00:00:00Z", 1000, fable51},
		{"bedrock fable 5.1 us", "bedrock", "us.anthropic.claude-fable-5-1", "2026-10-01T00:00:00Z", 1000, claudeRates{"11", "0.275", "13.75", "22", "55"}},
		{"bedrock opus 5.5 global", "bedrock", "bedrock/converse/global.anthropic.claude-opus-5-5", "2026-10-01T00:00:00Z", 1000, opus55},
		{"bedrock opus 5.5 eu", "bedrock", "eu.anthropic.claude-opus-5-5", "2026-10-01T00:00:00Z", 1000, claudeRates{"4.40", "0.22", "5.50", "8.80", "22"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRates(t, tt.at, quoteAt(t, cat, tt.host, tt.logged, tt.at, tt.prompt), tt.rates)
		})
	}
}

// TestLongContextPremiumEnds checks that Opus 4.6 and Sonnet 4.6 pay their
// standard rates above 200K prompt tokens from 2026-03-13 on.
func TestLongContextPremiumEnds(t *testing.T) {
	cat := embeddedCatalog(t)
	tests := []struct {
		logged string
		before claudeRates
		after  claudeRates
	}{
		{"claude-opus-4-6", claudeRates{"10", "1", "12.50", "20", "37.50"}, claudeRates{"5", "0.50", "6.25", "10", "25"}},
		{"claude-sonnet-4-6", claudeRates{"6", "0.60", "7.50", "12", "22.50"}, claudeRates{"3", "0.30", "3.75", "6", "15"}},
	}
	for _, tt := range tests {
		t.Run(tt.logged, func(t *testing.T) {
			checkRates(t, "2026-03-12T23:59:00Z", quoteAt(t, cat, "anthropic", tt.logged, "2026-03-12T23:59:00Z", 200001), tt.before)
			checkRates(t, "2026-03-13T00:00:00Z", quoteAt(t, cat, "anthropic", tt.logged, "2026-03-13T00:00:00Z", 200001), tt.after)
		})
	}
}

// TestNewClaudeModelsUnpricedBeforeRelease checks that the models released
// after 2026-09-01 are not priced before their release instant.
func TestNewClaudeModelsUnpricedBeforeRelease(t *testing.T) {
	cat := embeddedCatalog(t)
	tests := []struct {
		host, logged, justBefore, release string
	}{
		{"anthropic", "claude-fable-5-1", "2026-08-31T23:59:00Z", "2026-09-01T00:00:00Z"},
		{"anthropic", "claude-opus-5-5", "2026-09-21T23:59:00Z", "2026-09-22T00:00:00Z"},
		{"anthropic", "claude-fable-5-2", "2026-11-08T23:59:00Z", "2026-11-09T00:00:00Z"},
		{"bedrock", "global.anthropic.claude-opus-5-5", "2026-09-21T23:59:00Z", "2026-09-22T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.host+"/"+tt.logged, func(t *testing.T) {
			m, _, ok := cat.ResolveOn(tt.host, tt.logged)
			if !ok {
				t.Fatalf("%q is not a name on host %q", tt.logged, tt.host)
			}
			before, _ := time.Parse(time.RFC3339, tt.justBefore)
			if q := m.At(before); q.Status != Unpriced {
				t.Errorf("at %s: status %v, want unpriced", tt.justBefore, q.Status)
			}
			from, _ := time.Parse(time.RFC3339, tt.release)
			if q := m.At(from); q.Status != Priced {
				t.Errorf("at %s: status %v, want priced", tt.release, q.Status)
			}
		})
	}
}

package tariffs

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestOpenRouterCorrections checks OpenRouter's rates in the embedded
// catalog where they were corrected: Claude Sonnet 5 keeps its 2 / 10
// price on and after 2026-09-01 (Anthropic cancelled the rise to 3 / 15
// announced for that day), and GPT-5.6 Sol carries OpenAI's cut of
// 2026-08-21 to 4 / 0.40 / 20, with 5 for cache writes (1.25 x input) and,
// above 272,000 prompt tokens, 2 x input and 1.5 x output, until its
// promotion ended with 2026-11-30 (5 / 0.50 / 6.25 / 30 again). Each figure is
// taken by hand from the provider's published price per 1M tokens.
func TestOpenRouterCorrections(t *testing.T) {
	cat := embeddedCatalog(t)
	tests := []struct {
		name   string
		logged string // as LiteLLM logs an OpenRouter call
		at     string
		prompt int64 // prompt tokens of the call
		want   [4]string
	}{
		{
			name:   "sonnet 5 on the day the cancelled rise was due",
			logged: "openrouter/anthropic/claude-sonnet-5",
			at:     "2026-09-01T00:00:00Z",
			prompt: 1000,
			want:   [4]string{"2", "0.2", "2.5", "10"},
		},
		{
			name:   "sonnet 5 in December",
			logged: "openrouter/anthropic/claude-sonnet-5",
			at:     "2026-12-06T12:00:00Z",
			prompt: 1000,
			want:   [4]string{"2", "0.2", "2.5", "10"},
		},
		{
			name:   "gpt-5.6 sol the minute before its cut",
			logged: "openrouter/openai/gpt-5.6-sol",
			at:     "2026-08-20T23:59:00Z",
			prompt: 1000,
			want:   [4]string{"5", "0.5", "6.25", "30"},
		},
		{
			name:   "gpt-5.6 sol after its cut",
			logged: "openrouter/openai/gpt-5.6-sol",
			at:     "2026-09-15T08:00:00Z",
			prompt: 1000,
			want:   [4]string{"4", "0.4", "5", "20"},
		},
		{
			// 4 x 2, 0.40 x 2, 5 x 2, 20 x 1.5.
			name:   "gpt-5.6 sol after its cut, prompt above 272K",
			logged: "openrouter/openai/gpt-5.6-sol",
			at:     "2026-09-15T08:00:00Z",
			prompt: 272001,
			want:   [4]string{"8", "0.8", "10", "30"},
		},
		{
			name:   "gpt-5.6 sol on the last day of its promotion",
			logged: "openrouter/openai/gpt-5.6-sol",
			at:     "2026-11-30T23:59:00Z",
			prompt: 1000,
			want:   [4]string{"4", "0.4", "5", "20"},
		},
		{
			name:   "gpt-5.6 sol back at its list price",
			logged: "openrouter/openai/gpt-5.6-sol",
			at:     "2026-12-06T12:00:00Z",
			prompt: 1000,
			want:   [4]string{"5", "0.5", "6.25", "30"},
		},
	}
	usages := [4]Usage{Input, CacheRead, CacheWrite, Output}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, host, ok := cat.ResolveOn("openrouter", tt.logged)
			if !ok {
				t.Fatalf("%q is not priced on host %q", tt.logged, host)
			}
			at, err := time.Parse(time.RFC3339, tt.at)
			if err != nil {
				t.Fatal(err)
			}
			q := m.At(at)
			if q.Status != Priced {
				t.Fatalf("%s (%s) is not priced at %s", tt.logged, m.ID, tt.at)
			}
			r := q.Prices.For(q.Period, tt.prompt)
			for i, u := range usages {
				want := decimal.RequireFromString(tt.want[i])
				if got := r.Price(u); !got.Equal(want) {
					t.Errorf("%s at %s, prompt %d: %v price %s, by hand %s", m.ID, tt.at, tt.prompt, u, got, want)
				}
			}
		})
	}
}

package savings_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/tariffs"
)

// catalog returns the embedded catalog.
func catalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffs.Load("")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return cat
}

// logged is a call as a gateway logs it, completed at end (an RFC 3339
// instant).
type logged struct {
	host, model string
	end         string
	tokens      ledger.Tokens
	tier        ledger.ServiceTier
	key         string
}

func (l logged) call(t *testing.T, id string) ledger.Call {
	t.Helper()
	end, err := time.Parse(time.RFC3339, l.end)
	if err != nil {
		t.Fatal(err)
	}
	return ledger.Call{RequestID: id, Identity: id, Gateway: ledger.LiteLLM, Start: end.Add(-10 * time.Second), End: end,
		Host: l.host, Model: l.model, Key: l.key, Tokens: l.tokens, ServiceTier: l.tier}
}

// observe prices calls with an engine and shows each to a fresh
// observer, as a run does.
func observe(t *testing.T, cat *tariffs.Catalog, opts savings.Options, calls ...ledger.Call) *savings.Result {
	t.Helper()
	opts.Catalog = cat
	s, err := savings.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e := pricing.New(cat, pricing.Options{})
	for i := range calls {
		pc := e.AddPriced(&calls[i])
		if err := s.Observe(&calls[i], &pc); err != nil {
			t.Fatal(err)
		}
	}
	return s.Result()
}

// none marks a lever that must not apply.
const none = ""

// TestLeversByHand re-prices single calls under each lever at the embedded
// catalog's rates (USD per 1M tokens), worked by hand from the YAML lines
// cited. A lever that does not apply is "".
func TestLeversByHand(t *testing.T) {
	cat := catalog(t)
	tests := []struct {
		name   string
		call   logged
		served string
		under  [savings.NumLevers]string // by lever; none where it does not apply
		delay  savings.Delay             // of the offpeak lever, when it applies
		host   string                    // of the host lever, when it applies
		best   savings.Lever             // when any applies
	}{
		{
			// deepseek.yaml, version 2026-11-01-search-fetch (line 732):
			// peak Mon–Fri 09:00-12:00 and 14:00-18:00 Asia/Shanghai;
			// deepseek-flash peak 0.30 / 0.006 / 1.20, offpeak 0.15 /
			// 0.003 / 0.60 (lines 744-745). Friday 2026-11-06 17:30
			// Beijing = 09:30 UTC, peak; off-peak from 18:00, 30 min on.
			// Peak: 1,000,000×0.30 + 200,000×0.006 + 100,000×1.20 =
			// 300,000 + 1,200 + 120,000 = 421,200 → 0.4212.
			// Off-peak: 150,000 + 600 + 60,000 = 210,600 → 0.2106.
			name:   "deepseek peak Friday 17:30 Beijing, off-peak at 18:00",
			call:   logged{"deepseek", "deepseek-flash", "2026-11-06T09:30:00Z", ledger.Tokens{Input: 1_000_000, CacheRead: 200_000, Output: 100_000}, ledger.TierStandard, "k"},
			served: "0.4212", under: [savings.NumLevers]string{savings.Offpeak: "0.2106"},
			delay: savings.Under1h, best: savings.Offpeak,
		},
		{
			// deepseek.yaml, version 2026-09-10-deepseek-flash (line 681):
			// deepseek-v4-pro peak 1.32 / 0.044 / 3.96, offpeak 0.66 /
			// 0.022 / 1.98. Wednesday 2026-09-30 14:00 Beijing (06:00
			// UTC), the eve of the National Day holidays (line 338), is
			// a peak working day: off-peak at 18:00, 4 h on.
			// Peak 100,000×1.32 + 10,000×3.96 = 132,000 + 39,600 → 0.1716;
			// off-peak 66,000 + 19,800 → 0.0858. On the other hosts listing
			// the name it costs more: azure_ai 1.74 / 3.48 → 0.2088,
			// dashscope 9 / 27 → 1.17.
			name:   "deepseek peak on the eve of a holiday",
			call:   logged{"deepseek", "deepseek-v4-pro", "2026-09-30T06:00:00Z", ledger.Tokens{Input: 100_000, Output: 10_000}, ledger.TierStandard, "k"},
			served: "0.1716", under: [savings.NumLevers]string{savings.Offpeak: "0.0858"},
			delay: savings.From3To12h, best: savings.Offpeak,
		},
		{
			// Thursday 2026-10-01 10:00 Beijing: a weekday peak hour, but
			// a holiday (line 338, billed as Sunday: holidays_as sun, line
			// 270): off-peak already, 0.0858 as above, no lever.
			name:   "deepseek on a holiday: off-peak already",
			call:   logged{"deepseek", "deepseek-v4-pro", "2026-10-01T02:00:00Z", ledger.Tokens{Input: 100_000, Output: 10_000}, ledger.TierStandard, "k"},
			served: "0.0858",
		},
		{
			// Sunday 2026-09-20 is a make-up workday (line 363) billed as
			// Saturday (workdays_as sat, line 287): off-peak, no lever.
			name:   "deepseek on a make-up workday: off-peak",
			call:   logged{"deepseek", "deepseek-v4-pro", "2026-09-20T02:00:00Z", ledger.Tokens{Input: 100_000, Output: 10_000}, ledger.TierStandard, "k"},
			served: "0.0858",
		},
		{
			// openai.yaml, version 2026-09-29-gpt-6.1-sol (line 1619):
			// gpt-5.4 2.5 / 0.25 / 15 (line 1638); batch and flex 0.5 ×
			// (lines 1766, 1784). 100,000×2.5 + 50,000×0.25 + 10,000×15 =
			// 250,000 + 12,500 + 150,000 → 0.4125; flex halves it, and
			// batch too: 0.20625 (the tie goes to batch). Azure's Global
			// gpt-5.4 (azure-openai.yaml line 797) costs the same: no host.
			name:   "gpt-5.4 that flex halves",
			call:   logged{"openai", "gpt-5.4", "2026-10-15T12:00:00Z", ledger.Tokens{Input: 100_000, CacheRead: 50_000, Output: 10_000}, ledger.TierStandard, "k"},
			served: "0.4125", under: [savings.NumLevers]string{savings.Batch: "0.20625", savings.Flex: "0.20625"},
			best: savings.Batch,
		},
		{
			// anthropic.yaml, version of 2025-09-29 (line 365): Sonnet 4.6
			// above 200,000 prompt tokens 6 / 22.5 (lines 403-406), batch
			// 0.5 × (line 425). Azure AI Foundry (azure-ai-foundry.yaml
			// line 182) and Vertex's global endpoint (vertex-ai.yaml line
			// 464) list it at 3 / 15 with no long-context tier.
			// Anthropic: 300,000×6 + 2,000×22.5 = 1,800,000 + 45,000 →
			// 1.845; batch 0.9225; azure_ai (first of the two equal hosts
			// by name): 900,000 + 30,000 → 0.93. Batch is the best lever.
			name:   "claude long prompt cheaper on another host",
			call:   logged{"anthropic", "claude-sonnet-4-6", "2026-03-04T12:00:00Z", ledger.Tokens{Input: 300_000, Output: 2_000}, ledger.TierStandard, "k"},
			served: "1.845", under: [savings.NumLevers]string{savings.Batch: "0.9225", savings.Host: "0.93"},
			host: "azure_ai", best: savings.Batch,
		},
		{
			// azure-openai.yaml, version 2026-09-03 (line 761):
			// gpt-5.6-terra Global 2.5 / 15 (line 825), flex 0.5 × on
			// Global deployments (lines 900-903); OpenAI's own gpt-5.6-terra
			// 2 / 12 (openai.yaml line 1646). 100,000×2.5 + 10,000×15 →
			// 0.40; flex 0.20; on openai 200,000 + 120,000 → 0.32.
			name:   "azure global deployment moves",
			call:   logged{"azure", "azure/gpt-5.6-terra", "2026-10-15T12:00:00Z", ledger.Tokens{Input: 100_000, Output: 10_000}, ledger.TierStandard, "k"},
			served: "0.4", under: [savings.NumLevers]string{savings.Flex: "0.2", savings.Host: "0.32"},
			host: "openai", best: savings.Flex,
		},
		{
			// The same call on an EU Data Zone deployment: 2.75 / 16.5
			// (line 827): 275,000 + 165,000 → 0.44. OpenAI's 0.32 is
			// cheaper, but the call keeps its zone; no flex or batch
			// rates for Data Zone terra (lines 887-903).
			name:   "data-zone call does not move",
			call:   logged{"azure", "azure/eu/gpt-5.6-terra", "2026-10-15T12:00:00Z", ledger.Tokens{Input: 100_000, Output: 10_000}, ledger.TierStandard, "k"},
			served: "0.44",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := observe(t, cat, savings.Options{}, tt.call.call(t, "r1"))
			l := r.Total
			if l.Priced != 1 || !l.Served.Equal(dec(tt.served)) {
				t.Fatalf("priced %d served %s, want 1 and %s", l.Priced, l.Served, tt.served)
			}
			any := false
			for lv := range savings.NumLevers {
				checkLever(t, savings.Lever(lv), &l.Levers[lv], tt.served, tt.under[lv])
				any = any || tt.under[lv] != none
			}
			checkDetail(t, l, tt.under, tt.delay, tt.host)
			checkBest(t, l, any, tt.best, tt.served, tt.under[tt.best])
		})
	}
}

// checkLever checks one lever's sums: one call at under, or none.
func checkLever(t *testing.T, lv savings.Lever, s *savings.Sums, served, under string) {
	t.Helper()
	if under == none {
		if s.Calls != 0 || !s.Served.IsZero() || !s.Under.IsZero() {
			t.Errorf("%s: %d call(s), %s → %s; want none", lv, s.Calls, s.Served, s.Under)
		}
		return
	}
	if s.Calls != 1 || !s.Served.Equal(dec(served)) || !s.Under.Equal(dec(under)) {
		t.Errorf("%s: %d call(s), %s → %s; want 1, %s → %s", lv, s.Calls, s.Served, s.Under, served, under)
	}
	if want := dec(served).Sub(dec(under)); !s.Saving().Equal(want) {
		t.Errorf("%s: saving %s, want %s", lv, s.Saving(), want)
	}
}

// checkDetail checks the offpeak delay bucket and the host chosen.
func checkDetail(t *testing.T, l *savings.Line, under [savings.NumLevers]string, delay savings.Delay, host string) {
	t.Helper()
	var want [savings.NumDelays]int64
	if under[savings.Offpeak] != none {
		want[delay] = 1
	}
	if got := l.Levers[savings.Offpeak].Delays; got != want {
		t.Errorf("offpeak delays %v, want %v", got, want)
	}
	switch {
	case host == "" && len(l.Hosts) != 0:
		t.Errorf("hosts %v, want none", l.Hosts)
	case host != "" && (len(l.Hosts) != 1 || l.Hosts[host] == nil || l.Hosts[host].Calls != 1):
		t.Errorf("hosts %v, want one call to %s", l.Hosts, host)
	}
}

// checkBest checks the combined figures: the call once under its best
// lever, and served − saving = levered.
func checkBest(t *testing.T, l *savings.Line, any bool, best savings.Lever, served, under string) {
	t.Helper()
	if !any {
		under = served
	}
	if !l.Levered.Equal(dec(under)) {
		t.Errorf("levered %s, want %s", l.Levered, under)
	}
	if !l.Served.Sub(l.Saving()).Equal(l.Levered) {
		t.Errorf("served %s − saving %s ≠ levered %s", l.Served, l.Saving(), l.Levered)
	}
	var by [savings.NumLevers]int64
	if any {
		by[best] = 1
	}
	if l.BestBy != by {
		t.Errorf("best by lever %v, want %v", l.BestBy, by)
	}
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

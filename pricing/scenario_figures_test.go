package pricing_test

import (
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// The scenarios' figures, worked out by hand from their tariff.yaml and
// calls.csv, asserted here in code: TestScenarios compares the engine with
// want.json, which -update rewrites, so a wrong figure could be written
// there and pass. These cannot drift with it. Prices are per 1M tokens, so
// a cost is tokens × price / 1,000,000.

// callFigure is one call priced by hand.
type callFigure struct {
	id      string
	outcome pricing.Outcome
	period  string // "" unless priced
	cost    string // official cost
}

// groupFigure is one reconcile group: its keys and official cost.
type groupFigure struct {
	model, version, period string
	official               string
}

// scenarioFigures is what a scenario must give.
type scenarioFigures struct {
	calls                    []callFigure
	official, recorded, gap  string
	groups                   []groupFigure
	explained                map[string]string           // "kind model" → amount
	blend                    map[tariffs.Usage][3]string // usage → tokens, peak share, blended price
	blendOfficial, atBlended string
}

var handFigures = map[string]scenarioFigures{
	// DeepSeek's 2026 schedule: off-peak input 0.15, cache read 0.003,
	// output 0.60; peak (weekdays 09:00-12:00 and 14:00-18:00 Beijing time)
	// double. Billed at the call's end.
	"deepseek-edges": {
		calls: []callFigure{
			// Ends 01:00Z = 09:00 Beijing, Wednesday: the window's start is peak.
			// 600,000 × 0.30 + 400,000 × 0.006 + 1,000,000 × 1.20 = 0.18 + 0.0024 + 1.20
			{"peak-start", pricing.Priced, "peak", "1.3824"},
			// Ends 00:59:59.999Z, a millisecond before: off-peak, exactly half.
			// 600,000 × 0.15 + 400,000 × 0.003 + 1,000,000 × 0.60 = 0.09 + 0.0012 + 0.60
			{"before-peak", pricing.Priced, "offpeak", "0.6912"},
			// Ends 04:00Z = 12:00 Beijing: the window's end is off-peak. 1,000,000 × 0.15
			{"peak-end", pricing.Priced, "offpeak", "0.15"},
			// Ends Friday 16:00Z = Saturday 00:00 Beijing. 1,000,000 × 0.15
			{"friday-16utc", pricing.Priced, "offpeak", "0.15"},
			// Ends 10:00 Beijing on 2026-10-01, National Day: a Sunday's periods. 1,000,000 × 0.15
			{"holiday", pricing.Priced, "offpeak", "0.15"},
			// Ends 10:00 Beijing on Saturday 2026-10-10, a make-up workday: a Monday's periods. 1,000,000 × 0.30
			{"makeup-workday", pricing.Priced, "peak", "0.3"},
			// Ends 10:00 Beijing on an ordinary Saturday. 1,000,000 × 0.15
			{"saturday", pricing.Priced, "offpeak", "0.15"},
			// Starts 11:59 Beijing (peak), ends 12:01 (off-peak): billed at the end. 1,000,000 output × 0.60
			{"stream-across-04", pricing.Priced, "offpeak", "0.6"},
		},
		// peak 1.3824 + 0.30 = 1.6824; off-peak 0.6912 + 4 × 0.15 + 0.60 = 1.8912;
		// together 3.5736, all of it recorded as zero.
		official: "3.5736", recorded: "0", gap: "3.5736",
		groups: []groupFigure{
			{"deepseek-flash", "", "offpeak", "1.8912"},
			{"deepseek-flash", "", "peak", "1.6824"},
		},
		explained: map[string]string{"zero_spend deepseek-flash": "3.5736"},
		blend: map[tariffs.Usage][3]string{
			// 600,000 × 2 + 1,000,000 × 5 = 6,200,000 input tokens, of which
			// 1,600,000 at peak (peak-start, makeup-workday): 1.6 / 6.2 = 0.258065.
			// Cost 0.18 + 0.09 + 4 × 0.15 + 0.30 = 1.17; 1.17 / 6.2 = 0.188709677 per 1M.
			tariffs.Input: {"6200000", "0.258065", "0.188709677"},
			// 800,000 cache reads, half at peak; 0.0024 + 0.0012 = 0.0036; / 0.8 = 0.0045.
			tariffs.CacheRead: {"800000", "0.5", "0.0045"},
			// 3,000,000 output tokens, 1,000,000 at peak; 1.20 + 0.60 + 0.60 = 2.4; / 3 = 0.8.
			tariffs.Output: {"3000000", "0.333333", "0.8"},
		},
		// At the blended prices: 6.2 × 0.188709677 = 1.1699999974, + 0.0036 + 2.4.
		blendOfficial: "3.5736", atBlended: "3.5735999974",
	},
	// The 2025 nightly discount, in UTC: standard input 0.27, off-peak
	// 0.135 from 16:30 to 00:30; the version of 2025-09-05 16:00Z ends it
	// at 0.56.
	"nightly-2025": {
		calls: []callFigure{
			// Ends 16:29:59Z, before the window. 1,000,000 × 0.27
			{"before-window", pricing.Priced, "standard", "0.27"},
			// Ends 16:30:00Z: the window's start is off-peak. 1,000,000 × 0.135
			{"window-start", pricing.Priced, "offpeak", "0.135"},
			// Ends 00:29:59Z, after midnight, still in the window. 1,000,000 × 0.135
			{"after-midnight", pricing.Priced, "offpeak", "0.135"},
			// Ends 00:30:00Z: the window's end is standard. 1,000,000 × 0.27
			{"window-end", pricing.Priced, "standard", "0.27"},
			// Ends a second into the version that cancelled the discount. 1,000,000 × 0.56
			{"after-cancel", pricing.Priced, "standard", "0.56"},
		},
		// 2 × 0.27 + 2 × 0.135 + 0.56 = 0.54 + 0.27 + 0.56 = 1.37
		official: "1.37", recorded: "0", gap: "1.37",
		groups: []groupFigure{
			{"deepseek-chat", "2025-02-26T16:30:00Z", "offpeak", "0.27"},
			{"deepseek-chat", "2025-02-26T16:30:00Z", "standard", "0.54"},
			{"deepseek-chat", "2025-09-05T16:00:00Z", "standard", "0.56"},
		},
		explained: map[string]string{"zero_spend deepseek-chat": "1.37"},
	},
	// The gateway kept deepseek-v4-flash's peak rates of the older version
	// (input 0.44, cache read 0.014, output 1.32) for deepseek-flash, whose
	// rates are off-peak 0.15 / 0.003 / 0.60, peak 0.30 / 0.006 / 1.20.
	"stale-flat-price": {
		calls: []callFigure{
			// Monday 10:00 Beijing, peak: 1,000 × 0.30 + 500 × 0.006 + 200 × 1.20 = 300 + 3 + 240 per 1M.
			// Recorded 1,000 × 0.44 + 500 × 0.014 + 200 × 1.32 = 0.000711.
			{"a", pricing.Priced, "peak", "0.000543"},
			// Monday 20:00 Beijing, off-peak: 2,000 × 0.15 + 300 × 0.60 = 300 + 180 per 1M.
			// Recorded 2,000 × 0.44 + 300 × 1.32 = 0.001276.
			{"b", pricing.Priced, "offpeak", "0.00048"},
			// Saturday, off-peak: 100 × 0.15 + 100 × 0.003 + 74 × 0.60 = 15 + 0.3 + 44.4 per 1M.
			// Recorded 100 × 0.44 + 100 × 0.014 + 74 × 1.32 = 0.00014308.
			{"c", pricing.Priced, "offpeak", "0.0000597"},
			// Failed, with 0.01 recorded.
			{"d", pricing.Failed, "", "0"},
			// Monday 11:00 Beijing, peak: 1,000 × 0.30 + 1,000 × 1.20 per 1M; recorded 0.
			{"e", pricing.Priced, "peak", "0.0015"},
			// a again.
			{"a", pricing.Duplicate, "", "0"},
		},
		// Official 0.000543 + 0.00048 + 0.0000597 + 0.0015 = 0.0025827.
		// Recorded 0.000711 + 0.001276 + 0.00014308 + 0.01 + 0 = 0.01213008: the
		// second a is the same row again and counts nowhere.
		official: "0.0025827", recorded: "0.01213008", gap: "-0.00954738",
		groups: []groupFigure{{"deepseek-flash", "", "", "0.0025827"}},
		explained: map[string]string{
			// a, b and c: official 0.0010827 − recorded 0.00213008.
			"flat_price deepseek-flash": "-0.00104738",
			// e: official 0.0015, recorded 0.
			"zero_spend deepseek-flash": "0.0015",
			// d: 0.01 recorded for a failed call.
			"failed_with_spend deepseek-flash": "-0.01",
			// Together −0.00104738 + 0.0015 − 0.01 = −0.00954738, the whole gap.
		},
	},
	// The embedded Anthropic catalog. A prompt is input + cache reads +
	// cache writes; above a tier's threshold every token of the call takes
	// the tier's rates.
	"anthropic-catalog": {
		calls: []callFigure{
			// 200,000 prompt tokens, not above 200,000: 200,000 × 3 + 10,000 × 15 = 0.6 + 0.15
			{"sonnet45-short", pricing.Priced, "standard", "0.75"},
			// 150,000 + 50,001 = 200,001, above: 150,000 × 6 + 50,001 × 0.60 + 10,000 × 22.50
			// = 0.9 + 0.0300006 + 0.225
			{"sonnet45-long", pricing.Priced, "standard", "1.1550006"},
			// Billed at 2026-11-30T17:00Z, when Sonnet 4.5 is retired.
			{"sonnet45-retired", pricing.Retired, "", "0"},
			// 1,000,000 cache reads × 0.20, the day before the cut.
			{"sonnet55-before-cut", pricing.Priced, "standard", "0.2"},
			// 1,000,000 cache reads × 0.10, from 2026-10-07.
			{"sonnet55-after-cut", pricing.Priced, "standard", "0.1"},
			// 100,000 × 0.10 + 1,000,000 × 0.50 = 0.01 + 0.5
			{"haiku55-small", pricing.Priced, "standard", "0.51"},
			// 100,001, above 100,000: 100,001 × 0.50 + 1,000,000 × 2.50 = 0.0500005 + 2.5
			{"haiku55-large", pricing.Priced, "standard", "2.5500005"},
			// 1,000,000 five-minute cache writes × 6.25.
			{"opus46-write", pricing.Priced, "standard", "6.25"},
		},
		// 0.75 + 1.1550006 + 0.2 + 0.1 + 0.51 + 2.5500005 + 6.25 = 11.5150011
		official: "11.5150011", recorded: "0", gap: "11.5150011",
		groups: []groupFigure{
			{"claude-haiku-5-5", "2026-10-07-sonnet-5-5-cache-cut", "", "3.0600005"}, // 0.51 + 2.5500005
			{"claude-opus-4-6", "2026-10-07-sonnet-5-5-cache-cut", "", "6.25"},
			{"claude-sonnet-4-5", "2026-10-07-sonnet-5-5-cache-cut", "", "1.9050006"}, // 0.75 + 1.1550006
			{"claude-sonnet-4-5", "2026-11-30-sonnet-4-5-retired", "", "0"},
			{"claude-sonnet-5-5", "2026-09-22-opus-5-5", "", "0.2"},
			{"claude-sonnet-5-5", "2026-10-07-sonnet-5-5-cache-cut", "", "0.1"},
		},
		explained: map[string]string{
			"zero_spend claude-haiku-5-5":     "3.0600005",
			"zero_spend claude-opus-4-6":      "6.25",
			"zero_spend claude-sonnet-4-5":    "1.9050006",
			"retired_model claude-sonnet-4-5": "0",   // nothing recorded on the retired call
			"zero_spend claude-sonnet-5-5":    "0.3", // 0.2 + 0.1
		},
	},
	// The embedded DeepSeek catalog at the points its sources corrected;
	// each call is 1M tokens of one or two usage types.
	"deepseek-catalog": {
		calls: []callFigure{
			// Saturday 2026-10-10 10:00 Beijing, a make-up workday the catalog
			// prices as a weekend day: off-peak input 0.15.
			{"makeup-saturday", pricing.Priced, "offpeak", "0.15"},
			// Sunday 2026-09-20 10:00 Beijing, a make-up workday: off-peak, V4-Flash
			// at the Flash rate since 2026-09-10: input 0.15.
			{"makeup-sunday", pricing.Priced, "offpeak", "0.15"},
			// Thursday 2026-09-10 10:00 Beijing, before the 12:00 repricing: the
			// old V4-Flash peak rates, input 0.44 + output 1.32.
			{"flash-before-noon", pricing.Priced, "peak", "1.76"},
			// 12:30 Beijing, after it: off-peak (12:00-14:00 is a break), 0.15 + 0.60.
			{"flash-after-noon", pricing.Priced, "offpeak", "0.75"},
			// 2024-09-15, context caching since 2024-08-02: cache hits at 0.014.
			{"cache-hit-2024-09", pricing.Priced, "standard", "0.014"},
			// 2026-04-25 23:59 Beijing: V4-Pro's launch list price, input 1.74.
			{"pro-before-promotion", pricing.Priced, "standard", "1.74"},
			// 2026-04-26 00:00 Beijing: a quarter of the list price, 1.74 / 4 = 0.435.
			{"pro-promotion", pricing.Priced, "standard", "0.435"},
		},
		// 0.15 + 0.15 + 1.76 + 0.75 + 0.014 + 1.74 + 0.435 = 4.999
		official: "4.999", recorded: "0", gap: "4.999",
		groups: []groupFigure{
			{"deepseek-chat", "2024-08-02-context-caching", "standard", "0.014"},
			{"deepseek-flash", "2026-09-10-deepseek-flash", "offpeak", "0.15"},
			{"deepseek-v4-flash", "2026-09-10-deepseek-flash", "offpeak", "0.9"}, // 0.15 + 0.75
			{"deepseek-v4-flash", "2026-08-23-weekends-offpeak", "peak", "1.76"},
			{"deepseek-v4-pro", "2026-04-24-v4-launch", "standard", "1.74"},
			{"deepseek-v4-pro", "2026-04-26-v4-pro-promotion", "standard", "0.435"},
		},
		explained: map[string]string{
			"zero_spend deepseek-chat":     "0.014",
			"zero_spend deepseek-flash":    "0.15",
			"zero_spend deepseek-v4-flash": "2.66",  // 0.15 + 1.76 + 0.75
			"zero_spend deepseek-v4-pro":   "2.175", // 1.74 + 0.435
		},
	},
	// The embedded OpenAI and Google catalogs: long-prompt tiers and
	// announced shutdowns.
	"openai-google-catalog": {
		calls: []callFigure{
			// 272,000, not above 272,000: 272,000 × 2.50 + 10,000 × 15 = 0.68 + 0.15
			{"gpt54-short", pricing.Priced, "standard", "0.83"},
			// 272,001, above: 272,001 × 5.00 + 10,000 × 22.50 = 1.360005 + 0.225
			{"gpt54-long", pricing.Priced, "standard", "1.585005"},
			// The minute before GPT-4o's shutdown: 1,000,000 × 2.50.
			{"gpt4o-last", pricing.Priced, "standard", "2.5"},
			// Billed at 2027-01-14T00:00Z, the shutdown.
			{"gpt4o-retired", pricing.Retired, "", "0"},
			// 200,001, above 200,000: 200,001 × 4 + 100,000 × 18 = 0.800004 + 1.8
			{"gemini31-long", pricing.Priced, "standard", "2.600004"},
			// Billed at 2026-12-01T00:00Z, the shutdown.
			{"gemini25pro-retired", pricing.Retired, "", "0"},
			// 2.5 Flash-Lite stays priced: 1,000,000 × 0.10.
			{"gemini25lite-after", pricing.Priced, "standard", "0.1"},
		},
		// 0.83 + 1.585005 + 2.5 + 2.600004 + 0.1 = 7.615009
		official: "7.615009", recorded: "0", gap: "7.615009",
		groups: []groupFigure{
			{"gemini-2.5-flash-lite", "2026-12-01-gemini-4-list-2.5-shutdown", "", "0.1"},
			{"gemini-2.5-pro", "2026-12-01-gemini-4-list-2.5-shutdown", "", "0"},
			{"gemini-3.1-pro", "2026-09-30-gemini-4-argon", "", "2.600004"},
			{"gpt-4o", "2026-12-11-gpt-5-o3-shutdown", "", "2.5"},
			{"gpt-4o-mini", "2027-01-14-gpt-4o-shutdown", "", "0"},
			{"gpt-5.4", "2026-10-26-gpt-6.1-terra", "", "2.415005"}, // 0.83 + 1.585005
		},
		explained: map[string]string{
			"zero_spend gemini-2.5-flash-lite": "0.1",
			"retired_model gemini-2.5-pro":     "0",
			"zero_spend gemini-3.1-pro":        "2.600004",
			"zero_spend gpt-4o":                "2.5",
			"retired_model gpt-4o-mini":        "0",
			"zero_spend gpt-5.4":               "2.415005",
		},
	},
}

func TestScenarioHandFigures(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/scenarios/*")
	if len(dirs) != len(handFigures) {
		t.Errorf("%d scenarios, %d worked by hand: work out the figures of every scenario here", len(dirs), len(handFigures))
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			want, ok := handFigures[name]
			if !ok {
				t.Fatalf("no hand-worked figures for scenario %s", name)
			}
			cat, ps := tariffs.Load(dir)
			if len(ps) > 0 {
				t.Fatal(ps)
			}
			sc := readScenario(t, dir)
			rec := pricing.New(cat, pricing.Options{Dims: sc.dims})
			blend := pricing.New(cat, pricing.Options{Since: sc.from, Until: sc.until})
			calls := readCalls(t, filepath.Join(dir, "calls.csv"))
			if len(calls) != len(want.calls) {
				t.Fatalf("%d calls, %d worked by hand", len(calls), len(want.calls))
			}
			for i := range calls {
				c, w := &calls[i], want.calls[i]
				pc := rec.AddPriced(c)
				blend.AddPriced(c)
				_, cost := pc.Cost(c)
				if c.RequestID != w.id || pc.Outcome != w.outcome || pc.Quote.PeriodName() != w.period || !cost.Equal(figure(t, w.cost)) {
					t.Errorf("call %d: %s %s %q costs %s; by hand %s %s %q costs %s",
						i, c.RequestID, pc.Outcome, pc.Quote.PeriodName(), cost, w.id, w.outcome, w.period, w.cost)
				}
			}
			checkReconciliation(t, rec.Reconcile(), want)
			if want.blend != nil {
				checkBlend(t, blend.BlendWindow(sc.from, sc.until, pricing.ModePerModel), want)
			}
		})
	}
}

func checkReconciliation(t *testing.T, r *pricing.Reconciliation, want scenarioFigures) {
	t.Helper()
	for _, f := range []struct {
		name      string
		got, want decimal.Decimal
	}{
		{"official", r.Totals.Official, figure(t, want.official)},
		{"recorded", r.Totals.Recorded, figure(t, want.recorded)},
		{"gap", r.Totals.Gap, figure(t, want.gap)},
	} {
		if !f.got.Equal(f.want) {
			t.Errorf("total %s = %s, by hand %s", f.name, f.got, f.want)
		}
	}
	gs := groupsOf(t, r)
	if len(gs) != len(want.groups) {
		t.Fatalf("%d groups, %d by hand", len(gs), len(want.groups))
	}
	for i, g := range gs {
		w := want.groups[i]
		if g.Key.Model != w.model || g.Key.Version != w.version || g.Key.Period != w.period || !g.Official.Equal(figure(t, w.official)) {
			t.Errorf("group %d: %s %q %q official %s; by hand %s %q %q %s", i, g.Key.Model, g.Key.Version, g.Key.Period, g.Official,
				w.model, w.version, w.period, w.official)
		}
	}
	got := map[string]decimal.Decimal{}
	for _, e := range r.Explanations {
		k := e.Kind.String() + " " + e.Model
		got[k] = got[k].Add(e.Amount)
	}
	if len(got) != len(want.explained) {
		t.Errorf("explanations %v, by hand %v", got, want.explained)
	}
	for k, amount := range want.explained {
		if a, ok := got[k]; !ok || !a.Equal(figure(t, amount)) {
			t.Errorf("explanation %s = %s, by hand %s", k, a, amount)
		}
	}
}

func checkBlend(t *testing.T, b *pricing.Blend, want scenarioFigures) {
	t.Helper()
	if len(b.Models) != 1 {
		t.Fatalf("%d blended models, the scenario has one", len(b.Models))
	}
	m := b.Models[0]
	if !m.Official.Equal(figure(t, want.blendOfficial)) || !m.AtBlended.Equal(figure(t, want.atBlended)) {
		t.Errorf("official %s, at blended %s; by hand %s, %s", m.Official, m.AtBlended, want.blendOfficial, want.atBlended)
	}
	if len(m.Prices) != len(want.blend) {
		t.Errorf("%d blended prices, %d by hand", len(m.Prices), len(want.blend))
	}
	for _, p := range m.Prices {
		w, ok := want.blend[p.Usage]
		if !ok {
			t.Errorf("blended %s, not worked by hand", p.Usage)
			continue
		}
		// Peak shares are compared at the six places reports show them.
		if tokens := decimal.NewFromInt(p.Tokens); !tokens.Equal(figure(t, w[0])) || !p.PeakShare.Round(6).Equal(figure(t, w[1])) || !p.Blended.Equal(figure(t, w[2])) {
			t.Errorf("%s: %d tokens, peak share %s, blended %s; by hand %s, %s, %s", p.Usage, p.Tokens, p.PeakShare, p.Blended, w[0], w[1], w[2])
		}
	}
}

func figure(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("%q is not a decimal: %v", s, err)
	}
	return d
}

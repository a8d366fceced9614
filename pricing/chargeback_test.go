package pricing

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestChargebackTwoKeys works a small case by hand: key "peaky" calls
// flash three times at peak, key "nightly" once off-peak, each call 100k
// input and 10k output tokens (below the 128k tier). flash costs 0.30
// input / 1.20 output per 1M at peak and half off-peak; reasoning is
// priced as output.
func TestChargebackTwoKeys(t *testing.T) {
	from, until := at("2026-09-01T00:00:00Z"), at("2026-10-01T00:00:00Z")
	e := New(testCatalog(t), Options{Since: from, Until: until, Dims: []Dim{DimKey}})
	add := func(id, key, alias, end string, reasoning int64) {
		c := call(id, "flash", end, 100_000, 0, 10_000)
		c.Key, c.KeyAlias, c.Recorded, c.Tokens.Reasoning = key, alias, ledger.AmountOf(dec("0.03")), reasoning
		e.AddPriced(&c)
	}
	// 2026-09-01..03 02:00 UTC are 10:00 on weekdays in Shanghai: peak.
	add("p1", "hash-p", "peaky", "2026-09-01T02:00:00Z", 4_000)
	add("p2", "hash-p", "peaky", "2026-09-02T02:00:00Z", 4_000)
	add("p3", "hash-p", "peaky", "2026-09-03T02:00:00Z", 4_000)
	// 2026-09-05 is a Saturday: off-peak.
	add("n1", "hash-n", "nightly", "2026-09-05T02:00:00Z", 0)

	cb, err := e.Chargeback(from, until, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cb.lines) != 2 {
		t.Fatalf("%d lines, want 2", len(cb.lines))
	}
	want := map[string]struct {
		official, recorded, diff, atBlended, subsidy, peakShare, reasoningShare string
	}{
		// peaky: a call costs 100k × 0.30/1M + 10k × 1.20/1M = 0.03 + 0.012
		// = 0.042; three: 0.126. Recorded 3 × 0.03 = 0.09; difference
		// 0.126 − 0.09 = 0.036. Blended input: (0.09 + 0.015) / 400k =
		// 0.2625 per 1M; output: (3 × 0.012 + 0.006) / 40k = 1.05 per 1M.
		// At blended: 300k × 0.2625/1M + 30k × 1.05/1M = 0.07875 + 0.0315 =
		// 0.11025; subsidy 0.11025 − 0.126 = −0.01575. Every token at peak:
		// share 1; reasoning 12k of 30k output: 0.4.
		"peaky": {"0.126", "0.09", "0.036", "0.11025", "-0.01575", "1", "0.4"},
		// nightly: 100k × 0.15/1M + 10k × 0.60/1M = 0.015 + 0.006 = 0.021;
		// recorded 0.03: difference −0.009. At blended: 0.02625 + 0.0105 =
		// 0.03675; subsidy +0.01575, what it pays for peaky. No peak, no
		// reasoning.
		"nightly": {"0.021", "0.03", "-0.009", "0.03675", "0.01575", "0", "0"},
		// The gateway: 0.147 official, 0.12 recorded; the blend gives back
		// the official cost; peak 330k of 440k tokens = 0.75; reasoning 12k
		// of 40k = 0.3.
		"": {"0.147", "0.12", "0.027", "0.147", "0", "0.75", "0.3"},
	}
	lines := append(append([]ChargebackLine{}, cb.lines...), cb.Gateway)
	for _, l := range lines {
		w, ok := want[l.KeyAlias]
		if !ok {
			t.Fatalf("unexpected line %q", l.KeyAlias)
		}
		for _, c := range []struct {
			name string
			got  decimal.Decimal
			want string
		}{
			{"official", l.Official, w.official}, {"recorded", l.Recorded, w.recorded}, {"difference", l.Diff, w.diff},
			{"at blended", l.AtBlended, w.atBlended}, {"subsidy", l.Subsidy, w.subsidy},
			{"peak share", l.PeakShare.Decimal, w.peakShare}, {"reasoning share", l.ReasoningShare.Decimal, w.reasoningShare},
		} {
			if !c.got.Equal(dec(c.want)) {
				t.Errorf("%q %s = %s, want %s", l.KeyAlias, c.name, c.got, c.want)
			}
		}
	}
	keep, err := e.Chargeback(from, until, func(l *ChargebackLine) bool { return l.KeyAlias == "nightly" })
	if err != nil {
		t.Fatal(err)
	}
	if len(keep.lines) != 1 || !keep.Gateway.Official.Equal(dec("0.147")) || !keep.lines[0].Subsidy.Equal(dec("0.01575")) {
		t.Errorf("filtered to nightly: %d lines, gateway %s: the blend must still be the whole gateway's", len(keep.lines), keep.Gateway.Official)
	}
}

// TestChargebackPeakShareIsReconciles checks that a key's peak share in
// chargeback is the one reconcile (and so the workbook's By key sheet)
// gives it: time-of-use tokens only. Key "mixed" calls deepseek-flash at
// peak (Thursday 2026-10-15 02:00 UTC is 10:00 in Beijing) with 1,000
// input and 100 output tokens, and gpt-4o (one price at every hour) with
// 9,000 input and 900 output: its peak share is 1,100 / 1,100 = 1, not
// 1,100 / 11,000. Key "flat" only calls gpt-4o: no share at all.
func TestChargebackPeakShareIsReconciles(t *testing.T) {
	cat, ps := tariffs.Load("")
	if ps.Errors() != nil {
		t.Fatal(ps)
	}
	from, until := at("2026-10-01T00:00:00Z"), at("2026-11-01T00:00:00Z")
	e := New(cat, Options{Since: from, Until: until, Dims: []Dim{DimKey}})
	add := func(id, key, model string, in, out int64) {
		c := call(id, model, "2026-10-15T02:00:00Z", in, 0, out)
		c.Key, c.KeyAlias = key, key
		e.AddPriced(&c)
	}
	add("m1", "mixed", "deepseek-flash", 1_000, 100)
	add("m2", "mixed", "gpt-4o", 9_000, 900)
	add("f1", "flat", "gpt-4o", 5_000, 500)

	want := map[string]decimal.NullDecimal{"mixed": decimal.NewNullDecimal(decimal.NewFromInt(1)), "flat": {}}
	cb, err := e.Chargeback(from, until, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range cb.lines {
		if w := want[l.KeyAlias]; w.Valid != l.PeakShare.Valid || !w.Decimal.Equal(l.PeakShare.Decimal) {
			t.Errorf("chargeback %s: peak share %v, want %v", l.KeyAlias, l.PeakShare, w)
		}
	}
	for _, g := range e.Reconcile().groups {
		cbShare := decimal.NullDecimal{}
		for _, l := range cb.lines {
			if l.Key.Key == g.Key.Key {
				cbShare = l.PeakShare
			}
		}
		if gs := g.PeakShare(); gs.Valid != cbShare.Valid || !gs.Decimal.Equal(cbShare.Decimal) {
			t.Errorf("key %s: reconcile peak share %v, chargeback %v", g.Key.Key, gs, cbShare)
		}
	}
}

// TestChargebackTierAtOfficial: calls the blend leaves out (another
// service tier) count at their own official cost, so the subsidies still
// add up to zero. Key "std" makes a standard call to claude-test, 1,000
// input and 500 output tokens: (1000 × 3 + 500 × 15) / 1M = 0.0105, the
// blend's prices are its own (3 and 15). Key "bulk" makes a batch call,
// 10,000 input and 2,000 output at half price: (30000 + 30000) / 1M × 0.5
// = 0.03; at the standard blend it would be charged 0.06, a subsidy of
// 0.03 that no one receives.
func TestChargebackTierAtOfficial(t *testing.T) {
	e := New(modifierCatalog(t), Options{Dims: []Dim{DimKey}})
	add := func(id, key string, tk ledger.Tokens, tier ledger.ServiceTier) {
		c := modifierCall(id, "claude-test", tk, ledger.ToolUses{}, tier, "")
		c.Key, c.KeyAlias = key, key
		e.AddPriced(&c)
	}
	add("a", "std", ledger.Tokens{Input: 1000, Output: 500}, ledger.TierStandard)
	add("b", "bulk", ledger.Tokens{Input: 10000, Output: 2000}, ledger.TierBatch)

	cb, err := e.Chargeback(at("2026-10-01T00:00:00Z"), at("2026-10-02T00:00:00Z"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ atBlended, subsidy string }{
		"std":  {"0.0105", "0"},
		"bulk": {"0.03", "0"},
		"":     {"0.0405", "0"},
	}
	for _, l := range append(append([]ChargebackLine{}, cb.lines...), cb.Gateway) {
		w, ok := want[l.KeyAlias]
		if !ok {
			t.Fatalf("unexpected line %q", l.KeyAlias)
		}
		if !l.AtBlended.Equal(dec(w.atBlended)) || !l.Subsidy.Equal(dec(w.subsidy)) {
			t.Errorf("%q: at blended %s, subsidy %s; want %s, %s", l.KeyAlias, l.AtBlended, l.Subsidy, w.atBlended, w.subsidy)
		}
	}
}

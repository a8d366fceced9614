package savings_test

import (
	"slices"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
)

// TestLinesAndOutside groups a small file by key: each key's line sums its
// calls under each lever and once under the best, and calls that are
// failed, cache hits or unpriced are outside every lever and counted;
// a duplicate is no call of the period.
func TestLinesAndOutside(t *testing.T) {
	cat := catalog(t)
	peak := logged{"deepseek", "deepseek-flash", "2026-11-06T09:30:00Z", ledger.Tokens{Input: 1_000_000, CacheRead: 200_000, Output: 100_000}, ledger.TierStandard, "ka"}
	gpt := logged{"openai", "gpt-5.4", "2026-10-15T12:00:00Z", ledger.Tokens{Input: 100_000, CacheRead: 50_000, Output: 10_000}, ledger.TierStandard, "ka"}
	failed := gpt.call(t, "f1")
	failed.Key, failed.Status = "kb", ledger.StatusFailure
	hit := gpt.call(t, "h1")
	hit.Key, hit.CacheHit = "kb", true
	unknown := logged{"openai", "no-such-model", "2026-10-15T12:00:00Z", ledger.Tokens{Input: 10}, ledger.TierStandard, "kb"}
	calls := []ledger.Call{peak.call(t, "p1"), gpt.call(t, "g1"), gpt.call(t, "g1"), failed, hit, unknown.call(t, "u1")}
	r := observe(t, cat, savings.Options{Dims: []pricing.Dim{pricing.DimKey}}, calls...)
	if len(r.Lines) != 2 || r.Lines[0].Key.Key != "ka" || r.Lines[1].Key.Key != "kb" {
		t.Fatalf("lines %v, want ka then kb", keysOf(r.Lines))
	}
	a, b := r.Lines[0], r.Lines[1]
	// ka: 0.4212 + 0.4125 as served (TestLeversByHand); off-peak saves
	// 0.2106 on the first, batch 0.20625 on the second (flex as much, but
	// the call counts once): 0.41685 in all, 0.41685 left to pay.
	if a.Priced != 2 || !a.Served.Equal(dec("0.8337")) || !a.Saving().Equal(dec("0.41685")) || !a.Levered.Equal(dec("0.41685")) {
		t.Errorf("ka: priced %d served %s saving %s levered %s, want 2, 0.8337, 0.41685, 0.41685", a.Priced, a.Served, a.Saving(), a.Levered)
	}
	if a.Best.Calls != 2 || a.BestBy != [savings.NumLevers]int64{1, 1, 0, 0} || a.Levers[savings.Flex].Calls != 1 {
		t.Errorf("ka: best %d call(s) by %v, flex %d; want 2 by [1 1 0 0], flex 1", a.Best.Calls, a.BestBy, a.Levers[savings.Flex].Calls)
	}
	if want := (savings.Outside{Unpriced: 1, Failed: 1, CacheHit: 1}); b.Outside != want || b.Priced != 0 || !b.Saving().IsZero() {
		t.Errorf("kb: outside %+v priced %d saving %s, want %+v, 0, 0", b.Outside, b.Priced, b.Saving(), want)
	}
	if r.Total.Outside.Total() != 3 || r.Total.Priced != 2 || !r.Total.Saving().Equal(dec("0.41685")) {
		t.Errorf("total: outside %d priced %d saving %s, want 3, 2, 0.41685", r.Total.Outside.Total(), r.Total.Priced, r.Total.Saving())
	}
}

func keysOf(ls []*savings.Line) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Key.Key)
	}
	return out
}

// TestLeversOnly weighs the levers asked for only.
func TestLeversOnly(t *testing.T) {
	cat := catalog(t)
	gpt := logged{"openai", "gpt-5.4", "2026-10-15T12:00:00Z", ledger.Tokens{Input: 100_000, CacheRead: 50_000, Output: 10_000}, ledger.TierStandard, "ka"}
	r := observe(t, cat, savings.Options{Levers: []savings.Lever{savings.Flex}}, gpt.call(t, "g1"))
	if r.Total.Levers[savings.Batch].Calls != 0 || r.Total.BestBy != [savings.NumLevers]int64{0, 0, 1, 0} {
		t.Errorf("batch %d call(s), best by %v; want 0 and [0 0 1 0]", r.Total.Levers[savings.Batch].Calls, r.Total.BestBy)
	}
}

func TestParseLevers(t *testing.T) {
	tests := []struct {
		in      string
		want    []savings.Lever
		wantErr bool
	}{
		{"", savings.AllLevers(), false},
		{"host, offpeak", []savings.Lever{savings.Offpeak, savings.Host}, false},
		{"flex", []savings.Lever{savings.Flex}, false},
		{"flex,flex", nil, true},
		{"spot", nil, true},
	}
	for _, tt := range tests {
		got, err := savings.ParseLevers(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("ParseLevers(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestDelayOf(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want savings.Delay
	}{
		{0, savings.Under1h}, {59 * time.Minute, savings.Under1h}, {time.Hour, savings.From1To3h},
		{3*time.Hour - time.Second, savings.From1To3h}, {3 * time.Hour, savings.From3To12h},
		{12 * time.Hour, savings.Over12h}, {40 * time.Hour, savings.Over12h},
	}
	for _, tt := range tests {
		if got := savings.DelayOf(tt.d); got != tt.want {
			t.Errorf("DelayOf(%s) = %s, want %s", tt.d, got, tt.want)
		}
	}
}

func TestNewRefusesGrouping(t *testing.T) {
	if _, err := savings.New(savings.Options{Dims: []pricing.Dim{pricing.DimPeriod}}); err == nil {
		t.Error("New grouped by period: no error")
	}
}

// TestObserveSummed counts two like calls summed as the two calls one by
// one: 2 × 0.4125 as served, 2 × 0.20625 under batch (TestLeversByHand).
func TestObserveSummed(t *testing.T) {
	cat := catalog(t)
	gpt := logged{"openai", "gpt-5.4", "2026-10-15T12:00:00Z", ledger.Tokens{Input: 100_000, CacheRead: 50_000, Output: 10_000}, ledger.TierStandard, "ka"}
	c := gpt.call(t, "g1")
	pc := pricing.New(cat, pricing.Options{}).AddPriced(&c)
	q := pricing.QuantitiesOf(c.Tokens, c.Tools)
	for u := range q {
		q[u] *= 2
	}
	s, err := savings.New(savings.Options{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ObserveSummed(&c, &pc, q, 2); err != nil {
		t.Fatal(err)
	}
	l := s.Result().Total
	b := &l.Levers[savings.Batch]
	if l.Priced != 2 || !l.Served.Equal(dec("0.825")) || b.Calls != 2 || !b.Under.Equal(dec("0.4125")) || l.BestBy[savings.Batch] != 2 {
		t.Errorf("priced %d served %s, batch %d call(s) under %s, best %v; want 2, 0.825, 2, 0.4125, 2 by batch",
			l.Priced, l.Served, b.Calls, b.Under, l.BestBy)
	}
}

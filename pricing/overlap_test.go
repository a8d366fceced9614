package pricing

import (
	"testing"

	"github.com/tokenfare/tokenfare/ledger"
)

// TestSeenTwiceCountsOnce reads one call twice, from one source or from
// two: it counts once in calls and tokens either way; the spend of a row
// the gateway logged twice in one source stays recorded and is explained,
// that of a copy from another source counts nowhere.
func TestSeenTwiceCountsOnce(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		name         string
		newSource    bool // the second copy comes from another source
		want         Outcome
		wantRecorded string // 0.001 a row: the priced call's, plus the copy's when kept
		wantExplain  int64  // calls explained as duplicates
	}{
		{name: "logged twice in one source", want: Duplicate, wantRecorded: "0.002", wantExplain: 1},
		{name: "in two overlapping exports", newSource: true, want: Overlap, wantRecorded: "0.001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(cat, Options{})
			a := call("r1", "flash", "2026-09-01T02:00:00Z", 100, 0, 10)
			a.Recorded = ledger.NewAmount(1, -3)
			b := a
			e.NextSource()
			e.AddPriced(&a)
			if tt.newSource {
				e.NextSource()
			}
			if got := e.AddPriced(&b).Outcome; got != tt.want {
				t.Fatalf("the second copy is %s, want %s", got, tt.want)
			}
			r := e.Reconcile()
			g := r.Groups[0]
			if r.Totals.Calls != 1 || g.Calls != 1 || g.Tokens.Input != 100 || g.Tokens.Output != 10 {
				t.Errorf("calls %d (group %d), tokens %+v; want 1 call of 100 input and 10 output tokens", r.Totals.Calls, g.Calls, g.Tokens)
			}
			if !r.Totals.Recorded.Equal(dec(tt.wantRecorded)) {
				t.Errorf("recorded %s, want %s", r.Totals.Recorded, tt.wantRecorded)
			}
			var explained int64
			sum := dec("0")
			for _, x := range r.Explanations {
				if x.Kind == KindDuplicates {
					explained += x.Calls
				}
				sum = sum.Add(x.Amount)
			}
			if explained != tt.wantExplain || !sum.Equal(r.Totals.Gap) {
				t.Errorf("%d call(s) explained as duplicates, explanations add up to %s of a gap of %s; want %d and all of it",
					explained, sum, r.Totals.Gap, tt.wantExplain)
			}
			if r.Rows.Duplicate != 1 || !balanced(r.Rows) {
				t.Errorf("rows %+v: want one duplicate, every row counted once", r.Rows)
			}
		})
	}
}

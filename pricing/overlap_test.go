package pricing

import (
	"fmt"
	"testing"

	"github.com/tokenfare/tokenfare/ledger"
)

// TestSeenTwiceCountsOnce reads one call twice, from one source or from
// two, the copies alike or not: the copy read first counts once in calls,
// tokens and recorded spend either way, and a repeat that disagrees with
// it is explained as conflicting_copies with both copies' values.
func TestSeenTwiceCountsOnce(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		name      string
		newSource bool // the second copy comes from another source
		gateway   ledger.Gateway
		edit      func(c *ledger.Call)
		want      Outcome
		// The first copy: 100 input and 10 output tokens, 0.001 recorded.
		wantRecorded string
		wantConflict bool
		wantRepeat   CopyValues // when a conflict: the repeat's values
	}{
		{name: "written twice in one source", want: Duplicate, wantRecorded: "0.001"},
		{name: "in two overlapping exports", newSource: true, want: Overlap, wantRecorded: "0.001"},
		{name: "same spend written otherwise", edit: func(c *ledger.Call) { c.Recorded = ledger.NewAmount(10, -4) },
			want: Duplicate, wantRecorded: "0.001"},
		{name: "spend differs in one source", edit: func(c *ledger.Call) { c.Recorded = ledger.NewAmount(2, -3) },
			want: Duplicate, wantRecorded: "0.001", wantConflict: true,
			wantRepeat: CopyValues{Model: "flash", Recorded: dec("0.002"), Tokens: 110}},
		{name: "tokens differ across sources", newSource: true, edit: func(c *ledger.Call) { c.Tokens.Input = 120 },
			want: Overlap, wantRecorded: "0.001", wantConflict: true,
			wantRepeat: CopyValues{Model: "flash", Recorded: dec("0.001"), Tokens: 130}},
		{name: "model differs", edit: func(c *ledger.Call) { c.Model = "flash-renamed" },
			want: Duplicate, wantRecorded: "0.001", wantConflict: true,
			wantRepeat: CopyValues{Model: "flash-renamed", Recorded: dec("0.001"), Tokens: 110}},
		{name: "identical CLIProxyAPI records", gateway: ledger.CLIProxy, want: Duplicate, wantRecorded: "0"},
		{name: "canonical rows in two files", gateway: ledger.Canonical, newSource: true, want: Overlap, wantRecorded: "0.001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(cat, Options{})
			a := call("r1", "flash", "2026-09-01T02:00:00Z", 100, 0, 10)
			a.Recorded = ledger.NewAmount(1, -3)
			if tt.gateway != "" {
				a.Gateway = tt.gateway
			}
			if !a.Gateway.RecordsSpend() {
				a.Recorded = ledger.Amount{}
			}
			b := a
			if tt.edit != nil {
				tt.edit(&b)
			}
			e.NextSource()
			e.AddPriced(&a)
			if tt.newSource {
				e.NextSource()
			}
			if got := e.AddPriced(&b).Outcome; got != tt.want {
				t.Fatalf("the second copy is %s, want %s", got, tt.want)
			}
			r := e.Reconcile()
			g := r.groups[0]
			if r.Totals.Calls != 1 || len(r.groups) != 1 || g.Tokens.Input != 100 || g.Tokens.Output != 10 {
				t.Errorf("calls %d in %d group(s), tokens %+v; want 1 call of 100 input and 10 output tokens", r.Totals.Calls, len(r.groups), g.Tokens)
			}
			if !r.Totals.Recorded.Equal(dec(tt.wantRecorded)) {
				t.Errorf("recorded %s, want %s", r.Totals.Recorded, tt.wantRecorded)
			}
			checkConflict(t, r, tt.wantConflict, tt.wantRepeat)
			if r.Rows.Duplicate != 1 || !balanced(r.Rows) {
				t.Errorf("rows %+v: want one duplicate, every row counted once", r.Rows)
			}
		})
	}
}

// checkConflict checks the conflicting_copies explanation of a
// reconciliation of one call read twice: the first copy (flash, 110
// tokens, 0.001 recorded) and the repeat's values, or none; and that the
// explanations still add up to the gap.
func checkConflict(t *testing.T, r *Reconciliation, want bool, repeat CopyValues) {
	t.Helper()
	sum := dec("0")
	var got *Explanation
	for i, x := range r.Explanations {
		if x.Kind == KindConflictingCopies {
			got = &r.Explanations[i]
		}
		sum = sum.Add(x.Amount)
	}
	if !sum.Equal(r.Totals.Gap) {
		t.Errorf("explanations add up to %s of a gap of %s", sum, r.Totals.Gap)
	}
	if (got != nil) != want {
		t.Fatalf("conflicting copies explained: %v, want %v (%+v)", got != nil, want, r.Explanations)
	}
	if !want {
		return
	}
	c := got.Copies
	if got.Calls != 1 || !got.Amount.IsZero() || c == nil || len(c.Examples) != 1 {
		t.Fatalf("explanation %+v: want 1 repeat of no amount, one example", got)
	}
	x := c.Examples[0]
	first := CopyValues{Model: "flash", Recorded: dec("0.001"), Tokens: 110}
	if !sameCopy(x.First, first) || !sameCopy(x.Repeat, repeat) || x.Identity != "r1" {
		t.Errorf("example %+v: want r1, first %v, repeat %v", x, first, repeat)
	}
	if !c.FirstRecorded.Equal(first.Recorded) || c.FirstTokens != 110 || !c.Recorded.Equal(repeat.Recorded) || c.Tokens != repeat.Tokens {
		t.Errorf("sums: first %s and %d tokens, repeats %s and %d; want %v and %v", c.FirstRecorded, c.FirstTokens, c.Recorded, c.Tokens, first, repeat)
	}
}

func sameCopy(a, b CopyValues) bool {
	return a.Model == b.Model && a.Tokens == b.Tokens && a.Recorded.Equal(b.Recorded)
}

// TestRepeatPastTheRing: a repeat read after recentCopies other first
// copies is no longer compared with its first copy: it still counts once
// (its 0.5 spend nowhere), no conflict is told, and Uncompared says so.
func TestRepeatPastTheRing(t *testing.T) {
	e := New(testCatalog(t), Options{})
	first := call("r0", "flash", "2026-09-01T02:00:00Z", 100, 0, 10)
	first.Recorded = ledger.NewAmount(1, -3)
	e.AddPriced(&first)
	for i := range recentCopies {
		c := call(fmt.Sprintf("f%d", i), "flash", "2026-09-01T03:00:00Z", 1, 0, 1)
		e.AddPriced(&c)
	}
	repeat := first
	repeat.Recorded = ledger.NewAmount(5, -1)
	if got := e.AddPriced(&repeat).Outcome; got != Duplicate {
		t.Fatalf("the repeat is %s, want duplicate", got)
	}
	r := e.Reconcile()
	if !r.Totals.Recorded.Equal(dec("0.001")) || e.Uncompared() != 1 || len(e.gate.conflicts) != 0 {
		t.Errorf("recorded %s, %d uncompared, conflicts %v; want 0.001, 1, none", r.Totals.Recorded, e.Uncompared(), e.gate.conflicts)
	}
}

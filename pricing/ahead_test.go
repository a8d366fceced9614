package pricing

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// TestAddBatchIsAddPriced checks AddBatch against AddPriced a call at a
// time, the look-ahead on from the first bucket: the same priced calls,
// shown to each in order, and the same groups and totals, grouped by
// key, team, user and model group by day or hour, when the engine folds
// past its budget and when it spills; with calls of other service tiers,
// repeats, failures and names of no tariff. The look-ahead must have
// found the buckets of most calls, or it was not tried.
func TestAddBatchIsAddPriced(t *testing.T) {
	cat := testCatalog(t)
	rng := rand.New(rand.NewPCG(8, 9))
	calls := randomCalls(rng, 6000)
	for i := range calls {
		// Calls of three days and 30 keys, so that most find a bucket
		// made before.
		c := &calls[i]
		c.End = c.End.Add(-c.End.Sub(calls[0].End).Truncate(72 * time.Hour))
		c.Start = c.End.Add(-time.Second)
		n := rng.IntN(30)
		c.Key, c.KeyAlias = fmt.Sprintf("key-%d", n), fmt.Sprintf("alias-%d", rng.IntN(2)*n)
		c.Team, c.User, c.ModelGroup = fmt.Sprintf("team-%d", n%7), fmt.Sprintf("user-%d", rng.IntN(40)), fmt.Sprintf("group-%d", n%3)
		if rng.IntN(20) == 0 {
			c.ServiceTier = ledger.TierPriority
		}
	}
	for _, tc := range []struct {
		dims   []Dim
		budget int
		spill  bool
		// anew: the values start again at each spill (groupTable.keepValues
		// 0), so that the keys read ahead are made again.
		anew bool
		// from: the buckets held before the engine looks ahead (1 if 0);
		// above the buckets a spill leaves, it stops looking ahead at
		// each spill and starts again, inside batches of 1,000 calls
		// (not 100).
		from int
	}{
		{[]Dim{DimModel, DimKey, DimDay}, 0, false, false, 0},
		{[]Dim{DimKey, DimTeam, DimHour}, 0, false, false, 0},
		{[]Dim{DimModel, DimGroup, DimUser, DimDay}, 500, false, false, 0}, // folds past 500 buckets
		{[]Dim{DimModel, DimKey, DimDay}, 700, true, false, 0},             // spills at 700 buckets
		{[]Dim{DimModel, DimKey, DimDay}, 700, true, true, 0},              // and numbers the values again
		{[]Dim{DimModel, DimKey, DimDay}, 700, true, false, 400},           // and looks ahead past 400 only
	} {
		t.Run(fmt.Sprint(tc.dims, tc.budget, tc.spill, tc.anew, tc.from), func(t *testing.T) {
			opts := Options{Dims: tc.dims, MaxGroups: tc.budget, Zone: zone(t, "America/New_York")}
			one := New(cat, opts)
			if tc.spill {
				opts.Runs = (&memRuns{}).store
				one = New(cat, opts)
				opts.Runs = (&memRuns{}).store
			}
			batch := New(cat, opts)
			batch.ahead = &lookAhead{from: max(tc.from, 1)}
			if tc.anew {
				one.table.keepValues, batch.table.keepValues = 0, 0
			}
			var want []PricedCall
			for i := range calls {
				want = append(want, one.AddPriced(&calls[i]))
			}
			var got []PricedCall
			size := 100
			if tc.from > 0 {
				size = 1000
			}
			for from := 0; from < len(calls); from += size {
				err := batch.AddBatch(calls[from:min(from+size, len(calls))], func(c *ledger.Call, pc *PricedCall) error {
					if c != &calls[len(got)] {
						return fmt.Errorf("call %d shown out of turn", len(got))
					}
					got = append(got, *pc)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			for i := range want {
				g, w := &got[i], &want[i]
				if g.Outcome != w.Outcome || !g.At.Equal(w.At) || g.Tier != w.Tier || g.Rates != w.Rates ||
					g.Quote.Model != w.Quote.Model || g.Quote.Version != w.Quote.Version || g.Quote.Period != w.Quote.Period {
					t.Fatalf("call %d: AddBatch priced it %+v, AddPriced %+v", i, g, w)
				}
			}
			if err := errors.Join(one.Err(), batch.Err()); err != nil {
				t.Fatal(err)
			}
			if tc.spill && batch.runs.written() == 0 {
				t.Fatal("the engine did not spill")
			}
			// A key found through a hash gone stale (the table made anew
			// by a spill) would be in a second bucket, its group the same.
			if nb, no := batch.table.buckets.len(), one.table.buckets.len(); nb != no {
				t.Errorf("%d buckets, AddPriced's engine %d: a key is in two", nb, no)
			}
			if n := batch.ahead.found; 10*n < int64(len(calls)) {
				t.Errorf("the look-ahead found the buckets of %d calls of %d", n, len(calls))
			}
			wantR, gotR := one.Reconcile(), batch.Reconcile()
			wantG, err := Collect(wantR.Groups())
			if err != nil {
				t.Fatal(err)
			}
			gotG, err := Collect(gotR.Groups())
			if err != nil {
				t.Fatal(err)
			}
			if len(gotG) != len(wantG) || len(wantG) == 0 {
				t.Fatalf("%d groups, want %d", len(gotG), len(wantG))
			}
			for i := range gotG {
				if !sameGroup(&gotG[i], &wantG[i]) {
					t.Fatalf("group %d:\ngot  %+v\nwant %+v", i, gotG[i], wantG[i])
				}
			}
			sameTotals(t, gotR, wantR)
			if err := errors.Join(gotR.Close(), wantR.Close(), one.Close(), batch.Close()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAddBatchStopsAtTheFirstError checks that AddBatch returns the
// error each returns and shows it no call after.
func TestAddBatchStopsAtTheFirstError(t *testing.T) {
	cat := testCatalog(t)
	calls := randomCalls(rand.New(rand.NewPCG(3, 4)), 300)
	for _, dims := range [][]Dim{{DimModel}, {DimModel, DimKey, DimDay}} {
		e := New(cat, Options{Dims: dims})
		e.ahead = &lookAhead{from: 1}
		stop := errors.New("stop")
		shown := 0
		err := e.AddBatch(calls, func(*ledger.Call, *PricedCall) error {
			if shown++; shown == 100 {
				return stop
			}
			return nil
		})
		if err != stop || shown != 100 {
			t.Errorf("%v: AddBatch returned %v after %d calls shown, want the error after 100", dims, err, shown)
		}
	}
}

package pricing

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tokenfare/tokenfare/tariffs"
)

func TestGroupTableBudget(t *testing.T) {
	for _, tc := range []struct {
		max    int
		spills bool
		want   int
	}{{0, false, DefaultMaxGroups}, {0, true, DefaultSpillBuckets}, {-1, false, DefaultMaxGroups}, {5, true, 5}, {5, false, 5}} {
		if got := newGroupTable(tc.max, tc.spills).maxGroups; got != tc.want {
			t.Errorf("budget %d, spills %v: %d buckets, want %d", tc.max, tc.spills, got, tc.want)
		}
	}
}

// addCalls adds a bucket of key k to g holding calls calls of in input
// tokens each.
func addCalls(g *groupTable, k bucketKey, calls, in int64) *bucket {
	b := g.buckets.add(&k, &bucketPricing{})
	b.Calls += calls
	b.Qty[tariffs.Input] += calls * in
	return b
}

func TestGroupTableFullNumbersNoNewValue(t *testing.T) {
	g := newGroupTable(2, false)
	known := g.values.id("k1")
	addCalls(&g, bucketKey{holder: heldBy{key: known}}, 1, 1)
	if g.full() || g.idOf(false)("k2") == absentText {
		t.Fatal("one bucket of two: full, or a value left unnumbered")
	}
	addCalls(&g, bucketKey{holder: heldBy{key: g.values.id("k2")}}, 1, 1)
	if !g.full() {
		t.Fatal("two buckets of two: not full")
	}
	if got := g.idOf(false)("k3"); got != absentText {
		t.Errorf("folding past the budget: a new value numbered %d, want none", got)
	}
	if got := g.idOf(false)("k1"); got != known {
		t.Errorf("folding past the budget: a known value numbered %d, want %d", got, known)
	}
	if got := g.idOf(true)("k3"); got == absentText || g.values.of(got) != "k3" {
		t.Errorf("spilling past the budget: a new value numbered %d, want a number", got)
	}
}

func TestGroupTableFold(t *testing.T) {
	g := newGroupTable(1, false)
	k := bucketKey{unknown: g.labels.id("mystery"), period: 2, holder: heldBy{key: g.values.id("k1"), team: g.values.id("t1")}}
	f := g.fold(&k)
	if !f.folded || f.period != 2 || f.holder.user != 0 || f.group != 0 {
		t.Errorf("folded %v, period %d, user %d, group %d; want folded, 2, none, none", f.folded, f.period, f.holder.user, f.group)
	}
	for _, x := range []struct {
		got  string
		want string
	}{{g.values.of(f.holder.key), OtherKeys}, {g.values.of(f.holder.team), OtherTeams}, {g.labels.of(f.unknown), OtherNames}} {
		if x.got != x.want {
			t.Errorf("folded to %q, want %q", x.got, x.want)
		}
	}
}

func TestGroupTableCollapse(t *testing.T) {
	for _, tc := range []struct {
		keepDay bool
		calls   []int64 // of the collapsed buckets, in the order made
		inputs  []int64
	}{
		// The two keys of day 1 collapse into one bucket: 2 + 3 calls of
		// 10 tokens; day 2's 5 calls of 100 apart, or with them.
		{true, []int64{5, 5}, []int64{50, 500}},
		{false, []int64{10}, []int64{550}},
	} {
		g := newGroupTable(10, true)
		addCalls(&g, bucketKey{slot: 1, holder: heldBy{key: g.values.id("k1")}}, 2, 10)
		addCalls(&g, bucketKey{slot: 1, holder: heldBy{key: g.values.id("k2")}}, 3, 10)
		addCalls(&g, bucketKey{slot: 2, holder: heldBy{key: g.values.id("k1")}}, 5, 100)
		g.collapse(tc.keepDay)
		bs := g.buckets.all()
		if len(bs) != len(tc.calls) || g.collapsed != len(tc.calls) || g.values.len() != 2 {
			t.Fatalf("keep day %v: %d buckets, %d collapsed, %d values; want %d, %d, the 2 keys kept",
				tc.keepDay, len(bs), g.collapsed, g.values.len(), len(tc.calls), len(tc.calls))
		}
		for i, b := range bs {
			if !b.k.collapsed || b.k.holder != (heldBy{}) || b.Calls != tc.calls[i] || b.Qty[tariffs.Input] != tc.inputs[i] {
				t.Errorf("keep day %v, bucket %d: %+v of %d calls, %d input; want collapsed, %d, %d",
					tc.keepDay, i, b.k, b.Calls, b.Qty[tariffs.Input], tc.calls[i], tc.inputs[i])
			}
		}
		if live := g.live(false); len(live) != 0 {
			t.Errorf("keep day %v: %d buckets live after a collapse, want none", tc.keepDay, len(live))
		}
	}
}

// TestGroupTableCollapseKeepsValues checks that a collapse keeps the
// values' numbers up to its bound, so that a key met again after a spill
// has the number it had, and starts them again past it.
func TestGroupTableCollapseKeepsValues(t *testing.T) {
	g := newGroupTable(10, true)
	g.keepValues = 3
	k1 := g.values.id("k1")
	addCalls(&g, bucketKey{holder: heldBy{key: k1}}, 1, 1)
	addCalls(&g, bucketKey{holder: heldBy{key: g.values.id("k2")}}, 1, 1)
	kept := g.values
	g.collapse(false)
	if g.values != kept || g.values.lookup("k1") != k1 || g.values.len() != 2 {
		t.Fatalf("2 values within a bound of 3: %d values after the collapse, k1 numbered %d; want them kept, k1 %d",
			g.values.len(), g.values.lookup("k1"), k1)
	}
	for _, k := range []string{"k3", "k4"} {
		addCalls(&g, bucketKey{holder: heldBy{key: g.values.id(k)}}, 1, 1)
	}
	g.collapse(false)
	if g.values == kept || g.values.len() != 0 || g.values.lookup("k1") != absentText {
		t.Fatalf("4 values past a bound of 3: %d values after the collapse; want them started again", g.values.len())
	}
}

func TestGroupTableLive(t *testing.T) {
	g := newGroupTable(10, true)
	addCalls(&g, bucketKey{holder: heldBy{key: g.values.id("k1")}}, 1, 1)
	g.collapse(false)
	fresh := addCalls(&g, bucketKey{holder: heldBy{key: g.values.id("k2")}}, 1, 1)
	addCalls(&g, bucketKey{apart: true}, 1, 1)
	if live := g.live(true); len(live) != 1 || live[0] != fresh {
		t.Errorf("live %v, want the bucket made since the collapse alone", live)
	}
	if g.full() {
		t.Error("two buckets made since the collapse fill a budget of ten")
	}
}

func TestGroupTableRenumbered(t *testing.T) {
	g := newGroupTable(10, true)
	g.values.id("k1")
	k := bucketKey{group: g.values.id("g1"), holder: heldBy{key: g.values.id("k2"), user: g.values.id("u1")}}
	old := g.values
	g.values = g.values.emptied()
	g.values.id("u1") // numbered first now
	n := g.renumbered(&k, old)
	for _, x := range []struct {
		v    text
		want string
	}{{n.group, "g1"}, {n.holder.key, "k2"}, {n.holder.user, "u1"}, {n.holder.team, ""}} {
		if got := g.values.of(x.v); got != x.want {
			t.Errorf("renumbered to %q, want %q", got, x.want)
		}
	}
	if n.holder.user != 1 {
		t.Errorf("u1 numbered %d, want 1, its number in the new values", n.holder.user)
	}
}

func TestGroupTableFixedOnce(t *testing.T) {
	g := newGroupTable(1, false)
	r := &tariffs.Rates{}
	if g.fixedOf(nil) != nil {
		t.Error("fixed rates of no rates")
	}
	if a, b := g.fixedOf(r), g.fixedOf(r); a == nil || a != b {
		t.Errorf("fixed rates %p then %p, want one, made once", a, b)
	}
}

// TestLiveAreTheBucketsNotCollapsed checks that live, which takes the
// buckets past the collapsed ones without reading them, returns those a
// look at every bucket's key finds, in the list's order, through
// collapses that keep the day and not, and buckets dropped.
func TestLiveAreTheBucketsNotCollapsed(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 51))
	g := newGroupTable(1<<20, true)
	for step := range 400 {
		switch r := rng.IntN(20); {
		case r == 0:
			g.collapse(rng.IntN(2) == 0)
		case r == 1:
			// Drop some buckets, collapsed or not, as TakeApart does.
			g.buckets.deleteWhere(func(b *bucket) bool {
				if rng.IntN(4) != 0 {
					return false
				}
				if b.k.collapsed {
					g.collapsed--
				}
				return true
			})
		default:
			k := bucketKey{slot: int64(rng.IntN(3)), holder: heldBy{key: g.values.id(fmt.Sprint("k", rng.IntN(30)))}}
			if g.buckets.get(&k) == nil {
				addCalls(&g, k, 1, 1)
			}
		}
		var want []*bucket
		for _, b := range g.buckets.all() {
			if !b.k.collapsed {
				want = append(want, b)
			}
		}
		if got := g.live(false); !slices.Equal(got, want) {
			t.Fatalf("step %d: live has %d buckets, %d are not collapsed (or not in order)", step, len(got), len(want))
		}
	}
}

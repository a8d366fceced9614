package pricing

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestDistinctNamesMemoryBounded feeds an engine 300,000 calls, each of a
// model name of its own that no tariff knows, and as many of a priced
// model under a key of their own, grouped by model and key: the engine's
// memory stays within its budget, and every call is still counted, priced
// calls at their exact cost.
func TestDistinctNamesMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("feeds 600,000 calls")
	}
	const n = 300_000
	cat := testCatalog(t)
	start := at("2026-09-01T02:00:00Z")
	mk := func(i int, model, key string) ledger.Call {
		id := fmt.Sprintf("r-%s-%d", model, i)
		end := start.Add(time.Duration(i) * time.Millisecond)
		return ledger.Call{RequestID: id, Identity: id, Gateway: ledger.LiteLLM, Start: end.Add(-time.Second), End: end,
			Model: model, Key: key, Recorded: ledger.NewAmount(3, -6), Tokens: ledger.Tokens{Input: 100, Output: 10}}
	}
	// Each call's cost alone, from an engine of one call.
	one := New(cat, Options{})
	c := mk(0, "flash", "k")
	one.AddPriced(&c)
	cost := one.Reconcile().Totals.Official

	before := heapInUse()
	// A budget of groups below n, so that keys fold too (the default
	// holds millions).
	const maxGroups = 1 << 18
	e := New(cat, Options{Dims: []Dim{DimModel, DimKey}, MaxGroups: maxGroups})
	for i := range n {
		c := mk(i, fmt.Sprintf("custom-model-%07d", i), "k")
		e.AddPriced(&c)
		c = mk(i, "flash", fmt.Sprintf("key-%07d", i))
		e.AddPriced(&c)
	}
	grown := heapInUse() - before
	const budget = 256 << 20
	if grown > budget {
		t.Errorf("the engine holds %d MiB after %d distinct names and keys, want at most %d MiB", grown>>20, n, budget>>20)
	}
	r := e.Reconcile()
	if r.Totals.Calls != 2*n || r.Rows.Priced != n || r.Rows.Unpriced != n {
		t.Errorf("calls %d, rows %+v; want %d calls, %d priced and %d unpriced", r.Totals.Calls, r.Rows, 2*n, n, n)
	}
	if want := cost.Mul(dec(fmt.Sprint(n))); !r.Totals.Official.Equal(want) {
		t.Errorf("official %s, want %d × %s = %s", r.Totals.Official, n, cost, want)
	}
	if want := dec("0.000003").Mul(dec(fmt.Sprint(2 * n))); !r.Totals.Recorded.Equal(want) {
		t.Errorf("recorded %s, want %s", r.Totals.Recorded, want)
	}
	var other, otherKeys int64
	for _, g := range r.groups {
		switch {
		case g.Key.Model == "(other names)":
			other += g.Calls
		case g.Key.Key == "(other keys)":
			otherKeys += g.Calls
		}
	}
	if other == 0 || otherKeys == 0 || len(r.groups) > maxGroups+DefaultMaxNames {
		t.Errorf("%d groups, %d calls under (other names), %d under (other keys); want the overflow grouped", len(r.groups), other, otherKeys)
	}
}

// TestBudgetFolds checks, on a small budget, where the calls beyond it go.
func TestBudgetFolds(t *testing.T) {
	cat := testCatalog(t)
	e := New(cat, Options{Dims: []Dim{DimModel, DimKey}, MaxNames: 3, MaxGroups: 4})
	for i := range 10 {
		c := call(fmt.Sprint("u", i), fmt.Sprint("nobody-knows-", i), "2026-09-01T02:00:00Z", 10, 0, 1)
		e.AddPriced(&c)
		c = call(fmt.Sprint("p", i), "flash", "2026-09-01T02:00:00Z", 10, 0, 1)
		c.Key = fmt.Sprint("key-", i)
		e.AddPriced(&c)
	}
	got := map[string]int64{}
	for _, g := range e.Reconcile().groups {
		got[g.Key.Model+"/"+g.Key.Key] += g.Calls
	}
	// Worked by hand: u0 takes name 1 and bucket 1, p0 name 2 ("flash")
	// and bucket 2, u1 name 3 and bucket 3, p1 bucket 4. From u2 on the
	// names are full: u2…u9 are "(other names)", whose bucket (under key
	// k1) would be a fifth, so it folds its key too; p2…p9 need new
	// buckets for their keys, and fold them.
	want := map[string]int64{
		"nobody-knows-0/k1": 1, "nobody-knows-1/k1": 1, "flash/key-0": 1, "flash/key-1": 1,
		"(other names)/(other keys)": 8, "flash/(other keys)": 8,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups %v\nwant %v", got, want)
	}
	names, groups := e.Folded()
	if names != 8 || groups != 16 {
		t.Errorf("folded %d names, %d groups; want 8 and 16", names, groups)
	}
}

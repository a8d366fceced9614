package pricing

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// collectCharges returns e's charges, failing t on an error.
func collectCharges(t *testing.T, e *Engine) []Charge {
	t.Helper()
	var out []Charge
	ch := e.Charges()
	defer func() { _ = ch.Close() }() // the test reads nothing after
	for c, err := range ch.All() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// chargeCalls are viewCalls whose recorded spend has from 0 to 20 decimal
// places, some of it zero: the places Apportion keeps follow the sum's.
func chargeCalls(seed uint64, n int) []ledger.Call {
	calls := viewCalls(seed, n)
	rng := rand.New(rand.NewPCG(seed, 3))
	for i := range calls {
		switch rng.IntN(4) {
		case 0:
			calls[i].Recorded = ledger.NewAmount(rng.Int64N(1_000_000_000_000), -int32(rng.IntN(21)))
		case 1:
			calls[i].Recorded = ledger.Amount{}
		}
	}
	return calls
}

// TestSpilledChargesAreTheUnlimitedOnes prices random calls (every
// outcome: unknown models, failed calls, duplicates, which make no charge; service tiers and
// regions; tags, which charges do not part) with budgets of buckets that
// make the engine spill from a few times to hundreds, keeping its charges
// (OutputCharges), and checks every charge, field by field and in
// order, against the same calls held in memory: the recorded spend with
// its digits, as apportioned to the usage types of its group.
func TestSpilledChargesAreTheUnlimitedOnes(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	cat := testCatalog(t)
	calls := chargeCalls(31, 6000)
	from, until := at("2026-09-01T00:00:00Z"), at("2026-10-01T00:00:00Z")
	for _, tc := range []struct {
		name     string
		dims     []Dim
		budget   int
		compacts bool // spills more times than the engine keeps runs (spillRuns.max)
	}{
		{name: "month's groupings; past 256 runs", dims: MonthDims, budget: 18, compacts: true},
		{name: "month's groupings and tags", dims: append([]Dim{DimTag}, MonthDims...), budget: 400},
		{name: "hour and key", dims: []Dim{DimHour, DimKey}, budget: 18, compacts: true},
		{name: "key, spilled a few times", dims: []Dim{DimKey, DimModel}, budget: 300},
		{name: "no dimensions", dims: nil, budget: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Dims: tc.dims, Since: from, Until: until, Zone: zone(t, "Asia/Shanghai")}
			runs := &memRuns{}
			whole, spilled := pricedTwice(t, cat, opts, func(o *Options) { o.Runs, o.MaxGroups, o.Outputs = runs.store, tc.budget, OutputCharges }, calls)
			if spilled.runs.charges.Stats().Runs == 0 {
				t.Fatal("nothing spilled: the test checks too little")
			}
			if tc.compacts && spilled.runs.charges.Stats().Runs <= spilled.runs.max {
				t.Fatalf("%d runs of charges written: none merged", spilled.runs.charges.Stats().Runs)
			}
			want, got := collectCharges(t, whole), collectCharges(t, spilled)
			sameCharges(t, got, want)
			if err := spilled.Close(); err != nil {
				t.Fatal(err)
			}
			runs.check(t)
			if err := chargesErr(spilled); !errors.Is(err, ErrSpill) {
				t.Errorf("charges read after Close: %v, want ErrSpill", err)
			}
		})
	}
}

// sameCharges checks charges got against want: as many, in the same
// order, each with the same fields, money by its digits.
func sameCharges(t *testing.T, got, want []Charge) {
	t.Helper()
	outcomes := map[Outcome]bool{}
	for i := range min(len(got), len(want)) {
		if g, w := chargeText(&got[i]), chargeText(&want[i]); g != w {
			t.Fatalf("charge %d of %d:\ngot  %s\nwant %s", i, len(want), g, w)
		}
		outcomes[want[i].Outcome] = true
	}
	if len(got) != len(want) {
		t.Fatalf("%d charges, want %d", len(got), len(want))
	}
	for _, o := range []Outcome{Priced, Unpriced, Failed} {
		if !outcomes[o] {
			t.Errorf("no charge of outcome %v: the test checks too little", o)
		}
	}
}

// chargeText is every field of c, decimals with their exponent.
func chargeText(c *Charge) string {
	x := *c
	money := fmt.Sprintf("unit %s e%d, cost %s e%d, recorded %s e%d", c.UnitPrice, c.UnitPrice.Exponent(),
		c.Cost, c.Cost.Exponent(), c.Recorded, c.Recorded.Exponent())
	x.UnitPrice, x.Cost, x.Recorded = decimal.Zero, decimal.Zero, decimal.Zero
	return fmt.Sprintf("%+v; %s", x, money)
}

// chargesErr returns the error e's charges end with, if any.
func chargesErr(e *Engine) error {
	ch := e.Charges()
	defer func() { _ = ch.Close() }() // the test reads nothing after
	for _, err := range ch.All() {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestSpilledChargesNeedTheirRuns: an engine that spilled its groups
// without its charges (not asked for them), or whose run of charges was
// cut short, yields ErrSpill, not charges of part of its calls.
func TestSpilledChargesNeedTheirRuns(t *testing.T) {
	cat := testCatalog(t)
	calls := chargeCalls(32, 500)
	for _, tc := range []struct {
		name    string
		outputs Outputs
		cut     bool
		want    string
	}{
		{name: "spilled without charges", outputs: OutputGroups | OutputChargeback, want: "Charges asked of an engine"},
		{name: "run cut short", outputs: OutputCharges, cut: true, want: "charges-000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := &memRuns{}
			e := New(cat, Options{Dims: MonthDims, Runs: runs.store, MaxGroups: 40, Outputs: tc.outputs})
			defer e.Close()
			for i := range calls {
				e.AddPriced(&calls[i])
			}
			if e.runs.written() == 0 {
				t.Fatal("nothing spilled")
			}
			if tc.cut {
				runs.cut(t, "charges-000000", 3)
			}
			err := chargesErr(e)
			if !errors.Is(err, ErrSpill) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrSpill naming %q", err, tc.want)
			}
		})
	}
}

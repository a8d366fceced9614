package pricing_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// The tests of this file drive pricing's exported API as a caller does: a
// catalog loaded by tariffs, the calls of a file read by ledger, one
// engine, and its results. Their figures are worked by hand from
// testdata/api/tariff.yaml (per 1M tokens; peak 09:00-12:00 UTC on
// weekdays, billed at the call's end):
//
//	from 2026-10-01: off-peak input 0.20, output 0.80; peak input 0.40, output 1.60
//	from 2026-10-20: off-peak input 0.10, output 0.40; peak input 0.20, output 0.80
//
// and testdata/api/calls.csv (2026-10-13 is a Tuesday, 10-17 a Saturday):
//
//	c1 alpha Tue 10-13 10:00 peak     1M in, 0.5M out: 0.40 + 0.80 = 1.20, recorded 0.70
//	c2 alpha Tue 10-13 13:00 off-peak 2M in:           0.40,               recorded 0.40
//	c3 beta  Sat 10-17 10:00 off-peak 0.5M in, 0.25M out: 0.10 + 0.20 = 0.30, recorded 0.30
//	c4 beta  Wed 10-21 10:30 peak (the cut) 1M in, 1M out: 0.20 + 0.80 = 1.00, recorded 0.60
//	c5 beta  an unknown model, unpriced,                   recorded 0.05
//	c1 again: a duplicate, counted once
//	c7 alpha failed, no tokens, recorded 0
//
// Priced: 2.90 official, 2.00 recorded; with c5, 2.05 recorded.
const (
	apiTariff = "testdata/api/tariff.yaml"
	apiCalls  = "testdata/api/calls.csv"
)

var (
	oct1  = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	oct20 = time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC)
	nov1  = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// apiCatalog loads the tests' tariff as a command's --tariffs does.
func apiCatalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	cat, problems := tariffs.Load(apiTariff)
	if cat == nil {
		t.Fatalf("load %s: %v", apiTariff, problems)
	}
	return cat
}

// groupsOf returns the groups of r as Groups yields them, copied; an
// error fails the test.
func groupsOf(t testing.TB, r *pricing.Reconciliation) []pricing.Group {
	t.Helper()
	gs, err := pricing.Collect(r.Groups())
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// linesOf returns the lines of c as Lines yields them, copied; an error
// fails the test.
func linesOf(t testing.TB, c *pricing.Chargeback) []pricing.ChargebackLine {
	t.Helper()
	ls, err := pricing.Collect(c.Lines())
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// pricedRow is one call read and what the engine made of it.
type pricedRow struct {
	id string
	pc pricing.PricedCall
	c  ledger.Call
}

// priceFile reads path row by row into a new engine of cat and opts, as a
// run does, and returns the engine with each call's pricing in input order.
func priceFile(t *testing.T, cat *tariffs.Catalog, opts pricing.Options, path string) (*pricing.Engine, []pricedRow) {
	t.Helper()
	ctx := context.Background()
	r, err := ledger.FileSource(path, ledger.Options{}).Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	}()
	e := pricing.New(cat, opts)
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	var rows []pricedRow
	var b ledger.Batch
	for {
		err := r.Next(ctx, &b)
		for i := range b.Calls {
			c := &b.Calls[i]
			rows = append(rows, pricedRow{id: c.RequestID, pc: e.AddPriced(c), c: *c})
		}
		for range b.Rejected {
			e.Reject()
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	return e, rows
}

// TestAPIPricedCalls: each call's outcome, period, version and cost.
func TestAPIPricedCalls(t *testing.T) {
	_, rows := priceFile(t, apiCatalog(t), pricing.Options{}, apiCalls)
	want := []struct {
		id        string
		outcome   pricing.Outcome
		period    string
		effective time.Time // of the version that priced it
		cost      string
	}{
		{"c1", pricing.Priced, "peak", oct1, "1.20"},    // 1M × 0.40 + 0.5M × 1.60
		{"c2", pricing.Priced, "offpeak", oct1, "0.40"}, // 13:00 is past the window: 2M × 0.20
		{"c3", pricing.Priced, "offpeak", oct1, "0.30"}, // a Saturday: 0.5M × 0.20 + 0.25M × 0.80
		{"c4", pricing.Priced, "peak", oct20, "1.00"},   // after the cut: 1M × 0.20 + 1M × 0.80
		{"c5", pricing.Unpriced, "", time.Time{}, "0"},  // no tariff knows mystery-model
		{"c1", pricing.Duplicate, "", time.Time{}, "0"}, // read before
		{"c7", pricing.Failed, "", time.Time{}, "0"},    // failed: not priced
	}
	if len(rows) != len(want) {
		t.Fatalf("read %d calls, want %d", len(rows), len(want))
	}
	for i, w := range want {
		got := rows[i]
		if got.id != w.id || got.pc.Outcome != w.outcome {
			t.Errorf("call %d: %s %v, want %s %v", i, got.id, got.pc.Outcome, w.id, w.outcome)
			continue
		}
		if w.outcome != pricing.Priced {
			continue
		}
		if p := got.pc.Quote.PeriodName(); p != w.period {
			t.Errorf("%s: period %q, want %q", w.id, p, w.period)
		}
		if v := got.pc.Quote.Version; v == nil || !v.Effective.Equal(w.effective) {
			t.Errorf("%s: version %+v, want the one effective %s", w.id, v, w.effective)
		}
		if _, cost := got.pc.Cost(&got.c); !cost.Equal(dec(w.cost)) {
			t.Errorf("%s: cost %s, want %s", w.id, cost, w.cost)
		}
	}
}

// TestAPIReconcile: the rows, the totals and the groups by team.
func TestAPIReconcile(t *testing.T) {
	e, _ := priceFile(t, apiCatalog(t), pricing.Options{Dims: []pricing.Dim{pricing.DimTeam}}, apiCalls)
	rec := e.Reconcile()
	wantRows := pricing.Rows{Read: 7, Priced: 4, Unpriced: 1, Failed: 1, Duplicate: 1}
	if rec.Rows != wantRows {
		t.Errorf("rows %+v, want %+v", rec.Rows, wantRows)
	}
	// Calls: every call but the duplicate. Recorded: 0.70 + 0.40 + 0.30 +
	// 0.60 + 0.05 (the unpriced c5). Ratio 2.05 / 2.90 = 0.7068965… to 6
	// places.
	tot := rec.Totals
	if tot.Calls != 6 || !tot.Official.Equal(dec("2.90")) || !tot.Recorded.Equal(dec("2.05")) ||
		!tot.Gap.Equal(dec("0.85")) || !tot.Ratio.Valid || !tot.Ratio.Decimal.Equal(dec("0.706897")) {
		t.Errorf("totals %+v, want 6 calls, official 2.90, recorded 2.05, gap 0.85, ratio 0.706897", tot)
	}
	if !slices.Equal(rec.Currencies, []string{"USD"}) {
		t.Errorf("currencies %v, want [USD]", rec.Currencies)
	}
	want := []struct {
		team                    string
		calls, priced           int64
		official, recorded, gap string
	}{
		{"alpha", 3, 2, "1.60", "1.10", "0.50"}, // c1, c2 and the failed c7
		{"beta", 3, 2, "1.30", "0.95", "0.35"},  // c3, c4 and the unpriced c5
	}
	gs := groupsOf(t, rec)
	if len(gs) != len(want) {
		t.Fatalf("%d groups, want %d: %+v", len(gs), len(want), gs)
	}
	for i, w := range want {
		g := gs[i]
		if g.Key.Team != w.team || g.Calls != w.calls || g.PricedCalls != w.priced ||
			!g.Official.Equal(dec(w.official)) || !g.Recorded.Equal(dec(w.recorded)) || !g.Gap.Equal(dec(w.gap)) {
			t.Errorf("group %d: %s calls %d priced %d official %s recorded %s gap %s, want %+v",
				i, g.Key.Team, g.Calls, g.PricedCalls, g.Official, g.Recorded, g.Gap, w)
		}
	}
	sum := decimal.Zero
	for _, x := range rec.Explanations {
		sum = sum.Add(x.Amount)
	}
	if !sum.Equal(tot.Gap) {
		t.Errorf("explanations add up to %s, want the gap %s: %+v", sum, tot.Gap, rec.Explanations)
	}
}

// TestAPIOptions: a window, a tariff instant and a rollup change what is
// priced as the options say.
func TestAPIOptions(t *testing.T) {
	byTeam := []pricing.Dim{pricing.DimTeam}
	tests := []struct {
		name     string
		opts     pricing.Options
		priced   int64
		official string
	}{
		// Only c4 is billed from 2026-10-20 on: 1.00.
		{"since the cut", pricing.Options{Since: oct20, Until: nov1}, 1, "1.00"},
		// Only c1, c2 and c3 before it: 1.20 + 0.40 + 0.30.
		{"until the cut", pricing.Options{Since: oct1, Until: oct20}, 3, "1.90"},
		// Every call at the cut's prices, each in its own period: c1
		// 0.20 + 0.40, c2 0.20, c3 0.05 + 0.10, c4 1.00.
		{"at the cut's tariff", pricing.Options{TariffAt: oct20}, 4, "1.95"},
		{"by team", pricing.Options{Dims: byTeam}, 4, "2.90"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := priceFile(t, apiCatalog(t), tt.opts, apiCalls)
			rec := e.Reconcile()
			if rec.Rows.Priced != tt.priced || !rec.Totals.Official.Equal(dec(tt.official)) {
				t.Errorf("priced %d, official %s; want %d, %s", rec.Rows.Priced, rec.Totals.Official, tt.priced, tt.official)
			}
			if r := rec.Rows; r.Read != r.Priced+r.Unpriced+r.Retired+r.Failed+r.Duplicate+r.Rejected+r.Outside+r.CacheHit {
				t.Errorf("rows %+v do not add up to the %d read", r, r.Read)
			}
			all := e.Rollup(nil).Reconcile().Totals
			if !all.Official.Equal(rec.Totals.Official) || !all.Recorded.Equal(rec.Totals.Recorded) || all.Calls != rec.Totals.Calls {
				t.Errorf("rolled up to no dimension: %+v, want the totals %+v", all, rec.Totals)
			}
		})
	}
}

// TestAPIBlend: the per-model blend of October, each price the official
// cost of its usage over its tokens, rounded half away from zero to
// pricing.BlendPlaces places.
func TestAPIBlend(t *testing.T) {
	e, _ := priceFile(t, apiCatalog(t), pricing.Options{}, apiCalls)
	b := e.BlendWindow(oct1, nov1, pricing.ModePerModel)
	if len(b.Models) != 1 || b.Models[0].Model != "deepseek-flash" {
		t.Fatalf("models %+v, want deepseek-flash alone", b.Models)
	}
	m := b.Models[0]
	// Input: c1 1M at 0.40, c2 2M at 0.20, c3 0.5M at 0.20, c4 1M at 0.20:
	// 4.5M for 1.10, 0.2444…, and 4.5M × 0.244444444 = 1.099999998.
	// Output: c1 0.5M at 1.60, c3 0.25M at 0.80, c4 1M at 0.80: 1.75M for
	// 1.80, 1.0285714285…, and 1.75M × 1.028571429 = 1.80000000075.
	want := []struct {
		usage                        tariffs.Usage
		tokens                       int64
		low, high, blended, official string
	}{
		{tariffs.Input, 4_500_000, "0.20", "0.40", "0.244444444", "1.10"},
		{tariffs.Output, 1_750_000, "0.80", "1.60", "1.028571429", "1.80"},
	}
	if m.Calls != 4 || !m.Official.Equal(dec("2.90")) || !m.AtBlended.Equal(dec("2.89999999875")) {
		t.Errorf("calls %d, official %s, at blended %s; want 4, 2.90, 2.89999999875", m.Calls, m.Official, m.AtBlended)
	}
	if len(m.Prices) != len(want) {
		t.Fatalf("prices %+v, want input and output", m.Prices)
	}
	for i, w := range want {
		p := m.Prices[i]
		if p.Usage != w.usage || p.Tokens != w.tokens || !p.OffPeak.Equal(dec(w.low)) || !p.Peak.Equal(dec(w.high)) ||
			!p.Blended.Equal(dec(w.blended)) || !p.Official.Equal(dec(w.official)) {
			t.Errorf("%v: tokens %d, range %s to %s, blended %s, official %s; want %+v",
				p.Usage, p.Tokens, p.OffPeak, p.Peak, p.Blended, p.Official, w)
		}
	}
}

// TestAPIChargeback: each team's official cost, what it recorded, and
// what the month's blended prices (TestAPIBlend) would charge it.
func TestAPIChargeback(t *testing.T) {
	e, _ := priceFile(t, apiCatalog(t), pricing.Options{Dims: []pricing.Dim{pricing.DimTeam}}, apiCalls)
	cb, err := e.Chargeback(oct1, nov1, nil)
	if err != nil {
		t.Fatal(err)
	}
	gw := cb.Gateway
	if !gw.Official.Equal(dec("2.90")) || !gw.Recorded.Equal(dec("2.05")) || !gw.Diff.Equal(dec("0.85")) {
		t.Errorf("gateway: official %s, recorded %s, diff %s; want 2.90, 2.05, 0.85", gw.Official, gw.Recorded, gw.Diff)
	}
	// alpha: 3M input × 0.244444444 + 0.5M output × 1.028571429
	//        = 0.733333332 + 0.5142857145 = 1.2476190465
	// beta:  1.5M input × 0.244444444 + 1.25M output × 1.028571429
	//        = 0.366666666 + 1.28571428625 = 1.65238095225
	want := []struct {
		team                                   string
		official, recorded, atBlended, subsidy string
	}{
		{"alpha", "1.60", "1.10", "1.2476190465", "-0.3523809535"}, // dearest first; peak work, subsidised
		{"beta", "1.30", "0.95", "1.65238095225", "0.35238095225"},
	}
	lines := linesOf(t, cb)
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(lines), len(want), lines)
	}
	subsidies := decimal.Zero
	for i, w := range want {
		l := lines[i]
		if l.Key.Team != w.team || !l.Official.Equal(dec(w.official)) || !l.Recorded.Equal(dec(w.recorded)) ||
			!l.AtBlended.Equal(dec(w.atBlended)) || !l.Subsidy.Equal(dec(w.subsidy)) {
			t.Errorf("line %d: %s official %s recorded %s at blended %s subsidy %s, want %+v",
				i, l.Key.Team, l.Official, l.Recorded, l.AtBlended, l.Subsidy, w)
		}
		subsidies = subsidies.Add(l.Subsidy)
	}
	// The subsidies add up to the blend's rounding: 2.89999999875 − 2.90.
	if !subsidies.Equal(dec("-0.00000000125")) {
		t.Errorf("subsidies add up to %s, want -0.00000000125", subsidies)
	}
	kept, err := e.Chargeback(oct1, nov1, func(l *pricing.ChargebackLine) bool { return l.Key.Team == "beta" })
	if err != nil {
		t.Fatal(err)
	}
	if ls := linesOf(t, kept); len(ls) != 1 || ls[0].Key.Team != "beta" || !kept.Gateway.Official.Equal(dec("2.90")) {
		t.Errorf("keeping beta: lines %+v, gateway official %s; want beta alone, the gateway whole (2.90)", ls, kept.Gateway.Official)
	}
}

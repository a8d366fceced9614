package pricing

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestRollupEqualsDirect checks that an engine grouped by every month
// dimension, rolled up, gives exactly what an engine grouped by fewer
// dimensions gives on the same calls.
func TestRollupEqualsDirect(t *testing.T) {
	cat := testCatalog(t)
	shanghai := zone(t, "Asia/Shanghai")
	rng := rand.New(rand.NewPCG(3, 5))
	calls := randomCalls(rng, 3000)
	for i := range calls {
		calls[i].Team = fmt.Sprintf("t%d", i%3)
		calls[i].User = fmt.Sprintf("u%d", i%4)
		calls[i].ModelGroup = "g" + calls[i].Model
		calls[i].KeyAlias = "alias-" + calls[i].Key
	}
	all := New(cat, Options{Dims: MonthDims, Zone: shanghai})
	for i := range calls {
		all.AddPriced(&calls[i])
	}
	hours := New(cat, Options{Dims: []Dim{DimModel, DimHour}, Zone: shanghai})
	for i := range calls {
		hours.AddPriced(&calls[i])
	}
	t.Run("days from hours", func(t *testing.T) {
		direct := New(cat, Options{Dims: []Dim{DimDay}, Zone: shanghai})
		for i := range calls {
			direct.AddPriced(&calls[i])
		}
		want, _ := json.Marshal(direct.Reconcile())
		got, _ := json.Marshal(hours.Rollup([]Dim{DimDay}).Reconcile())
		if string(got) != string(want) {
			t.Errorf("rolled up:\n%s\ndirect:\n%s", got, want)
		}
	})
	for _, dims := range [][]Dim{{DimModel}, {DimDay}, {DimKey, DimTeam, DimUser}, {DimModel, DimDay}, {DimModel, DimGroup}, {}} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			direct := New(cat, Options{Dims: dims, Zone: shanghai})
			for i := range calls {
				direct.AddPriced(&calls[i])
			}
			want, _ := json.Marshal(direct.Reconcile())
			got, _ := json.Marshal(all.Rollup(dims).Reconcile())
			if string(got) != string(want) {
				t.Errorf("rolled up:\n%s\ndirect:\n%s", got, want)
			}
		})
	}
}

func TestApportion(t *testing.T) {
	tests := []struct {
		name    string
		total   string
		weights []string
		want    []string
	}{
		// 0.001 × 0.0003/0.00117 = 0.000256410256|41..., 0.001 × 0.00003/0.00117
		// = 0.000025641025|64... (rounds up), the last takes 0.001 − both.
		{"thirds of a sub-cent spend", "0.001", []string{"0.0003", "0.00003", "0.00084"},
			[]string{"0.000256410256", "0.000025641026", "0.000717948718"}},
		{"zero weights before the last", "5", []string{"0", "2", "0"}, []string{"0", "5", "0"}},
		{"no weight: the first takes it all", "1.5", []string{"0", "0"}, []string{"1.5", "0"}},
		// 1/3 at 14 places (total has 14): 0.00000000000033 and the rest.
		{"total finer than twelve places", "0.00000000000100", []string{"1", "2"}, []string{"0.00000000000033", "0.00000000000067"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ws []decimal.Decimal
			for _, w := range tt.weights {
				ws = append(ws, dec(w))
			}
			got := Apportion(dec(tt.total), ws)
			sum := decimal.Zero
			for i := range got {
				sum = sum.Add(got[i])
				if !got[i].Equal(dec(tt.want[i])) {
					t.Errorf("part %d = %s, want %s", i, got[i], tt.want[i])
				}
			}
			if !sum.Equal(dec(tt.total)) {
				t.Errorf("parts add up to %s, want %s", sum, tt.total)
			}
		})
	}
}

// TestCharges prices two peak calls by hand, one of them in the prompt-size
// tier, and one off-peak call.
func TestCharges(t *testing.T) {
	cat := testCatalog(t)
	e := New(cat, Options{Dims: MonthDims})
	// Tuesday 2026-09-01 10:00 in Shanghai: peak. 1000 input × 0.30 +
	// 5000 cache reads × 0.006 + 700 output × 1.20 per 1M = 0.0003 +
	// 0.00003 + 0.00084 = 0.00117.
	a := call("a", "flash", "2026-09-01T02:00:00Z", 1000, 5000, 700)
	a.Recorded = ledger.AmountOf(dec("0.001"))
	// Same hour, a 200000-token prompt: tier 1 (above 128000), peak input
	// 0.60 and output 2.40: 200000 × 0.60 = 0.12, 100 × 2.40 = 0.00024.
	b := call("b", "flash", "2026-09-01T02:10:00Z", 200000, 0, 100)
	b.Recorded = ledger.AmountOf(dec("0.05"))
	// Saturday 2026-09-05: off-peak. 2000 × 0.15 + 1000 × 0.60 = 0.0003 + 0.0006.
	c := call("c", "flash", "2026-09-05T02:00:00Z", 2000, 0, 1000)
	c.Recorded = ledger.AmountOf(dec("0.0009"))
	e.AddPriced(&a)
	e.AddPriced(&b)
	e.AddPriced(&c)
	got := collectCharges(t, e)
	type row struct {
		day, period      string
		tier             int
		usage            tariffs.Usage
		qty              int64
		price, cost, rec string
		peak             bool
	}
	want := []row{
		{"2026-09-01", "peak", 0, tariffs.Input, 1000, "0.30", "0.0003", "0.000256410256", true},
		{"2026-09-01", "peak", 0, tariffs.CacheRead, 5000, "0.006", "0.00003", "0.000025641026", true},
		{"2026-09-01", "peak", 0, tariffs.Output, 700, "1.20", "0.00084", "0.000717948718", true},
		// 0.05 × 0.12/0.12024 = 0.049900199600|798... and the rest.
		{"2026-09-01", "peak", 1, tariffs.Input, 200000, "0.60", "0.12", "0.049900199601", true},
		{"2026-09-01", "peak", 1, tariffs.Output, 100, "2.40", "0.00024", "0.000099800399", true},
		// 0.0009 × 0.0003/0.0009 = 0.0003, and 0.0006.
		{"2026-09-05", "offpeak", 0, tariffs.Input, 2000, "0.15", "0.0003", "0.0003", false},
		{"2026-09-05", "offpeak", 0, tariffs.Output, 1000, "0.60", "0.0006", "0.0006", false},
	}
	if len(got) != len(want) {
		t.Fatalf("%d charges, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Start.Format(time.DateOnly) != w.day || g.Period != w.period || g.Tier != w.tier || g.Usage != w.usage ||
			g.Quantity != w.qty || !g.UnitPrice.Equal(dec(w.price)) || !g.Cost.Equal(dec(w.cost)) ||
			!g.Recorded.Equal(dec(w.rec)) || g.Peak != w.peak {
			t.Errorf("charge %d = %s %s tier %d %s %d × %s = %s rec %s peak %v, want %+v", i, g.Start.Format(time.DateOnly),
				g.Period, g.Tier, g.Usage, g.Quantity, g.UnitPrice, g.Cost, g.Recorded, g.Peak, w)
		}
		if !g.End.Equal(g.Start.AddDate(0, 0, 1)) {
			t.Errorf("charge %d: ends %s, want a day after %s", i, g.End, g.Start)
		}
	}
}

// TestChargesOfCallsWithoutTokens keeps a group of priced calls that have
// no billable quantity: its calls and recorded spend are still charged
// (at no cost), so that the charges' recorded spend adds up to the priced
// calls'.
func TestChargesOfCallsWithoutTokens(t *testing.T) {
	cat := testCatalog(t)
	e := New(cat, Options{Dims: MonthDims})
	// Tuesday 2026-09-01 10:00 in Shanghai, peak: 1000 input × 0.30 per 1M
	// = 0.0003, recorded 0.001.
	a := call("a", "flash", "2026-09-01T02:00:00Z", 1000, 0, 0)
	a.Recorded = ledger.AmountOf(dec("0.001"))
	// The next day, a call the gateway logged with no tokens and recorded
	// 0.0002 on: no cost, its own group.
	z := call("z", "flash", "2026-09-02T02:00:00Z", 0, 0, 0)
	z.Recorded = ledger.AmountOf(dec("0.0002"))
	e.AddPriced(&a)
	e.AddPriced(&z)
	got := collectCharges(t, e)
	if len(got) != 2 {
		t.Fatalf("%d charges, want 2 (a's input, z's empty one): %+v", len(got), got)
	}
	recorded, calls := decimal.Zero, int64(0)
	for _, c := range got {
		recorded = recorded.Add(c.Recorded)
		calls += c.Calls
	}
	// 0.001 + 0.0002 = 0.0012 over the two calls.
	if !recorded.Equal(dec("0.0012")) || calls != 2 {
		t.Errorf("charges hold recorded %s over %d calls, want 0.0012 over 2", recorded, calls)
	}
	c := got[1]
	if c.Start.Format(time.DateOnly) != "2026-09-02" || c.Usage != tariffs.Input || c.Quantity != 0 || !c.Cost.IsZero() ||
		!c.UnitPrice.Equal(dec("0.30")) || !c.Recorded.Equal(dec("0.0002")) || c.Calls != 1 {
		t.Errorf("empty charge = %s %s %d × %s = %s rec %s calls %d, want 2026-09-02 input 0 × 0.30 = 0 rec 0.0002 calls 1",
			c.Start.Format(time.DateOnly), c.Usage, c.Quantity, c.UnitPrice, c.Cost, c.Recorded, c.Calls)
	}
}

// TestChargesAddUpToReconcile: the calls that are not priced are charges
// of no cost too, so that the charges add up to the reconciliation's
// calls, tokens and recorded spend; worked by hand.
func TestChargesAddUpToReconcile(t *testing.T) {
	cat := testCatalog(t)
	e := New(cat, Options{Dims: MonthDims})
	rec := func(c ledger.Call, spend string) ledger.Call {
		c.Recorded = ledger.AmountOf(dec(spend))
		return c
	}
	// Priced, peak (Tuesday 10:00 in Shanghai): 1000 × 0.30 + 100 × 1.20
	// per 1M = 0.00042; recorded 0.0004. Its 300 1-hour cache writes have
	// no price in the tariff: a charge of no cost that counts them.
	priced := rec(call("p", "flash", "2026-09-01T02:00:00Z", 1000, 0, 100), "0.0004")
	priced.Tokens.CacheWrite1h = 300
	// No tariff knows gpt-9: 500 input, 50 output (20 of them reasoning),
	// recorded 0.003.
	unpriced := rec(call("u", "gpt-9", "2026-09-01T03:00:00Z", 500, 0, 50), "0.003")
	unpriced.Tokens.Reasoning = 20
	// A failed call with spend, no tokens: 0.0007.
	failed := rec(call("f", "flash", "2026-09-01T04:00:00Z", 0, 0, 0), "0.0007")
	failed.Status = ledger.StatusFailure
	calls := []ledger.Call{priced, unpriced, failed, priced} // p logged twice
	for i := range calls {
		e.AddPriced(&calls[i])
	}
	got := collectCharges(t, e)
	type row struct {
		outcome Outcome
		name    string
		usage   tariffs.Usage
		qty     int64
		counted int64
		cost    string
		rec     string
	}
	// By model name, then outcome: flash priced (input 0.0003 and output
	// 0.00012; recorded 0.0004 split 0.0004 × 0.0003/0.00042 =
	// 0.000285714286 and the rest 0.000114285714), flash failed, then
	// gpt-9 unpriced (input 500, output 50 with the reasoning in it). The
	// second p is the same call read again: no charge.
	want := []row{
		{Priced, "flash", tariffs.Input, 1000, 1, "0.0003", "0.000285714286"},
		{Priced, "flash", tariffs.Output, 100, 0, "0.00012", "0.000114285714"},
		{Priced, "flash", tariffs.CacheWrite1h, 300, 0, "0", "0"},
		{Failed, "flash", tariffs.Input, 0, 1, "0", "0.0007"},
		{Unpriced, "gpt-9", tariffs.Input, 500, 1, "0", "0.003"},
		{Unpriced, "gpt-9", tariffs.Output, 50, 0, "0", "0"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d charges, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Outcome != w.outcome || g.Name != w.name || g.Usage != w.usage || g.Quantity != w.qty || g.Counted != w.counted ||
			!g.Cost.Equal(dec(w.cost)) || !g.Recorded.Equal(dec(w.rec)) {
			t.Errorf("charge %d = %s %s %s %d counted %d cost %s rec %s, want %+v", i, g.Outcome, g.Name, g.Usage, g.Quantity,
				g.Counted, g.Cost, g.Recorded, w)
		}
	}
	if !got[2].NoPrice || got[0].NoPrice {
		t.Errorf("NoPrice: %v on the 1-hour writes, %v on input; want true, false", got[2].NoPrice, got[0].NoPrice)
	}
	if got[5].Model != nil || got[5].Currency != "USD" || got[5].Version != nil {
		t.Errorf("unpriced charge: model %v, currency %q, version %v; want none, the priced calls' USD, none", got[5].Model, got[5].Currency, got[5].Version)
	}
	// The reconciliation: 3 calls, 1500 input, 150 output, recorded 0.0004 +
	// 0.003 + 0.0007 + 0.0004 = 0.0045, official 0.00042.
	r := e.Reconcile()
	var counted, input, output int64
	recorded, official := decimal.Zero, decimal.Zero
	for _, c := range got {
		counted += c.Counted
		recorded, official = recorded.Add(c.Recorded), official.Add(c.Cost)
		switch c.Usage {
		case tariffs.Input:
			input += c.Quantity
		case tariffs.Output, tariffs.Reasoning:
			output += c.Quantity
		}
	}
	var tokens TokenCounts
	var writes1h int64
	for _, c := range got {
		if c.Usage == tariffs.CacheWrite1h {
			writes1h += c.Quantity
		}
	}
	for _, g := range r.groups {
		tokens.Input += g.Tokens.Input
		tokens.Output += g.Tokens.Output
		tokens.CacheWrite1h += g.Tokens.CacheWrite1h
	}
	if writes1h != 300 || tokens.CacheWrite1h != 300 {
		t.Errorf("1-hour cache writes: charges %d, reconcile %d; want 300", writes1h, tokens.CacheWrite1h)
	}
	if counted != 3 || r.Totals.Calls != 3 || input != tokens.Input || output != tokens.Output || input != 1500 || output != 150 ||
		!recorded.Equal(dec("0.0041")) || !r.Totals.Recorded.Equal(recorded) || !official.Equal(r.Totals.Official) {
		t.Errorf("charges: %d calls, %d input, %d output, recorded %s, official %s; reconcile %d calls, %+v, recorded %s, official %s; want 3, 1500, 150, 0.0041 (0.0004 + 0.003 + 0.0007)",
			counted, input, output, recorded, official, r.Totals.Calls, tokens, r.Totals.Recorded, r.Totals.Official)
	}
}

package pricing

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestAggregateBoundaries: the test tariff's peak version switches at
// whole local hours of Shanghai; its 2025 nightly version at 16:30 and
// 00:30 UTC. Boundaries hold each switch, the window's edges and, grouped
// by day, each local midnight.
func TestAggregateBoundaries(t *testing.T) {
	cat := testCatalog(t)
	shanghai := zone(t, "Asia/Shanghai")
	nightly := AggregateBoundaries(cat, Options{}, at("2025-03-03T12:00:00Z"), at("2025-03-04T12:00:00Z"))
	for _, want := range []string{"2025-03-03T16:30:00Z", "2025-03-04T00:30:00Z"} {
		if !slices.ContainsFunc(nightly, func(b time.Time) bool { return b.Equal(at(want)) }) {
			t.Errorf("boundaries %v lack the switch at %s", nightly, want)
		}
	}
	byDay := AggregateBoundaries(cat, Options{Dims: []Dim{DimDay}, Zone: shanghai, Since: at("2025-03-03T13:00:00Z"), Until: at("2026-01-01T00:00:00Z")},
		at("2025-03-03T12:00:00Z"), at("2025-03-04T12:00:00Z"))
	// Shanghai's midnight of 4 March is 16:00 UTC on the 3rd.
	for _, want := range []string{"2025-03-03T13:00:00Z", "2025-03-03T16:00:00Z", "2025-03-03T16:30:00Z"} {
		if !slices.ContainsFunc(byDay, func(b time.Time) bool { return b.Equal(at(want)) }) {
			t.Errorf("boundaries by day %v lack %s", byDay, want)
		}
	}
	if !slices.IsSortedFunc(byDay, func(a, b time.Time) int { return a.Compare(b) }) || len(slices.Compact(byDay)) != len(byDay) {
		t.Errorf("boundaries by day %v are not ascending and unique", byDay)
	}
	byHour := AggregateBoundaries(cat, Options{Dims: []Dim{DimHour}}, at("2025-03-03T12:00:00Z"), at("2025-03-03T18:00:00Z"))
	// 13:00 through 17:00 start hours, 16:30 is the switch.
	if len(byHour) != 6 {
		t.Errorf("boundaries by hour over six hours: %v, want 6", byHour)
	}
}

// TestAddAggregate prices an hour of summed calls like the calls
// themselves, and refuses an hour a tariff boundary cuts.
func TestAddAggregate(t *testing.T) {
	cat := testCatalog(t)
	rows, sums := New(cat, Options{Dims: []Dim{DimKey}}), New(cat, Options{Dims: []Dim{DimKey}})
	// Two peak calls of flash in the hour from 02:00 UTC (10:00 Shanghai).
	a, b := call("a", "flash", "2026-09-01T02:10:00Z", 1000, 200, 50), call("b", "flash", "2026-09-01T02:50:00Z", 3000, 0, 70)
	a.Recorded, b.Recorded = ledger.AmountOf(dec("0.001")), ledger.AmountOf(dec("0.002"))
	rows.AddPriced(&a)
	rows.AddPriced(&b)
	g := ledger.Aggregate{Gateway: ledger.LiteLLM, First: a.End, Last: b.End, Model: "flash",
		Key: "k1", Calls: 2, Recorded: dec("0.003"),
		Tokens: ledger.Tokens{Input: 4000, CacheRead: 200, Output: 120}}
	if err := sums.AddAggregate(&g, tariffs.BillEnd); err != nil {
		t.Fatal(err)
	}
	got, want := sums.Reconcile(), rows.Reconcile()
	// 4000 input at 0.30 + 200 cache reads at 0.006 + 120 output at 1.20,
	// per 1M: 0.0012 + 0.0000012 + 0.000144 = 0.0013452.
	if !got.Totals.Official.Equal(want.Totals.Official) || !got.Totals.Official.Equal(dec("0.0013452")) ||
		!got.Totals.Recorded.Equal(want.Totals.Recorded) || got.Rows != want.Rows {
		t.Errorf("summed: %s official, %s recorded, %+v; calls: %s, %s, %+v", got.Totals.Official, got.Totals.Recorded, got.Rows,
			want.Totals.Official, want.Totals.Recorded, want.Rows)
	}
	// The 2025 nightly version of old-model turns off-peak at 16:30 UTC,
	// between calls at 16:10 and 16:50; a second before the switch is
	// still one quote.
	cut := ledger.Aggregate{Gateway: ledger.LiteLLM, First: at("2025-03-03T16:10:00Z"), Last: at("2025-03-03T16:50:00Z"),
		Model: "old-model", Calls: 2, Recorded: decimal.Zero}
	if err := sums.AddAggregate(&cut, tariffs.BillEnd); !errors.Is(err, ErrNotExact) {
		t.Errorf("calls on both sides of a boundary: err = %v, want ErrNotExact", err)
	}
	cut.Last = at("2025-03-03T16:29:59Z")
	if err := sums.AddAggregate(&cut, tariffs.BillEnd); err != nil {
		t.Errorf("calls before a boundary: %v", err)
	}
	// The window's edge between the first and last call.
	edged := New(cat, Options{Since: at("2026-09-01T02:30:00Z")})
	if err := edged.AddAggregate(&g, tariffs.BillEnd); !errors.Is(err, ErrNotExact) {
		t.Errorf("calls on both sides of the window's edge: err = %v, want ErrNotExact", err)
	}
	// Wholly before the window: counted outside, priced nowhere.
	before := New(cat, Options{Since: at("2026-09-02T00:00:00Z")})
	if err := before.AddAggregate(&g, tariffs.BillEnd); err != nil || before.Rows().Outside != 2 {
		t.Errorf("calls before the window: %v, rows %+v, want 2 outside", err, before.Rows())
	}
	// Grouped by hour, the calls share the hour from 02:00 UTC; by hour
	// in Kathmandu (UTC+5:45), 02:10 and 02:50 UTC are 07:55 and 08:35.
	kathmandu := zone(t, "Asia/Kathmandu")
	if err := New(cat, Options{Dims: []Dim{DimHour}}).AddAggregate(&g, tariffs.BillEnd); err != nil {
		t.Errorf("one UTC hour: %v", err)
	}
	if err := New(cat, Options{Dims: []Dim{DimHour}, Zone: kathmandu}).AddAggregate(&g, tariffs.BillEnd); !errors.Is(err, ErrNotExact) {
		t.Errorf("two hours of Kathmandu: err = %v, want ErrNotExact", err)
	}
	if err := sums.AddAggregate(&g, tariffs.BillStart); !errors.Is(err, ErrNotExact) {
		t.Errorf("summed by start for a tariff billed by end: err = %v, want ErrNotExact", err)
	}
}

// TestAddSummed: calls summed with the outcome they had when read count
// as AddPriced counts each: a duplicate adds its calls and the spend
// recorded again, no tokens; a cache hit stays one, its tokens kept as
// cache-hit tokens; an overlap counts its rows only; a priced call, or
// one unpriced when read, is priced at the catalog.
func TestAddSummed(t *testing.T) {
	cat := testCatalog(t)
	// Two peak calls of flash at 10:10 and 10:50 Shanghai: 4000 input,
	// 200 cache reads, 120 output.
	g := ledger.Aggregate{Gateway: ledger.LiteLLM, First: at("2026-09-01T02:10:00Z"), Last: at("2026-09-01T02:50:00Z"), Model: "flash",
		Calls: 2, Recorded: dec("0.003"), Tokens: ledger.Tokens{Input: 4000, CacheRead: 200, Output: 120}}
	tests := []struct {
		name     string
		read     Outcome
		rows     Rows
		official string // 4000 × 0.30 + 200 × 0.006 + 120 × 1.20 per 1M
		recorded string
		tokens   int64
	}{
		{name: "priced", read: Priced, rows: Rows{Read: 2, Priced: 2}, official: "0.0013452", recorded: "0.003", tokens: 4320},
		{name: "unpriced when read, priced now", read: Unpriced, rows: Rows{Read: 2, Priced: 2}, official: "0.0013452", recorded: "0.003", tokens: 4320},
		{name: "duplicates", read: Duplicate, rows: Rows{Read: 2, Duplicate: 2}, official: "0", recorded: "0", tokens: 0},
		{name: "cache hits", read: CacheHit, rows: Rows{Read: 2, CacheHit: 2}, official: "0", recorded: "0.003", tokens: 4320},
		{name: "overlaps", read: Overlap, rows: Rows{Read: 2, Duplicate: 2}, official: "0", recorded: "0", tokens: 0},
		{name: "failed", read: Failed, rows: Rows{Read: 2, Failed: 2}, official: "0", recorded: "0.003", tokens: 4320},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(cat, Options{})
			a := g
			if err := e.AddSummed(&a, tariffs.BillEnd, tt.read); err != nil {
				t.Fatal(err)
			}
			r := e.Reconcile()
			var tokens int64
			for _, grp := range r.groups {
				tokens += grp.Tokens.Total() + grp.CacheHitTokens
			}
			if r.Rows != tt.rows || !r.Totals.Official.Equal(dec(tt.official)) || !r.Totals.Recorded.Equal(dec(tt.recorded)) || tokens != tt.tokens {
				t.Errorf("rows %+v official %s recorded %s tokens %d; want %+v %s %s %d", r.Rows, r.Totals.Official, r.Totals.Recorded, tokens,
					tt.rows, tt.official, tt.recorded, tt.tokens)
			}
		})
	}
}

package pricing

import (
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestAggregateSpan: the test tariff's peak version switches at whole
// local hours of Shanghai (whole UTC hours); its 2025 nightly version at
// 16:30 and 00:30 UTC.
func TestAggregateSpan(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		name        string
		from, until string
		want        time.Duration
	}{
		{"peak windows on whole hours", "2026-09-01T00:00:00Z", "2026-10-01T00:00:00Z", time.Hour},
		{"nightly window at half past", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z", time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AggregateSpan(cat, at(tt.from), at(tt.until)); got != tt.want {
				t.Errorf("span = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestAddAggregate prices an hour of summed calls like the calls
// themselves, and refuses an hour a tariff boundary cuts.
func TestAddAggregate(t *testing.T) {
	cat := testCatalog(t)
	rows, sums := New(cat, Options{Dims: []Dim{DimKey}}), New(cat, Options{Dims: []Dim{DimKey}})
	// Two peak calls of flash in the hour from 02:00 UTC (10:00 Shanghai).
	a, b := call("a", "flash", "2026-09-01T02:10:00Z", 1000, 200, 50), call("b", "flash", "2026-09-01T02:50:00Z", 3000, 0, 70)
	a.Recorded, b.Recorded = dec("0.001"), dec("0.002")
	rows.AddPriced(&a)
	rows.AddPriced(&b)
	g := ledger.Aggregate{Gateway: ledger.LiteLLM, Start: at("2026-09-01T02:00:00Z"), Span: time.Hour, Model: "flash",
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
	// inside the hour from 16:00.
	cut := ledger.Aggregate{Gateway: ledger.LiteLLM, Start: at("2025-03-03T16:00:00Z"), Span: time.Hour, Model: "old-model", Calls: 1, Recorded: decimal.Zero}
	if err := sums.AddAggregate(&cut, tariffs.BillEnd); !errors.Is(err, ErrNotExact) {
		t.Errorf("an hour cut by a boundary: err = %v, want ErrNotExact", err)
	}
	if err := sums.AddAggregate(&g, tariffs.BillStart); !errors.Is(err, ErrNotExact) {
		t.Errorf("summed by start for a tariff billed by end: err = %v, want ErrNotExact", err)
	}
}

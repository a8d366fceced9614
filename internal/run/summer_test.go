package run

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/failures"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// sumsOnly is a summer that keeps no rows: it hands its groups and its
// rejected rows, and fails where told.
type sumsOnly struct {
	groups   []ledger.Summed
	rejected int64
	err      error
}

func (s *sumsOnly) Name() string { return "sums" }
func (s *sumsOnly) Open(context.Context) (ledger.Reader, error) {
	return nil, errors.New("no rows here")
}
func (s *sumsOnly) Identity(context.Context) (string, error) { return "sums", nil }
func (s *sumsOnly) KeepsRows() bool                          { return false }
func (s *sumsOnly) Sum(_ context.Context, _ ledger.SumOptions, to ledger.SumSink) (ledger.Reader, error) {
	for i := range s.groups {
		if err := to.Add(&s.groups[i]); err != nil {
			return nil, err
		}
	}
	to.Rejected(s.rejected)
	return nil, s.err
}

// TestSumsOnly runs over a summer that keeps no rows. The groups are one
// 1M-input-token call of gpt-4o (2.50 per 1M input tokens: 2.5 at the
// catalog), two failed calls of the upstream class in October, one of the
// gateway class in September (outside the window), three copies read
// before, and 4 rejected rows. The run sums whatever observes it, counts
// the failed calls of the window by class, and fails as the summer does
// where its sums are not exact, without reading rows.
func TestSumsOnly(t *testing.T) {
	oct := time.Date(2026, 10, 10, 9, 0, 0, 0, time.UTC)
	sep := time.Date(2026, 9, 10, 9, 0, 0, 0, time.UTC)
	group := func(at time.Time, calls int64, status ledger.Status, as ledger.SummedAs, class failures.Class) ledger.Summed {
		g := ledger.Summed{Aggregate: ledger.Aggregate{Gateway: ledger.LiteLLM, First: at, Last: at, Model: "gpt-4o", Host: "openai",
			Status: status, Calls: calls, Recorded: decimal.Zero, ZeroSpend: true}, BilledBy: tariffs.BillEnd, As: as}
		if status == ledger.StatusFailure {
			g.Failure, g.Classed = uint8(class), true
		}
		return g
	}
	priced := group(oct, 1, ledger.StatusSuccess, ledger.SummedNew, 0)
	priced.Tokens.Input = 1_000_000
	src := &sumsOnly{rejected: 4, groups: []ledger.Summed{
		priced,
		group(oct, 2, ledger.StatusFailure, ledger.SummedFailed, failures.Upstream),
		group(sep, 1, ledger.StatusFailure, ledger.SummedFailed, failures.Gateway),
		group(oct, 3, ledger.StatusSuccess, ledger.SummedDuplicate, 0),
	}}
	watch := pricing.ObserverFunc(func(*ledger.Call, *pricing.PricedCall) error { return nil })
	october := pricing.Options{Since: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	var tally failures.Tally
	res, err := Run(context.Background(), Input{Catalog: catalog(t), Options: october, Sources: []ledger.Source{src},
		Observers: []pricing.Observer{watch}, FailedCalls: &tally})
	if err != nil {
		t.Fatal(err)
	}
	want := pricing.Rows{Read: 11, Priced: 1, Failed: 2, Outside: 1, Duplicate: 3, Rejected: 4}
	if got := res.Engine.Rows(); got != want {
		t.Errorf("rows %+v, want %+v", got, want)
	}
	if tally.Calls[failures.Upstream] != 2 || tally.Calls[failures.Gateway] != 0 {
		t.Errorf("tally %v, want 2 upstream and no gateway failure", tally.Calls)
	}
	if got := res.Engine.Reconcile().Totals.Official; !got.Equal(decimal.RequireFromString("2.5")) {
		t.Errorf("official cost %s, want 2.5", got)
	}
	if len(res.PushedDown) != 1 || res.PushedDown[0].Name != "sums" || res.PushedDown[0].Rows != want {
		t.Errorf("pushed down %+v, want the one summer with every row", res.PushedDown)
	}
	res.Engine.Close()

	for _, tt := range []struct {
		name string
		src  *sumsOnly
		is   func(error) bool
	}{
		{"not exact", &sumsOnly{err: pricing.ErrNotExact}, func(err error) bool { return errors.Is(err, pricing.ErrNotExact) }},
		{"nothing priced", &sumsOnly{rejected: 2}, func(err error) bool {
			var np *NothingPricedError
			return errors.As(err, &np) && np.Reason() == AllRejected && np.Sources[0] == "sums"
		}},
	} {
		res, err := Run(context.Background(), Input{Catalog: catalog(t), Options: october, Sources: []ledger.Source{tt.src}})
		if !tt.is(err) {
			t.Errorf("%s: error %v", tt.name, err)
		}
		if res != nil {
			res.Engine.Close()
		}
	}
}

// TestMonthOverSums builds a report's month with the month before it to
// compare with from a summer that keeps no rows: 1 call of gpt-4o with 1M
// input tokens in October (2.50 per 1M: 2.5), 2 calls with 1M each in
// September (5). The month's engine prices October's call and counts
// September's outside; the compared month is filled from the sums, as no
// observer sees them.
func TestMonthOverSums(t *testing.T) {
	call := func(at time.Time, calls int64) ledger.Summed {
		return ledger.Summed{Aggregate: ledger.Aggregate{Gateway: ledger.LiteLLM, First: at, Last: at, Model: "gpt-4o", Host: "openai",
			Calls: calls, Tokens: ledger.Tokens{Input: calls * 1_000_000}, Recorded: decimal.Zero, ZeroSpend: true}, BilledBy: tariffs.BillEnd}
	}
	src := &sumsOnly{groups: []ledger.Summed{
		call(time.Date(2026, 10, 10, 9, 0, 0, 0, time.UTC), 1),
		call(time.Date(2026, 9, 10, 9, 0, 0, 0, time.UTC), 2),
	}}
	cat := catalog(t)
	month, err := NewMonth(cat, pricing.Options{Since: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Zone: time.UTC}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	month.Compare(time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC))
	res, err := Run(context.Background(), Input{Catalog: cat, Options: month.Options(), Sources: []ledger.Source{src}, Month: month})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Engine.Close()
	m := res.Month
	if got := m.Month.Reconciliation.Totals; got.Calls != 1 || !got.Official.Equal(decimal.RequireFromString("2.5")) {
		t.Errorf("the month: %d call(s), %s, want 1 call, 2.5", got.Calls, got.Official)
	}
	if m.Change == nil {
		t.Fatal("no month compared with")
	}
	if got := m.Change.Previous; got.Calls != 2 || !got.Official.Equal(decimal.RequireFromString("5")) {
		t.Errorf("the month compared with: %d call(s), %s, want 2 calls, 5", got.Calls, got.Official)
	}
	if m.ThreeWay != nil || m.Budgets != nil {
		t.Errorf("three-way %v and budgets %v, asked for neither", m.ThreeWay, m.Budgets)
	}
}

package run_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/spillfs"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// The tests of this file drive run's exported API as the command line
// does: a catalog loaded by tariffs, files as ledger sources, one Input,
// and the Result or the error. Their figures are worked by hand from
// testdata/api/tariff.yaml (deepseek-flash at input 0.50 and output 2.00
// per 1M tokens) and the files beside it:
//
//	october.csv   o1 1M in: 0.50 (recorded 0.50); o2 0.2M in, 0.1M out:
//	              0.10 + 0.20 = 0.30 (recorded 0.30); o3 an unknown model
//	              (recorded 0.01)
//	november.csv  n1 0.4M in, 0.5M out: 0.20 + 1.00 = 1.20 (recorded 1.00);
//	              n2 rejected (input_tokens "12x5", line 3); o1 again
//	unknown.csv   one call of an unknown model
const dir = "testdata/api/"

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func catalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	cat, problems := tariffs.Load(dir + "tariff.yaml")
	if cat == nil {
		t.Fatalf("load the tariff: %v", problems)
	}
	return cat
}

func sources(names ...string) []ledger.Source {
	out := make([]ledger.Source, len(names))
	for i, n := range names {
		out[i] = ledger.FileSource(dir+n, ledger.Options{})
	}
	return out
}

// closeEngine removes what the result's engine spilled, if anything.
func closeEngine(t *testing.T, res *run.Result) {
	t.Helper()
	t.Cleanup(func() {
		if err := res.Close(); err != nil {
			t.Error(err)
		}
	})
}

// TestAPIResultClose: a run whose engine spills at every new bucket, to a
// folder on disk; the reconciliation taken from it reads its groups
// (alpha 0.80, beta 1.20) after the result is closed, and the folder goes
// with the reconciliation's Close.
func TestAPIResultClose(t *testing.T) {
	tmp := t.TempDir()
	opts := pricing.Options{Dims: []pricing.Dim{pricing.DimTeam}, MaxGroups: 1,
		Runs: func() (pricing.RunStore, error) { return spillfs.New(tmp) }}
	res, err := run.Run(context.Background(), run.Input{Catalog: catalog(t), Options: opts, Sources: sources("october.csv", "november.csv")})
	closeEngine(t, res)
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Engine.Reconcile()
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 1 {
		t.Fatalf("%d folders of runs once the result is closed, want the reconciliation's one", len(left))
	}
	gs, err := pricing.Collect(rec.Groups())
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].Key.Team != "alpha" || !gs[0].Official.Equal(dec("0.80")) || gs[1].Key.Team != "beta" || !gs[1].Official.Equal(dec("1.20")) {
		t.Errorf("groups %+v, want alpha 0.80 and beta 1.20", gs)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d folders of runs left after the last Close, want none", len(left))
	}
}

// TestAPIRunSources: two files read in order against one duplicate set,
// each accounted for, the engine priced by team.
func TestAPIRunSources(t *testing.T) {
	var rejected []ledger.Rejection
	res, err := run.Run(context.Background(), run.Input{
		Catalog:    catalog(t),
		Options:    pricing.Options{Dims: []pricing.Dim{pricing.DimTeam}},
		Sources:    sources("october.csv", "november.csv"),
		OnRejected: func(r ledger.Rejection) { rejected = append(rejected, r) },
	})
	closeEngine(t, res)
	if err != nil {
		t.Fatal(err)
	}
	want := []run.SourceRows{
		{Name: dir + "october.csv", Format: "canonical-csv", Rows: pricing.Rows{Read: 3, Priced: 2, Unpriced: 1}},
		// o1 was read from october.csv: here it is an overlap, counted as
		// a duplicate.
		{Name: dir + "november.csv", Format: "canonical-csv", Rows: pricing.Rows{Read: 3, Priced: 1, Rejected: 1, Duplicate: 1}},
	}
	if !slices.Equal(res.Sources, want) {
		t.Errorf("sources:\n got %+v\nwant %+v", res.Sources, want)
	}
	if all := res.Engine.Rows(); all != want[0].Rows.Add(want[1].Rows) {
		t.Errorf("engine rows %+v, want the sources' sum", all)
	}
	if len(rejected) != 1 || rejected[0].File != dir+"november.csv" || rejected[0].Line != 3 || res.Listed != 1 || res.Unlisted != 0 {
		t.Errorf("rejected %+v (listed %d, unlisted %d), want november.csv line 3 alone", rejected, res.Listed, res.Unlisted)
	}
	if first, last := time.Date(2026, 10, 5, 10, 0, 0, 0, time.UTC), time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC); !res.First.Equal(first) || !res.Last.Equal(last) {
		t.Errorf("calls billed from %s to %s, want %s to %s", res.First, res.Last, first, last)
	}
	rec := res.Engine.Reconcile()
	// 0.50 + 0.30 + 1.20; recorded 0.50 + 0.30 + 0.01 + 1.00.
	if !rec.Totals.Official.Equal(dec("2.00")) || !rec.Totals.Recorded.Equal(dec("1.81")) {
		t.Errorf("official %s, recorded %s; want 2.00, 1.81", rec.Totals.Official, rec.Totals.Recorded)
	}
	gs, err := pricing.Collect(rec.Groups())
	if err != nil {
		t.Fatal(err)
	}
	teams := []struct{ team, official string }{{"alpha", "0.80"}, {"beta", "1.20"}}
	for i, w := range teams {
		if i >= len(gs) || gs[i].Key.Team != w.team || !gs[i].Official.Equal(dec(w.official)) {
			t.Errorf("groups %+v, want %v", gs, teams)
			break
		}
	}
}

// TestAPIRunStrict: a strict run ends at its first rejected row, named by
// file and line.
func TestAPIRunStrict(t *testing.T) {
	res, err := run.Run(context.Background(), run.Input{Catalog: catalog(t), Sources: sources("october.csv", "november.csv"), Strict: true})
	closeEngine(t, res)
	var rej *run.RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("error %v (%T), want a *run.RejectedError", err, err)
	}
	if rej.Rejection.File != dir+"november.csv" || rej.Rejection.Line != 3 {
		t.Errorf("rejection %+v, want november.csv line 3", rej.Rejection)
	}
}

// TestAPIRunNothingPriced: a run that prices no call says why, with its
// result.
func TestAPIRunNothingPriced(t *testing.T) {
	nov := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		files   []string
		opts    pricing.Options
		reason  run.Reason
		calls   int64
		sources []string
	}{
		{"no row", []string{"header-only.csv"}, pricing.Options{}, run.NoCalls, 0, []string{dir + "header-only.csv"}},
		{"no tariff", []string{"unknown.csv"}, pricing.Options{}, run.NoneByTariff, 1, []string{dir + "unknown.csv"}},
		// october.csv's three calls are all billed before November.
		{"outside the window", []string{"october.csv"}, pricing.Options{Since: nov}, run.AllOutside, 3, []string{dir + "october.csv"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run.Run(context.Background(), run.Input{Catalog: catalog(t), Options: tt.opts, Sources: sources(tt.files...)})
			closeEngine(t, res)
			var np *run.NothingPricedError
			if !errors.As(err, &np) {
				t.Fatalf("error %v (%T), want a *run.NothingPricedError", err, err)
			}
			if res == nil {
				t.Fatal("no result with the error")
			}
			if np.Reason() != tt.reason || np.Calls() != tt.calls || !slices.Equal(np.Sources, tt.sources) {
				t.Errorf("reason %v, calls %d, sources %v; want %v, %d, %v", np.Reason(), np.Calls(), np.Sources, tt.reason, tt.calls, tt.sources)
			}
		})
	}
}

// TestAPIRunObservers: an observer sees every call read, in order, with
// its outcome; its error ends the run and comes back as it is.
func TestAPIRunObservers(t *testing.T) {
	type seen struct {
		id      string
		outcome pricing.Outcome
	}
	var got []seen
	watch := pricing.ObserverFunc(func(c *ledger.Call, pc *pricing.PricedCall) error {
		got = append(got, seen{c.RequestID, pc.Outcome})
		return nil
	})
	res, err := run.Run(context.Background(), run.Input{Catalog: catalog(t), Sources: sources("october.csv", "november.csv"),
		Observers: []pricing.Observer{watch}})
	closeEngine(t, res)
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{{"o1", pricing.Priced}, {"o2", pricing.Priced}, {"o3", pricing.Unpriced},
		// n2 is rejected: not a call. o1 again is an overlap, read before
		// from another source (counted in Rows.Duplicate).
		{"n1", pricing.Priced}, {"o1", pricing.Overlap}}
	if !slices.Equal(got, want) {
		t.Errorf("observed %v, want %v", got, want)
	}

	stop := errors.New("seen enough")
	n := 0
	quit := pricing.ObserverFunc(func(*ledger.Call, *pricing.PricedCall) error {
		if n++; n == 2 {
			return stop
		}
		return nil
	})
	res, err = run.Run(context.Background(), run.Input{Catalog: catalog(t), Sources: sources("october.csv", "november.csv"),
		Observers: []pricing.Observer{quit}})
	closeEngine(t, res)
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("error %v after %d calls, want the observer's own after 2", err, n)
	}
}

// TestAPIRunReadError: a file that cannot be read is a *run.ReadError
// naming it.
func TestAPIRunReadError(t *testing.T) {
	res, err := run.Run(context.Background(), run.Input{Catalog: catalog(t), Sources: sources("october.csv", "missing.csv")})
	closeEngine(t, res)
	var re *run.ReadError
	if !errors.As(err, &re) || re.Source != dir+"missing.csv" {
		t.Errorf("error %v (%T), want a *run.ReadError of %s", err, err, dir+"missing.csv")
	}
}

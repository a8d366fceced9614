package metrics

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestMonthSaving: the month's saving per lever, weighed on the state's
// sums, is what tokenfare savings finds weighing the sample's calls one by
// one, for offpeak, batch and flex to the last digit; the host lever,
// chosen per sum rather than per call, never exceeds it. The metric
// carries each lever.
func TestMonthSaving(t *testing.T) {
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	s, err := state.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	feed := state.Feed{Name: sample, Open: func(time.Time, *ledger.Known) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(sample, ledger.Options{})}, nil
	}}
	if _, err := s.Refresh(context.Background(), run.Keep(false), cat, pricing.Options{}, []state.Feed{feed}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 10, 31, 23, 59, 59, 0, time.UTC)
	got, err := MonthSaving(s, cat, now)
	if err != nil {
		t.Fatal(err)
	}
	want := callByCall(t, cat, sample, now)
	for _, l := range savings.AllLevers() {
		t.Logf("%s: %s on the sums, %s call by call", l, got[l], want.Levers[l].Saving())
	}
	for _, l := range []savings.Lever{savings.Offpeak, savings.Batch, savings.Flex} {
		if !got[l].Equal(want.Levers[l].Saving()) {
			t.Errorf("%s: %s on the sums, %s call by call", l, got[l], want.Levers[l].Saving())
		}
	}
	if h := want.Levers[savings.Host].Saving(); got[savings.Host].GreaterThan(h) || !got[savings.Host].IsPositive() {
		t.Errorf("host: %s on the sums, %s call by call: want above zero and no more", got[savings.Host], h)
	}
	c := New(Options{})
	if err := c.Update(s, cat, now, nil); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	levers := map[string]float64{}
	for _, f := range fams {
		if f.GetName() == "tokenfare_month_saving" {
			for _, m := range f.GetMetric() {
				levers[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
			}
		}
	}
	if len(levers) != int(savings.NumLevers) || levers["batch"] != got[savings.Batch].InexactFloat64() {
		t.Errorf("tokenfare_month_saving %v, want every lever, batch %s", levers, got[savings.Batch])
	}
}

// callByCall weighs the levers over the file's calls of now's UTC month,
// one by one.
func callByCall(t *testing.T, cat *tariffs.Catalog, file string, now time.Time) *savings.Line {
	t.Helper()
	obs, err := savings.New(savings.Options{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	_, err = run.Run(context.Background(), run.Input{Catalog: cat, Options: pricing.Options{Since: from, Until: now.Add(time.Second)},
		Sources: []ledger.Source{ledger.FileSource(file, ledger.Options{})}, Observers: []pricing.Observer{obs}})
	if err != nil {
		t.Fatal(err)
	}
	return obs.Result().Total
}

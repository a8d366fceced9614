package metrics

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestMonthSavingSeries: tokenfare_month_saving carries, per lever, the
// figure Options.MonthSaving gives, asked again for a now in another
// slot or a new catalog, not for one in the same slot; without it there
// is no series. (internal/run's TestStateSaving checks the figures.)
func TestMonthSavingSeries(t *testing.T) {
	cat, other := &tariffs.Catalog{}, &tariffs.Catalog{}
	asked := 0
	saving := func(_ *tariffs.Catalog, now time.Time) (map[savings.Lever]decimal.Decimal, error) {
		asked++
		return map[savings.Lever]decimal.Decimal{savings.Offpeak: decimal.RequireFromString("1.25"),
			savings.Batch: decimal.NewFromInt(int64(now.Minute()))}, nil
	}
	day := time.Date(2026, 10, 31, 23, 0, 0, 0, time.UTC)
	steps := []struct {
		name  string
		cat   *tariffs.Catalog
		now   time.Time
		asked int
		batch float64
	}{
		{name: "first", cat: cat, now: day.Add(5 * time.Minute), asked: 1, batch: 5},
		{name: "same slot", cat: cat, now: day.Add(14 * time.Minute), asked: 1, batch: 5},
		{name: "next slot", cat: cat, now: day.Add(15 * time.Minute), asked: 2, batch: 15},
		{name: "new catalog", cat: other, now: day.Add(16 * time.Minute), asked: 3, batch: 16},
	}
	s, err := state.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := New(Options{MonthSaving: saving})
	for _, st := range steps {
		if err := c.Update(s, st.cat, st.now, nil); err != nil {
			t.Fatal(err)
		}
		got := savingSeries(t, c)
		if asked != st.asked || len(got) != 2 || got["offpeak"] != 1.25 || got["batch"] != st.batch {
			t.Errorf("%s: asked %d times, series %v; want %d, offpeak 1.25 and batch %v", st.name, asked, got, st.asked, st.batch)
		}
	}
	none := New(Options{})
	if err := none.Update(s, cat, day, nil); err != nil {
		t.Fatal(err)
	}
	if got := savingSeries(t, none); len(got) != 0 {
		t.Errorf("without MonthSaving: series %v, want none", got)
	}
}

// savingSeries gathers c's tokenfare_month_saving series, by lever.
func savingSeries(t *testing.T, c *Collector) map[string]float64 {
	t.Helper()
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
	return levers
}

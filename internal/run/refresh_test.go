package run_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/tariffs"
)

// embedded is the catalog tokenfare ships.
func embedded(t *testing.T) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return cat
}

// openState opens a new state in a folder of the test's, closed when the
// test ends.
func openState(t *testing.T) *state.Store {
	t.Helper()
	s, err := state.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fileFeed is the feed of the file at path, read whole at each refresh.
func fileFeed(path string) state.Feed {
	return state.Feed{Name: path, Open: func(time.Time, *ledger.Known) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(path, ledger.Options{})}, nil
	}}
}

// TestRefreshStrict reads testdata/plain.csv (4 rows: p1 priced, p2
// rejected, p3 unpriced, h1 priced) into a state. Without strict every
// row is counted and the refresh committed; under strict it ends at p2
// with its *RejectedError and the state keeps nothing of the feed.
func TestRefreshStrict(t *testing.T) {
	const plain = "testdata/plain.csv"
	tests := []struct {
		strict bool
		want   pricing.Rows
		err    bool
	}{
		{strict: false, want: pricing.Rows{Read: 4, Priced: 2, Unpriced: 1, Rejected: 1}},
		{strict: true, err: true},
	}
	for _, tt := range tests {
		s := openState(t)
		_, err := run.Refresh(context.Background(), s, embedded(t), pricing.Options{}, []state.Feed{fileFeed(plain)}, tt.strict)
		var rej *run.RejectedError
		if got := errors.As(err, &rej); got != tt.err || (err != nil && !got) {
			t.Errorf("strict %v: error %v", tt.strict, err)
		}
		src, err := s.Source(plain)
		if err != nil {
			t.Fatal(err)
		}
		if src.Rows != tt.want || (src.Refreshes == 0) != tt.err {
			t.Errorf("strict %v: kept %+v in %d refresh(es), want %+v", tt.strict, src.Rows, src.Refreshes, tt.want)
		}
	}
}

// TestRefreshGoesOnPastAFailedFeed: a feed that fails is dropped, the
// feeds after it are refreshed all the same, and the error is returned.
func TestRefreshGoesOnPastAFailedFeed(t *testing.T) {
	const plain = "testdata/plain.csv"
	s := openState(t)
	broken := errors.New("the database is down")
	feeds := []state.Feed{
		{Name: "down", Open: func(time.Time, *ledger.Known) ([]ledger.Source, error) { return nil, broken }},
		{Name: plain, Files: func() ([]string, error) { return []string{plain}, nil }},
	}
	got, err := run.Refresh(context.Background(), s, embedded(t), pricing.Options{}, feeds, false)
	if !errors.Is(err, broken) {
		t.Errorf("err %v, want the failed feed's", err)
	}
	if len(got) != 1 || got[0].Name != plain || got[0].Rows.Read != 4 {
		t.Errorf("refreshed %+v, want the 4 rows of %s", got, plain)
	}
	if down, err := s.Source("down"); err != nil || down.Refreshes != 0 {
		t.Errorf("the failed feed: %+v, %v; want nothing kept", down, err)
	}
}

// TestStateSaving: the month's saving per lever, weighed on the state's
// sums, is what tokenfare savings finds weighing the sample's calls one
// by one, for offpeak, batch and flex to the last digit; the host lever,
// chosen per sum rather than per call, never exceeds it.
func TestStateSaving(t *testing.T) {
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	cat := embedded(t)
	s := openState(t)
	if _, err := run.Refresh(context.Background(), s, cat, pricing.Options{}, []state.Feed{fileFeed(sample)}, false); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 10, 31, 23, 59, 59, 0, time.UTC)
	got, err := run.StateSaving(s, cat, now)
	if err != nil {
		t.Fatal(err)
	}
	want := callByCall(t, cat, sample, now)
	for _, l := range []savings.Lever{savings.Offpeak, savings.Batch, savings.Flex} {
		if !got[l].Equal(want.Levers[l].Saving()) {
			t.Errorf("%s: %s on the sums, %s call by call", l, got[l], want.Levers[l].Saving())
		}
	}
	if h := want.Levers[savings.Host].Saving(); got[savings.Host].GreaterThan(h) || !got[savings.Host].IsPositive() {
		t.Errorf("host: %s on the sums, %s call by call: want above zero and no more", got[savings.Host], h)
	}
	if len(got) != int(savings.NumLevers) {
		t.Errorf("%d levers, want %d: %v", len(got), savings.NumLevers, got)
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

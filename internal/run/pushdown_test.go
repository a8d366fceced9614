package run

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/postgres"
	"github.com/tokenfare/tokenfare/pricing"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const sampleDump = "../../testdata/sample/spendlogs-dump-2026-10.csv"

func database(t *testing.T, url string) *postgres.Source {
	t.Helper()
	src, err := postgres.New(url, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestPushDownChosen checks when a run lets the database sum: only when
// every source is a database, nothing observes the calls and rows are not
// asked for, and then where sums are asked for, not on one PostgreSQL
// left to choose (it reads rows and says so); the answer is the same
// either way.
func TestPushDownChosen(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	cat := catalog(t)
	watch := pricing.ObserverFunc(func(*ledger.Call, *pricing.PricedCall) error { return nil })
	tests := []struct {
		name       string
		sources    []ledger.Source
		rows, sums bool
		observers  []pricing.Observer
		pushed     bool
		chose      int // how many times the run told its choice
	}{
		{name: "sums asked for", sources: []ledger.Source{database(t, db.URL)}, sums: true, pushed: true},
		{name: "a database alone", sources: []ledger.Source{database(t, db.URL)}, chose: 1},
		{name: "rows asked for", sources: []ledger.Source{database(t, db.URL)}, rows: true},
		{name: "an observer", sources: []ledger.Source{database(t, db.URL)}, sums: true, observers: []pricing.Observer{watch}},
		{name: "a database and a file", sources: []ledger.Source{database(t, db.URL), ledger.FileSource("testdata/cachehits.csv", ledger.Options{})}, sums: true},
	}
	var want pricing.Rows
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chose := 0
			res, err := Run(context.Background(), Input{Catalog: cat, Options: pricing.Options{Zone: time.UTC, Dims: []pricing.Dim{pricing.DimModel}},
				Sources: tt.sources, Rows: tt.rows, PushDown: tt.sums, Observers: tt.observers, OnChoice: func(c Choice) {
					chose++
					if c.PushDown {
						t.Errorf("chose sums on one PostgreSQL: %+v", c)
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if chose != tt.chose {
				t.Errorf("told its choice %d times, want %d", chose, tt.chose)
			}
			if got := len(res.PushedDown) > 0; got != tt.pushed {
				t.Fatalf("pushed down %v, want %v", got, tt.pushed)
			}
			if tt.pushed == (len(res.Sources) > 0) {
				t.Errorf("sources read as rows: %+v, pushed down: %+v", res.Sources, res.PushedDown)
			}
			accounts := res.Sources
			if tt.pushed {
				accounts = res.PushedDown
			}
			var sum pricing.Rows
			for _, s := range accounts {
				sum = add(sum, s.Rows)
			}
			if total := res.Engine.Rows(); sum != total || parts(total) != total.Read {
				t.Errorf("sources add up to %+v, engine counted %+v", sum, total)
			}
			got := res.Engine.Rows()
			if len(tt.sources) == 1 {
				if want == (pricing.Rows{}) {
					want = got
				} else if got != want {
					t.Errorf("rows %+v, want %+v as summed in the database", got, want)
				}
			}
		})
	}
}

// TestSameDatabaseTwice checks that a database given twice is refused
// before anything is read.
func TestSameDatabaseTwice(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	_, err := Run(context.Background(), Input{Catalog: catalog(t), Options: pricing.Options{Zone: time.UTC},
		Sources: []ledger.Source{database(t, db.URL), database(t, db.URL)}})
	var de *DatabaseError
	if !errors.As(err, &de) || !errors.Is(err, postgres.ErrSameDatabase) {
		t.Fatalf("Run: %v; want a *DatabaseError of postgres.ErrSameDatabase", err)
	}
}

// TestFailedCallsSeenSummedOrNot: the failed-calls observer sees every
// failed call of the sample, with its error detail, whether the database
// sums the rest or every row is read, and it keeps the sums.
func TestFailedCallsSeenSummedOrNot(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	cat := catalog(t)
	var counts []int64
	for _, rows := range []bool{false, true} {
		var failed, detailed int64
		watch := pricing.ObserverFunc(func(c *ledger.Call, pc *pricing.PricedCall) error {
			if pc.Outcome != pricing.Failed {
				t.Errorf("%s: observed a %s call", c.Source, pc.Outcome)
			}
			failed++
			if c.Failure.Logged() {
				detailed++
			}
			return nil
		})
		res, err := Run(context.Background(), Input{Catalog: cat, Options: pricing.Options{Zone: time.UTC, Dims: []pricing.Dim{pricing.DimModel}},
			Sources: []ledger.Source{database(t, db.URL)}, Rows: rows, PushDown: !rows, FailedCalls: watch})
		if err != nil {
			t.Fatal(err)
		}
		if pushed := len(res.PushedDown) > 0; pushed == rows {
			t.Errorf("rows %t: pushed down %t", rows, pushed)
		}
		if failed != res.Engine.Rows().Failed || failed == 0 || detailed == 0 {
			t.Errorf("rows %t: observed %d failed calls (%d with detail), the run counted %d", rows, failed, detailed, res.Engine.Rows().Failed)
		}
		counts = append(counts, failed, detailed)
	}
	if counts[0] != counts[2] || counts[1] != counts[3] {
		t.Errorf("summed: %d failed, %d with detail; by rows: %d, %d", counts[0], counts[1], counts[2], counts[3])
	}
}

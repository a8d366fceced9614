package run

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// server is a summer that keeps its rows (a file of 4 calls) and sums
// them as one group of 1M input tokens of gpt-4o (2.50 per 1M: 2.5),
// and says whether it is distributed, or fails to say.
type server struct {
	ledger.Source
	spread bool
	err    error
}

func (s *server) Identity(context.Context) (string, error) { return s.Name(), nil }
func (s *server) KeepsRows() bool                          { return true }
func (s *server) Distributed(context.Context) (bool, error) {
	return s.spread, s.err
}
func (s *server) Sum(_ context.Context, _ ledger.SumOptions, to ledger.SumSink) (ledger.Reader, error) {
	at := time.Date(2026, 10, 10, 9, 0, 0, 0, time.UTC)
	g := ledger.Summed{Aggregate: ledger.Aggregate{Gateway: ledger.LiteLLM, First: at, Last: at, Model: "gpt-4o", Host: "openai",
		Status: ledger.StatusSuccess, Calls: 1, Recorded: decimal.Zero, ZeroSpend: true}, BilledBy: tariffs.BillEnd, As: ledger.SummedNew}
	g.Tokens.Input = 1_000_000
	return nil, to.Add(&g)
}

// oneServer is a summer of the same kind that cannot tell whether it is
// distributed.
type oneServer struct{ *server }

func (oneServer) Distributed() {} // not ledger.Distributed's method

// TestChoice checks how a run left to choose reads its databases: sums
// where one of them is distributed, rows where each is one server or
// cannot tell, telling its choice once; Rows and PushDown decide without
// asking; a database that fails to say ends the run with a
// *DatabaseError. Sums give the one group (1 call, 2.5); rows the file's
// 4 calls.
func TestChoice(t *testing.T) {
	file := func(name string) ledger.Source { return ledger.FileSource(name, ledger.Options{}) }
	one := &server{Source: file("testdata/cachehits.csv")}
	spread := &server{Source: file("testdata/cachehits.csv"), spread: true}
	failing := &server{Source: file("testdata/cachehits.csv"), err: errors.New("connection refused")}
	tests := []struct {
		name       string
		dbs        []ledger.Source
		rows, sums bool
		told       []Choice
		pushed     bool
		err        bool
	}{
		{name: "one server", dbs: []ledger.Source{one}, told: []Choice{{}}},
		{name: "one server, sums asked for", dbs: []ledger.Source{one}, sums: true, pushed: true},
		{name: "distributed", dbs: []ledger.Source{spread}, told: []Choice{{PushDown: true, Distributed: spread.Name()}}, pushed: true},
		{name: "distributed, rows asked for", dbs: []ledger.Source{spread}, rows: true},
		{name: "cannot tell", dbs: []ledger.Source{oneServer{one}}, told: []Choice{{}}},
		{name: "fails to tell", dbs: []ledger.Source{failing}, err: true},
		{name: "fails to tell, sums asked for", dbs: []ledger.Source{failing}, sums: true, pushed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var told []Choice
			res, err := Run(context.Background(), Input{Catalog: catalog(t), Options: pricing.Options{Zone: time.UTC},
				Sources: tt.dbs, Rows: tt.rows, PushDown: tt.sums, OnChoice: func(c Choice) { told = append(told, c) }})
			var de *DatabaseError
			if tt.err {
				if !errors.As(err, &de) || res != nil {
					t.Fatalf("Run: %v, %v; want a *DatabaseError and no result", res, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer res.Engine.Close()
			if len(told) != len(tt.told) || len(told) == 1 && told[0] != tt.told[0] {
				t.Errorf("told %+v, want %+v", told, tt.told)
			}
			if pushed := len(res.PushedDown) > 0; pushed != tt.pushed || pushed == (len(res.Sources) > 0) {
				t.Errorf("pushed down %+v, rows of %+v; want pushed down %v", res.PushedDown, res.Sources, tt.pushed)
			}
			want := int64(4)
			if tt.pushed {
				want = 1
			}
			if got := res.Engine.Rows().Read; got != want {
				t.Errorf("read %d calls, want %d", got, want)
			}
			if got := res.Engine.Reconcile().Totals.Official; tt.pushed && !got.Equal(decimal.RequireFromString("2.5")) {
				t.Errorf("official cost %s summed, want 2.5", got)
			}
		})
	}
}

package run

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// TestProgressTellsRowsAndBytes reads a file and a source without bytes:
// once each is done, its Progress holds every row it read and, for the
// file, every byte of it against its size.
func TestProgressTellsRowsAndBytes(t *testing.T) {
	st, err := os.Stat("testdata/plain.csv")
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		rows, read, size int64
		ok, stopped      bool
	}
	got := map[string]*seen{}
	progress := func(name string, p *Progress) func() {
		s := &seen{}
		got[name] = s
		return func() {
			s.rows = p.Rows()
			s.read, s.size, s.ok = p.Bytes()
			s.stopped = true
		}
	}
	_, err = Run(context.Background(), Input{Catalog: catalog(t), Options: pricing.Options{Zone: time.UTC},
		Sources:  []ledger.Source{ledger.FileSource("testdata/plain.csv", ledger.Options{}), &batches{name: "db", n: 3}},
		Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]seen{
		"testdata/plain.csv": {rows: 4, read: st.Size(), size: st.Size(), ok: true, stopped: true},
		"db":                 {rows: 3, read: 0, size: -1, ok: false, stopped: true},
	}
	for name, w := range want {
		g := got[name]
		if g == nil {
			t.Errorf("%s: Progress never called", name)
			continue
		}
		if *g != w {
			t.Errorf("%s: got %+v, want %+v", name, *g, w)
		}
	}
}

// TestProgressPushDown: a database summing its own calls has a progress
// too: summing while the query runs, then pricing its sums, which it
// counts (fewer than the calls they sum).
func TestProgressPushDown(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	type seen struct {
		name          string
		first, last   Stage
		sums, stopped int64
	}
	var got []*seen
	progress := func(name string, p *Progress) func() {
		s := &seen{name: name, first: p.Stage()}
		got = append(got, s)
		return func() { s.last, s.sums = p.Stage(), p.Rows(); s.stopped++ }
	}
	src := database(t, db.URL)
	res, err := Run(context.Background(), Input{Catalog: catalog(t), Options: pricing.Options{Zone: time.UTC, Dims: []pricing.Dim{pricing.DimModel}},
		Sources: []ledger.Source{src}, PushDown: true, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.PushedDown) != 1 {
		t.Fatalf("not pushed down: %+v", res.Sources)
	}
	if len(got) == 0 {
		t.Fatal("no progress for the database")
	}
	g, calls := got[0], res.Engine.Rows().Read
	if g.name != src.Name() || g.first != StageSumming || g.last != StagePricing || g.stopped != 1 || g.sums <= 0 || g.sums >= calls {
		t.Errorf("progress %+v, want %s from %s to %s, stopped once, between 1 and %d sums", *g, src.Name(), StageSumming, StagePricing, calls-1)
	}
}

package run

import (
	"context"
	"os"
	"testing"
	"time"

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

package pricing

import (
	"errors"
	"testing"

	"github.com/tokenfare/tokenfare/ledger"
)

// TestCallsKeptApartAreLeftOut keeps the calls of a few keys apart (by
// hash and by the alias logged) while the other calls spill, from a few
// times to hundreds, and checks the chargeback of what is left against an
// engine that never saw the calls kept apart, and the account of those
// calls against an engine that saw only them; both with and without a
// spill, with the row accounting of every call.
func TestCallsKeptApartAreLeftOut(t *testing.T) {
	cat := testCatalog(t)
	calls := viewCalls(31, 6000)
	from, until := at("2026-09-01T00:00:00Z"), at("2026-10-01T00:00:00Z")
	apart := func(key, alias string) bool {
		return key == "key-007" || key == "key-020" || alias == "alias-012"
	}
	for _, tc := range []struct {
		name     string
		dims     []Dim
		budget   int
		compacts bool // spills more times than the engine keeps runs (spillRuns.max)
	}{
		{name: "key and day; past 256 runs", dims: []Dim{DimKey, DimDay}, budget: 20, compacts: true},
		{name: "team and model, no key", dims: []Dim{DimTeam, DimModel}, budget: 10},
		{name: "user", dims: []Dim{DimUser}, budget: 5},
		{name: "held: no spill", dims: []Dim{DimKey, DimTeam}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Dims: tc.dims, Since: from, Until: until, Zone: zone(t, "Asia/Shanghai")}
			whole := New(cat, opts)
			// One duplicate set for the two parts: a call logged again
			// under another key is a duplicate in either.
			opts.Seen = memorySeen{}
			others, theirs := New(cat, opts), New(cat, Options{Since: from, Until: until, Zone: opts.Zone, Seen: opts.Seen})
			opts.Seen = nil
			opts.Apart = apart
			runs := &memRuns{}
			if tc.budget > 0 {
				opts.Runs, opts.Outputs, opts.MaxGroups = runs.store, OutputChargeback, tc.budget
			}
			e := New(cat, opts)
			for i := range calls {
				c := &calls[i]
				e.AddPriced(c)
				whole.AddPriced(c)
				if apart(c.Key, c.KeyAlias) {
					theirs.AddPriced(c)
				} else {
					others.AddPriced(c)
				}
			}
			if err := e.Err(); err != nil {
				t.Fatal(err)
			}
			if spilled := e.runs.files() > 0; spilled != (tc.budget > 0) {
				t.Fatalf("spilled: %v, want %v", spilled, tc.budget > 0)
			}
			if tc.compacts && e.runs.written() <= e.runs.max {
				t.Fatalf("%d runs written: none merged", e.runs.written())
			}
			taken := e.TakeApart()
			got, err := e.Chargeback(from, until, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := others.Chargeback(from, until, nil)
			if err != nil {
				t.Fatal(err)
			}
			sameChargeback(t, got, want)
			for i, m := range got.BlendedPrice {
				for j, p := range m.Prices {
					if w := want.BlendedPrice[i].Prices[j]; !p.Blended.Equal(w.Blended) {
						t.Errorf("%s %v blended at %s, want %s", m.Model, p.Usage, p.Blended, w.Blended)
					}
				}
			}
			if got.Rows != whole.Rows() {
				t.Errorf("rows: got %+v, want every call's %+v", got.Rows, whole.Rows())
			}
			gotApart, wantApart := taken.Line(), theirs.Line()
			if wantApart.Calls == 0 {
				t.Fatal("no call kept apart: the test checks too little")
			}
			if d := lineDiff(&gotApart, &wantApart); d != "" {
				t.Errorf("calls kept apart: %s\n%+v\n%+v", d, gotApart, wantApart)
			}
			if err := errors.Join(got.Close(), e.Close()); err != nil {
				t.Fatal(err)
			}
			if opts.Runs != nil {
				runs.check(t)
			}
		})
	}
}

// TestHoldersRead checks which holders engines read of a call: a run
// has its files read without the others.
func TestHoldersRead(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want ledger.Holders
	}{
		{Options{}, 0},
		{Options{Dims: []Dim{DimModel, DimDay, DimHour, DimPeriod, DimVersion, DimGroup, DimHost, DimTag, DimMeta}}, 0},
		{Options{Dims: []Dim{DimModel, DimKey}}, ledger.HolderKey},
		{Options{Dims: []Dim{DimTeam}}, ledger.HolderTeam},
		{Options{Dims: []Dim{DimDay, DimUser}}, ledger.HolderUser},
		{Options{Dims: []Dim{DimUser, DimKey, DimTeam}}, ledger.AllHolders},
		{Options{Apart: func(string, string) bool { return false }}, ledger.HolderKey},
		{Options{Dims: []Dim{DimTeam}, Apart: func(string, string) bool { return false }}, ledger.HolderKey | ledger.HolderTeam},
	} {
		if got := tc.opts.HoldersRead(); got != tc.want {
			t.Errorf("Options{Dims: %v, Apart: %t}.HoldersRead() = %03b, want %03b", tc.opts.Dims, tc.opts.Apart != nil, got, tc.want)
		}
	}
}

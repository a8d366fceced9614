package pricing_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tokenfare/tokenfare/internal/spillfs"
	"github.com/tokenfare/tokenfare/pricing"
)

// The tests of this file check that a result streamed from an engine's
// runs owns them: the engine of testdata/api priced by team with a budget
// of one bucket, so that every new bucket spills, on disk (internal/spillfs)
// as the command line keeps them. Their figures are TestAPIReconcile's
// and TestAPIChargeback's, worked by hand at the top of api_test.go:
//
//	alpha: 3 calls, 2 priced, official 1.60, recorded 1.10, gap 0.50;
//	       at the blended prices 1.2476190465, subsidy -0.3523809535
//	beta:  3 calls, 2 priced, official 1.30, recorded 0.95, gap 0.35;
//	       at the blended prices 1.65238095225, subsidy 0.35238095225

// openRuns is a run store on disk that counts the runs open for reading,
// so that a test can tell a loop left early closed what it opened.
type openRuns struct {
	pricing.RunStore
	open *atomic.Int64
}

func (s openRuns) Open(name string) (io.ReadCloser, error) {
	r, err := s.RunStore.Open(name)
	if err != nil {
		return nil, err
	}
	s.open.Add(1)
	return countedReader{r, s.open}, nil
}

type countedReader struct {
	io.ReadCloser
	open *atomic.Int64
}

func (r countedReader) Close() error { r.open.Add(-1); return r.ReadCloser.Close() }

// spilledEngine prices the api calls by team in an engine that spills at
// every new bucket to a folder under dir, and returns it with the count
// of its runs open; it fails the test when nothing spilled.
func spilledEngine(t *testing.T, dir string) (*pricing.Engine, *atomic.Int64) {
	t.Helper()
	open := &atomic.Int64{}
	opts := pricing.Options{Dims: []pricing.Dim{pricing.DimTeam}, MaxGroups: 1,
		Runs: func() (pricing.RunStore, error) {
			f, err := spillfs.New(dir)
			if err != nil {
				return nil, err
			}
			return openRuns{f, open}, nil
		}}
	e, _ := priceFile(t, apiCatalog(t), opts, apiCalls)
	if runsIn(t, dir) == 0 {
		t.Fatal("nothing spilled: the test checks too little")
	}
	return e, open
}

// runsIn counts the files in the folders of runs under dir.
func runsIn(t *testing.T, dir string) int {
	t.Helper()
	folders, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range folders {
		files, err := os.ReadDir(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		n += len(files)
	}
	return n
}

// foldersIn counts what is left under dir: the folders of runs.
func foldersIn(t *testing.T, dir string) int {
	t.Helper()
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(left)
}

// checkTeams checks groups against the figures by hand.
func checkTeams(t *testing.T, when string, gs []pricing.Group) {
	t.Helper()
	want := []struct {
		team                    string
		calls, priced           int64
		official, recorded, gap string
	}{
		{"alpha", 3, 2, "1.60", "1.10", "0.50"},
		{"beta", 3, 2, "1.30", "0.95", "0.35"},
	}
	if len(gs) != len(want) {
		t.Fatalf("%s: %d groups, want %d: %+v", when, len(gs), len(want), gs)
	}
	for i, w := range want {
		g := gs[i]
		if g.Key.Team != w.team || g.Calls != w.calls || g.PricedCalls != w.priced ||
			!g.Official.Equal(dec(w.official)) || !g.Recorded.Equal(dec(w.recorded)) || !g.Gap.Equal(dec(w.gap)) {
			t.Errorf("%s: group %d: %s calls %d priced %d official %s recorded %s gap %s, want %+v",
				when, i, g.Key.Team, g.Calls, g.PricedCalls, g.Official, g.Recorded, g.Gap, w)
		}
	}
}

// checkLines checks chargeback lines against the figures by hand.
func checkLines(t *testing.T, when string, ls []pricing.ChargebackLine) {
	t.Helper()
	want := []struct{ team, official, recorded, atBlended, subsidy string }{
		{"alpha", "1.60", "1.10", "1.2476190465", "-0.3523809535"},
		{"beta", "1.30", "0.95", "1.65238095225", "0.35238095225"},
	}
	if len(ls) != len(want) {
		t.Fatalf("%s: %d lines, want %d: %+v", when, len(ls), len(want), ls)
	}
	for i, w := range want {
		l := ls[i]
		if l.Key.Team != w.team || !l.Official.Equal(dec(w.official)) || !l.Recorded.Equal(dec(w.recorded)) ||
			!l.AtBlended.Equal(dec(w.atBlended)) || !l.Subsidy.Equal(dec(w.subsidy)) {
			t.Errorf("%s: line %d: %s official %s recorded %s at blended %s subsidy %s, want %+v",
				when, i, l.Key.Team, l.Official, l.Recorded, l.AtBlended, l.Subsidy, w)
		}
	}
}

// TestSpilledReconciliationOwnsItsRuns ranges over a spilled
// reconciliation twice, leaves a loop early, closes the engine and
// ranges again, then closes the reconciliation: its runs are gone, and
// reading it is ErrClosed.
func TestSpilledReconciliationOwnsItsRuns(t *testing.T) {
	dir := t.TempDir()
	e, open := spilledEngine(t, dir)
	rec := e.Reconcile()
	checkTeams(t, "first pass", groupsOf(t, rec))
	checkTeams(t, "second pass", groupsOf(t, rec))
	// Passes nest: each reads with a cursor of its own (2 × 2 pairs).
	var pairs []string
	for g, err := range rec.Groups() {
		if err != nil {
			t.Fatal(err)
		}
		for h, err := range rec.Groups() {
			if err != nil {
				t.Fatal(err)
			}
			pairs = append(pairs, g.Key.Team+"/"+h.Key.Team)
		}
	}
	if got := strings.Join(pairs, " "); got != "alpha/alpha alpha/beta beta/alpha beta/beta" {
		t.Errorf("nested passes: %s, want alpha/alpha alpha/beta beta/alpha beta/beta", got)
	}
	for m, err := range rec.GroupsWithMoney() {
		if err != nil {
			t.Fatal(err)
		}
		// Streamed, the group's money is in m: alpha's official 1.60.
		if m.Group.Key.Team != "alpha" || !m.Official.Decimal().Equal(dec("1.60")) || !m.Gap.Decimal().Equal(dec("0.50")) {
			t.Errorf("first group with its money: %s official %s gap %s, want alpha 1.60 0.50", m.Group.Key.Team, m.Official.Decimal(), m.Gap.Decimal())
		}
		break
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d runs open after a loop left early, want 0", n)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if runsIn(t, dir) == 0 {
		t.Fatal("the runs went with the engine's Close; the reconciliation holds them")
	}
	checkTeams(t, "after the engine's Close", groupsOf(t, rec))
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if n := foldersIn(t, dir); n != 0 {
		t.Errorf("%d folder(s) of runs left after the last Close, want none", n)
	}
	if _, err := pricing.Collect(rec.Groups()); !errors.Is(err, pricing.ErrClosed) {
		t.Errorf("groups of a closed reconciliation: %v, want ErrClosed", err)
	}
	if _, err := pricing.Collect(rec.GroupsWithMoney()); !errors.Is(err, pricing.ErrClosed) {
		t.Errorf("groups with their money of a closed reconciliation: %v, want ErrClosed", err)
	}
	if err := rec.Close(); err != nil {
		t.Errorf("a second Close: %v, want nil", err)
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d runs open at the end, want 0", n)
	}
}

// TestSpilledChargebackOwnsItsRuns does the same for a chargeback whose
// lines stream from runs of their own (two lines, past a budget of one),
// with a reconciliation of the same engine open beside it: the runs go
// with the last of the three to close.
func TestSpilledChargebackOwnsItsRuns(t *testing.T) {
	dir := t.TempDir()
	e, open := spilledEngine(t, dir)
	cb, err := e.Chargeback(oct1, nov1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cb.Len() != 2 {
		t.Errorf("Len %d, want 2", cb.Len())
	}
	rec := e.Reconcile()
	checkLines(t, "first pass", linesOf(t, cb))
	checkLines(t, "second pass", linesOf(t, cb))
	for l, err := range cb.Lines() {
		if err != nil || l.Key.Team != "alpha" {
			t.Errorf("first line %+v (%v), want alpha's", l, err)
		}
		break
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d runs open after a loop left early, want 0", n)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	checkLines(t, "after the engine's Close", linesOf(t, cb))
	if err := cb.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := pricing.Collect(cb.Lines()); !errors.Is(err, pricing.ErrClosed) {
		t.Errorf("lines of a closed chargeback: %v, want ErrClosed", err)
	}
	if runsIn(t, dir) == 0 {
		t.Fatal("the runs went with the chargeback's Close; the reconciliation holds them")
	}
	checkTeams(t, "after the chargeback's Close", groupsOf(t, rec))
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if n := foldersIn(t, dir); n != 0 {
		t.Errorf("%d folder(s) of runs left after the last Close, want none", n)
	}
}

// TestResultOfAClosedEngine: a spilled engine closed before its results
// are made has no runs to hand them: reading them is ErrClosed (and
// ErrSpill), not an empty stream.
func TestResultOfAClosedEngine(t *testing.T) {
	dir := t.TempDir()
	e, _ := spilledEngine(t, dir)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if n := foldersIn(t, dir); n != 0 {
		t.Errorf("%d folder(s) of runs left after the engine's Close, no result holding them", n)
	}
	rec := e.Reconcile()
	defer rec.Close()
	if gs, err := pricing.Collect(rec.Groups()); !errors.Is(err, pricing.ErrClosed) || !errors.Is(err, pricing.ErrSpill) || len(gs) != 0 {
		t.Errorf("groups of a closed engine: %d (%v), want none and ErrClosed", len(gs), err)
	}
	if _, err := e.Chargeback(oct1, nov1, nil); !errors.Is(err, pricing.ErrClosed) {
		t.Errorf("chargeback of a closed engine: %v, want ErrClosed", err)
	}
}

// TestListedResultsClose: results an engine lists (no Options.Runs)
// follow the same rule: ranged as often as wanted, ErrClosed after Close.
func TestListedResultsClose(t *testing.T) {
	e, _ := priceFile(t, apiCatalog(t), pricing.Options{Dims: []pricing.Dim{pricing.DimTeam}}, apiCalls)
	rec := e.Reconcile()
	cb, err := e.Chargeback(oct1, nov1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		checkTeams(t, "listed", groupsOf(t, rec))
		checkLines(t, "listed", linesOf(t, cb))
	}
	if err := errors.Join(rec.Close(), cb.Close()); err != nil {
		t.Fatal(err)
	}
	if _, err := pricing.Collect(rec.Groups()); !errors.Is(err, pricing.ErrClosed) {
		t.Errorf("groups of a closed reconciliation: %v, want ErrClosed", err)
	}
	if _, err := pricing.Collect(cb.Lines()); !errors.Is(err, pricing.ErrClosed) {
		t.Errorf("lines of a closed chargeback: %v, want ErrClosed", err)
	}
}

// TestResultsMarshalWhole: encoding/json writes a reconciliation's groups
// and a chargeback's lines whole, streamed or listed alike, so that two
// results compared as JSON are compared group by group; a closed result
// is an encoding error, not an encoding without its groups.
func TestResultsMarshalWhole(t *testing.T) {
	listed, _ := priceFile(t, apiCatalog(t), pricing.Options{Dims: []pricing.Dim{pricing.DimTeam}}, apiCalls)
	spilled, _ := spilledEngine(t, t.TempDir())
	encode := func(e *pricing.Engine) (string, string) {
		t.Helper()
		cb, err := e.Chargeback(oct1, nov1, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := json.Marshal(e.Reconcile())
		if err != nil {
			t.Fatal(err)
		}
		c, err := json.Marshal(cb)
		if err != nil {
			t.Fatal(err)
		}
		return string(r), string(c)
	}
	lr, lc := encode(listed)
	sr, sc := encode(spilled)
	for _, s := range []string{lr, sr} {
		if !strings.Contains(s, `"Groups":[{`) || !strings.Contains(s, `"Team":"alpha"`) || !strings.Contains(s, `"Team":"beta"`) {
			t.Errorf("reconciliation's JSON without its groups alpha and beta: %.300s", s)
		}
	}
	for _, s := range []string{lc, sc} {
		if !strings.Contains(s, `"Lines":[{`) || !strings.Contains(s, `"Team":"alpha"`) {
			t.Errorf("chargeback's JSON without its lines: %.300s", s)
		}
	}
	if lr != sr {
		t.Errorf("a spilled reconciliation's JSON differs from a listed one's:\n%s\n%s", sr, lr)
	}
	rec := spilled.Reconcile()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(rec); !errors.Is(err, pricing.ErrClosed) {
		t.Errorf("a closed reconciliation's JSON: %v, want ErrClosed", err)
	}
}

// chargesText lists what ch yields, a charge a line.
func chargesText(t *testing.T, ch *pricing.Charges) (string, error) {
	t.Helper()
	var b strings.Builder
	for c, err := range ch.All() {
		if err != nil {
			return b.String(), err
		}
		// The figures and names, not the catalog's pointers: each engine
		// here has a catalog of its own.
		fmt.Fprintf(&b, "%s %s %s %s %s %s priced:%t qty %d at %s cost %s calls %d/%d recorded %s\n", c.Team, c.Outcome, c.Name,
			c.Period, c.ServiceTier, c.Usage, c.Version != nil, c.Quantity, c.UnitPrice, c.Cost, c.Calls, c.Counted, c.Recorded)
	}
	return b.String(), nil
}

// TestSpilledChargesOwnTheirRuns: an engine's charges, made from its
// spilled runs, are those of an engine that did not spill; they hold their
// own reference to the runs, are read after the engine's Close, are
// ErrClosed after their own, and the runs go with the last Close.
func TestSpilledChargesOwnTheirRuns(t *testing.T) {
	listed, _ := priceFile(t, apiCatalog(t), pricing.Options{Dims: []pricing.Dim{pricing.DimTeam}}, apiCalls)
	want, err := chargesText(t, listed.Charges())
	if err != nil || !strings.HasPrefix(want, "alpha priced deepseek-flash offpeak standard input priced:true qty 2000000 at 0.2 cost 0.4") || !strings.Contains(want, "\nbeta ") {
		t.Fatalf("charges of the engine that did not spill (%v): no alpha or beta:\n%s", err, want)
	}
	dir := t.TempDir()
	e, open := spilledEngine(t, dir)
	ch := e.Charges()
	for when, read := range map[string]func(){"first pass": func() {}, "after the engine's Close": func() {
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}} {
		read()
		if got, err := chargesText(t, ch); err != nil || got != want {
			t.Errorf("%s: charges (%v)\n%s\nwant those of the engine that did not spill\n%s", when, err, got, want)
		}
	}
	for _, err := range ch.All() {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d runs open after a loop left early, want 0", n)
	}
	if err := ch.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := chargesText(t, ch); !errors.Is(err, pricing.ErrClosed) {
		t.Errorf("closed charges: %v, want ErrClosed", err)
	}
	if n := foldersIn(t, dir); n != 0 {
		t.Errorf("%d folder(s) of runs left after the last Close, want none", n)
	}
	closed, _ := spilledEngine(t, t.TempDir())
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := chargesText(t, closed.Charges()); !errors.Is(err, pricing.ErrClosed) || !errors.Is(err, pricing.ErrSpill) {
		t.Errorf("charges asked of a closed spilled engine: %v, want ErrClosed and ErrSpill", err)
	}
}

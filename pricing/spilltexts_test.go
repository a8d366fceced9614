package pricing

import (
	"fmt"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestRunTextsRank numbers texts in the order met and ranks them in byte
// order, "" first, again once more are numbered; past its bound a new
// text has no number, one numbered before keeps its own.
func TestRunTextsRank(t *testing.T) {
	r := runTexts{max: 5}
	met := []string{"k5", "", "k1", "(other keys)", "K9", "k10", "k3"}
	want := []text{1, 0, 2, 3, 4, 5, absentText}
	for i, s := range met {
		if n := r.id(s); n != want[i] {
			t.Errorf("text %q numbered %d, want %d", s, n, want[i])
		}
	}
	if n := r.id("k1"); n != 2 {
		t.Errorf("k1 past the bound: %d, want its number 2", n)
	}
	r.rank()
	// In byte order: "" < "(other keys)" < "K9" < "k1" < "k10" < "k5".
	wantRanks := []uint32{0, 5, 3, 1, 2, 4}
	for n, w := range wantRanks {
		if r.ranks[n] != w {
			t.Errorf("rank of %q: %d, want %d", r.t.list[n], r.ranks[n], w)
		}
	}
	for _, tc := range []struct {
		n    uint64
		want string
		ok   bool
	}{{0, "", true}, {3, "(other keys)", true}, {5, "k10", true}, {6, "", false}, {1 << 40, "", false}} {
		if s, ok := r.of(tc.n); s != tc.want || ok != tc.ok {
			t.Errorf("of(%d) = %q, %v; want %q, %v", tc.n, s, ok, tc.want, tc.ok)
		}
	}
}

// textCalls are calls whose texts a spill's numbers could get wrong:
// keys, teams and users met for the first time after several spills,
// among them some that sort between the values of runs written before
// ("k3" between "k1" and "k5"), empty ones, the text of a folded value
// ("(other keys)") as a key's, a key whose alias changes to one that
// sorts first after a spill, and tags.
func textCalls() []ledger.Call {
	keys := []string{"k5", "k1", "k9", "", "k3", "(other keys)", "k10", "k0", "K2", "k1"}
	var calls []ledger.Call
	for i := range 400 {
		k := keys[min(i/40, len(keys)-1)]
		if i%3 == 0 {
			k = keys[(i/7)%len(keys)] // a key met before comes again
		}
		c := call(fmt.Sprintf("t%d", i), []string{"flash", "mystery"}[i%2],
			time.Date(2026, 9, 1+i%5, i%24, 0, 0, 0, time.UTC).Format(time.RFC3339), int64(100+i), int64(i%7), int64(10+i%13))
		c.Key, c.Team, c.User, c.Tags = k, []string{"", "t-b", "t-a"}[i%3], fmt.Sprintf("u%d", (i*7)%11), []string{"", "x", "a"}[i%3]
		c.KeyAlias = "alias-z"
		if i > 200 {
			c.KeyAlias = "alias-a" // sorts first: the alias of the group's part in a later run
		}
		c.Recorded = ledger.NewAmount(int64(i*37%1000), -6)
		calls = append(calls, c)
	}
	return calls
}

// TestSpilledTextsAreTheUnlimitedOnes prices textCalls held in memory and
// spilled every few buckets, its runs merged into one past 16 of them,
// with the runs' texts numbered and with them past the bound of texts
// (written whole, compared as text), and checks every group, in order,
// against the unlimited engine's.
func TestSpilledTextsAreTheUnlimitedOnes(t *testing.T) {
	cat := testCatalog(t)
	calls := textCalls()
	for _, tc := range []struct {
		name     string
		dims     []Dim
		budget   int
		maxTexts int // 0: maxRunTexts
	}{
		{name: "model, key, day", dims: []Dim{DimModel, DimKey, DimDay}, budget: 3},
		{name: "team, user", dims: []Dim{DimTeam, DimUser}, budget: 2},
		{name: "key, tag, period", dims: []Dim{DimKey, DimTag, DimPeriod}, budget: 5},
		{name: "model, key, day; past the bound of texts", dims: []Dim{DimModel, DimKey, DimDay}, budget: 3, maxTexts: 4},
		{name: "team, user, key; no text numbered", dims: []Dim{DimTeam, DimUser, DimKey}, budget: 4, maxTexts: -1},
	} {
		// Every output kept (a spill collapses after its run), and the
		// groups alone, as reconcile asks (each bucket collapsed as the
		// run reads it).
		for _, outputs := range []Outputs{0, OutputGroups} {
			t.Run(fmt.Sprintf("%s; outputs %d", tc.name, outputs), func(t *testing.T) {
				spilledTextsCase(t, cat, calls, tc.dims, tc.budget, tc.maxTexts, outputs)
			})
		}
	}
}

// spilledTextsCase is a case of TestSpilledTextsAreTheUnlimitedOnes: the
// calls by dims held whole and spilled every budget buckets, the runs'
// texts bounded by maxTexts (0: maxRunTexts), the engine told of
// outputs.
func spilledTextsCase(t *testing.T, cat *tariffs.Catalog, calls []ledger.Call, dims []Dim, budget, maxTexts int, outputs Outputs) {
	opts := Options{Dims: dims, Zone: time.UTC}
	whole := New(cat, opts)
	runs := &memRuns{limit: 128} // 16 runs kept before they merge
	opts.Runs, opts.MaxGroups, opts.Outputs = runs.store, budget, outputs
	spilled := New(cat, opts)
	defer spilled.Close()
	spilled.runs.textsOf().max = maxTexts
	for i := range calls {
		whole.AddPriced(&calls[i])
		spilled.AddPriced(&calls[i])
	}
	if spilled.runs.written() <= spilled.runs.max {
		t.Fatalf("%d runs written, %d kept: none merged", spilled.runs.written(), spilled.runs.max)
	}
	want := whole.Reconcile().groups
	r := spilled.Reconcile()
	defer r.Close()
	got, err := Collect(r.Groups())
	if err != nil || len(got) != len(want) {
		t.Fatalf("%d groups (%v), want %d", len(got), err, len(want))
	}
	for i := range got {
		if !sameGroup(&got[i], &want[i]) {
			t.Fatalf("group %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// TestValueIDAcrossValues checks that a text found by its number among
// an engine's values, and an alias by its key's number, have the numbers
// id gives them, when the numbers are met again, and once the values
// start again and number other texts alike.
func TestValueIDAcrossValues(t *testing.T) {
	var r runTexts
	values := &texts{}
	for round := range 3 {
		names := []string{"k-a", "k-b", "k-c"}
		if round > 0 {
			values = values.emptied() // the same numbers, other texts
			for i := range names {
				names[i] = fmt.Sprint(names[i], round)
			}
		}
		for _, name := range names {
			values.id(name)
		}
		for pass := range 2 {
			for i := range names {
				name := names[len(names)-1-i] // the last numbered first: the list grows past the others
				n := values.lookup(name)
				alias := name + "-alias"
				if pass == 1 && round == 2 {
					alias = name + "-renamed" // the key's alias changed
				}
				if got, want := r.valueID(values, n, name), r.id(name); got != want {
					t.Fatalf("round %d, pass %d: %q is %d by its value, %d by id", round, pass, name, got, want)
				}
				if got, want := r.aliasID(values, n, alias), r.id(alias); got != want {
					t.Fatalf("round %d, pass %d: alias %q is %d by its key, %d by id", round, pass, alias, got, want)
				}
			}
		}
	}
}

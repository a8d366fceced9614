package pricing

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// TestKeyAliasWhateverItsCopies prices the calls of keys in random
// orders, each call's alias its own copy or a shared one, and checks that
// a key's group has the first of its aliases in sort order: a key of one
// alias, met in many copies (noteAlias's notes), one of two aliases, and
// one whose second alias comes after many calls of its first.
func TestKeyAliasWhateverItsCopies(t *testing.T) {
	cat := testCatalog(t)
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		calls := make([]ledger.Call, 600)
		shared := map[string]string{}
		for i := range calls {
			// Calls of one model, all priced, on two days: a group a key
			// and day, the groups of a key made at other times.
			day := []string{"2026-09-01T12:00:00Z", "2026-09-02T12:00:00Z"}[rng.IntN(2)]
			calls[i] = call(fmt.Sprintf("r%d", i), "flash", day, 1000, 0, 100)
			c := &calls[i]
			switch n := i % 3; n {
			case 0:
				c.Key, c.KeyAlias = "one", "alias-one"
			case 1:
				c.Key, c.KeyAlias = "two", []string{"alias-b", "alias-a"}[rng.IntN(2)]
			default:
				c.Key, c.KeyAlias = "late", "alias-z"
				if i > 500 && rng.IntN(10) == 0 {
					c.KeyAlias = "alias-y"
				}
			}
			if i%300 == 299 {
				c.KeyAlias = "" // a call of no alias changes nothing
			}
			// Its own copy, the shared one, or a copy kept aside.
			switch rng.IntN(3) {
			case 0:
				c.KeyAlias = strings.Clone(c.KeyAlias)
			case 1:
				if s, ok := shared[c.KeyAlias]; ok {
					c.KeyAlias = s
				} else {
					shared[c.KeyAlias] = c.KeyAlias
				}
			}
		}
		// The first alias in sort order of each key and day.
		want := map[string]string{}
		for i := range calls {
			c := &calls[i]
			g := c.Key + " " + c.End.Format(time.DateOnly)
			want[g] = firstAlias(want[g], strings.Clone(c.KeyAlias))
		}
		e := New(cat, Options{Dims: []Dim{DimKey, DimDay}})
		for i := range calls {
			e.AddPriced(&calls[i])
		}
		rec := e.Reconcile()
		if len(rec.groups) != len(want) || rec.Rows.Priced != int64(len(calls)) {
			t.Fatalf("seed %d: %d groups, rows %+v; want %d groups of priced calls", seed, len(rec.groups), rec.Rows, len(want))
		}
		for _, g := range rec.groups {
			k := g.Key.Key + " " + g.Key.Start.Format(time.DateOnly)
			if g.KeyAlias != want[k] {
				t.Fatalf("seed %d: group %q has alias %q, want %q", seed, k, g.KeyAlias, want[k])
			}
		}
	}
}

// TestKeyAliasInTurn prices calls of one key in a given order, each
// alias given by its text and its copy, and checks the alias of each
// day's group: a key met with a second alias is compared again at each
// call, however its first alias's bytes were noted.
func TestKeyAliasInTurn(t *testing.T) {
	cat := testCatalog(t)
	a1, a2, b1 := "alias-a", strings.Clone("alias-a"), "alias-b"
	type step struct {
		day   int
		alias string
	}
	for _, tc := range []struct {
		name  string
		steps []step
		want  [2]string // by day
	}{
		{"a second alias, then the first's bytes", []step{{0, a1}, {1, b1}, {1, a1}}, [2]string{a1, a1}},
		{"a second alias, then a copy of the first", []step{{0, a1}, {0, a2}, {1, b1}, {1, a2}}, [2]string{a1, a1}},
		{"two copies of one alias", []step{{0, a1}, {0, a2}, {1, a2}, {1, a1}}, [2]string{a1, a1}},
		{"the first alias after the second", []step{{0, b1}, {1, a1}, {1, b1}, {0, a1}}, [2]string{a1, a1}},
		{"a call of no alias", []step{{0, ""}, {1, b1}, {0, b1}, {1, ""}}, [2]string{b1, b1}},
	} {
		e := New(cat, Options{Dims: []Dim{DimKey, DimDay}})
		for i, s := range tc.steps {
			c := call(fmt.Sprintf("r%d", i), "flash", []string{"2026-09-01T12:00:00Z", "2026-09-02T12:00:00Z"}[s.day], 1000, 0, 100)
			c.Key, c.KeyAlias = "k", s.alias
			e.AddPriced(&c)
		}
		rec := e.Reconcile()
		if len(rec.groups) != 2 {
			t.Fatalf("%s: %d groups, want one a day", tc.name, len(rec.groups))
		}
		for d, g := range rec.groups {
			if g.KeyAlias != tc.want[d] {
				t.Errorf("%s: day %d has alias %q, want %q", tc.name, d+1, g.KeyAlias, tc.want[d])
			}
		}
	}
}

// TestNoteAliasOfAKeyNotNumbered checks that a bucket whose key is no
// number of the values (absentText) gets its alias and is noted by
// nothing: a note by that number would be a list of 2^32 entries.
func TestNoteAliasOfAKeyNotNumbered(t *testing.T) {
	e := New(testCatalog(t), Options{Dims: []Dim{DimKey}})
	b := &bucket{k: bucketKey{holder: heldBy{key: absentText}}}
	e.noteAlias(b, "alias-b")
	e.noteAlias(b, "alias-a")
	if b.KeyAlias != "alias-a" || len(e.aliases.of) != 0 {
		t.Fatalf("alias %q, %d keys noted; want alias-a and none", b.KeyAlias, len(e.aliases.of))
	}
}

package pricing

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTexts numbers strings met at different addresses (as each reading
// goroutine interns its own copy), the empty string as 0, and finds no
// number for a string never numbered.
func TestTexts(t *testing.T) {
	var ts texts
	copyOf := func(s string) string { return strings.Clone(s) }
	a, b := "sk-aaaa", "sk-bbbb"
	cases := []struct {
		name string
		s    string
		want text
	}{
		{name: "empty", s: "", want: 0},
		{name: "first", s: a, want: 1},
		{name: "second", s: b, want: 2},
		{name: "first again, same bytes", s: a, want: 1},
		{name: "first again, a copy", s: copyOf(a), want: 1},
		{name: "a prefix of the first, same address", s: a[:3], want: 3},
		{name: "second again, a copy", s: copyOf(b), want: 2},
	}
	for _, tc := range cases {
		if got := ts.id(tc.s); got != tc.want {
			t.Errorf("%s: id(%q) = %d, want %d", tc.name, tc.s, got, tc.want)
		}
		if got := ts.of(tc.want); got != tc.s {
			t.Errorf("%s: of(%d) = %q, want %q", tc.name, tc.want, got, tc.s)
		}
	}
	if got := ts.lookup("sk-never"); got != absentText {
		t.Errorf("lookup of a string never numbered = %d, want absentText", got)
	}
	other := copyOf(b) // as another reading goroutine holds b
	if _, ok := ts.numberAt(other); ok {
		t.Fatalf("a copy of %q never numbered is found by its address", b)
	}
	if got := ts.lookup(other); got != 2 {
		t.Errorf("lookup(%q) = %d, want 2", b, got)
	}
	// lookup numbers nothing, but finds that copy by its address from
	// then on, as id would: the look-ahead reads its keys with lookup
	// alone.
	if n, ok := ts.numberAt(other); !ok || n != 2 {
		t.Errorf("after lookup, the copy of %q by its address: %d, %v; want 2, true", b, n, ok)
	}
	if got := ts.lookup(copyOf("sk-never")); got != absentText || ts.len() != 3 {
		t.Errorf("lookup of a string never numbered, again = %d (%d numbered), want absentText", got, ts.len())
	}
	if ts.len() != 3 {
		t.Errorf("%d strings numbered, want 3", ts.len())
	}
}

// TestFoldingEngineNumbersNoMoreTexts checks that an engine past its
// budget of buckets, folding rather than spilling, numbers no string it
// has not seen: its texts stay within the budget however many keys come.
func TestFoldingEngineNumbersNoMoreTexts(t *testing.T) {
	cat := testCatalog(t)
	e := New(cat, Options{Dims: []Dim{DimModel, DimKey}, MaxGroups: 16})
	calls := randomCalls(rand.New(rand.NewPCG(7, 26)), 3000)
	keys := map[string]bool{}
	for i := range calls {
		calls[i].Key = fmt.Sprintf("key-%d", i) // a key a call
		e.AddPriced(&calls[i])
		keys[calls[i].Key] = true
	}
	if _, folded := e.Folded(); folded == 0 {
		t.Fatal("nothing folded: the test needs an engine past its budget")
	}
	// Within budget, 16 buckets name at most 16 keys; the "(other keys)"
	// value is one more.
	if n := e.table.values.len(); n > 17 || n >= len(keys) {
		t.Fatalf("%d texts numbered for %d keys and a budget of 16 buckets, want at most 17", n, len(keys))
	}
}

// TestTextsByAddressPastTheIndex numbers more strings than the index of
// addresses takes (maxAt), each met at two addresses, and checks that
// every one keeps its number by either copy, that the index stops at its
// bound, and that an emptied texts numbers from 1 again in the same index.
func TestTextsByAddressPastTheIndex(t *testing.T) {
	var ts texts
	n := maxAt/2 + 5000 // two copies each: past maxAt addresses
	first := make([]string, n)
	second := make([]string, n)
	for i := range first {
		first[i] = fmt.Sprintf("sk-%07d", i)
		second[i] = strings.Clone(first[i])
	}
	for round := range 2 {
		for i := range first {
			for _, s := range []string{first[i], second[i]} {
				if got := ts.id(s); got != text(i+1) {
					t.Fatalf("round %d: id(%q) = %d, want %d", round, s, got, i+1)
				}
			}
		}
	}
	if ts.held != maxAt {
		t.Fatalf("%d addresses held, want the bound %d", ts.held, maxAt)
	}
	if 2*ts.held > len(ts.at) {
		t.Fatalf("%d addresses in %d slots: more than half full", ts.held, len(ts.at))
	}
	size := len(ts.at)
	e := ts.emptied()
	if len(e.at) != size || e.held != 0 || e.len() != 0 {
		t.Fatalf("emptied: %d slots, %d held, %d numbered; want %d, 0, 0", len(e.at), e.held, e.len(), size)
	}
	for i, s := range []string{second[7], first[3], first[7]} {
		if got, want := e.id(s), []text{1, 2, 1}[i]; got != want {
			t.Errorf("emptied: id(%q) = %d, want %d", s, got, want)
		}
	}
}

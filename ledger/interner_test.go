package ledger

import (
	"fmt"
	"testing"
	"unsafe"
)

// TestInternerKeepsItsValuesPastTheBound checks that values read once the
// interner is full come back right, that it holds no more than its bound,
// and that the values it took before stay shared: the map is not dropped
// and rebuilt.
func TestInternerKeepsItsValuesPastTheBound(t *testing.T) {
	var in interner
	first := in.get([]byte("value-0000000"))
	for i := range maxInterned + 1000 {
		v := fmt.Sprintf("value-%07d", i)
		if got := in.get([]byte(v)); got != v {
			t.Fatalf("get(%q) = %q", v, got)
		}
	}
	if in.n != maxInterned {
		t.Fatalf("the interner holds %d values, want its bound %d", in.n, maxInterned)
	}
	again := in.get([]byte("value-0000000"))
	if unsafe.StringData(again) != unsafe.StringData(first) {
		t.Fatal("a value interned before the bound was reached is copied again: the map was rebuilt")
	}
}

// TestInternerSharesValuesOfTheSameEnds checks values that share their
// length and their first and last eight bytes, and so the cache's slot
// (paths, names with a long prefix and suffix): each comes back right,
// and read again after the others took its slot, it is the same string.
func TestInternerSharesValuesOfTheSameEnds(t *testing.T) {
	var in interner
	const n = 5000
	first := make([]string, n)
	for i := range n {
		v := fmt.Sprintf("projects/acme-%05d/models/chat", i)
		if first[i] = in.get([]byte(v)); first[i] != v {
			t.Fatalf("get(%q) = %q", v, first[i])
		}
	}
	for i := range n {
		v := fmt.Sprintf("projects/acme-%05d/models/chat", i)
		got := in.get([]byte(v))
		if got != v {
			t.Fatalf("read again, get(%q) = %q", v, got)
		}
		if unsafe.StringData(got) != unsafe.StringData(first[i]) {
			t.Fatalf("get(%q) read again is a copy, not the string held", v)
		}
	}
	if in.n != n {
		t.Fatalf("the interner holds %d values, want %d", in.n, n)
	}
}

// TestInternerPairs checks getPair against get: pairs of the same ends
// (so of one memo slot), a key met with another alias, empty values and
// values past the bound each come back right, and a pair read again is
// the strings the interner holds.
func TestInternerPairs(t *testing.T) {
	var in interner
	type pair struct{ a, b string }
	var pairs []pair
	for i := range 3000 {
		pairs = append(pairs, pair{fmt.Sprintf("%064d", i), fmt.Sprintf("key-%07d", i)})
	}
	pairs = append(pairs, pair{fmt.Sprintf("%064d", 7), "key-renamed"}, pair{"", "alias-only"}, pair{"key-only", ""},
		pair{"k", "a"}, pair{fmt.Sprintf("%064d", 7), "key-0000007"})
	for round := range 3 {
		for _, p := range pairs {
			a, b := in.getPair([]byte(p.a), []byte(p.b))
			if a != p.a || b != p.b {
				t.Fatalf("round %d: getPair(%q, %q) = %q, %q", round, p.a, p.b, a, b)
			}
			if ga, gb := in.get([]byte(p.a)), in.get([]byte(p.b)); unsafe.StringData(ga) != unsafe.StringData(a) ||
				unsafe.StringData(gb) != unsafe.StringData(b) {
				t.Fatalf("round %d: getPair(%q, %q) is not the strings get holds", round, p.a, p.b)
			}
		}
	}
	// Past the bound, a value is copied: the pair comes back right all
	// the same.
	for i := range maxInterned {
		in.get([]byte(fmt.Sprintf("filler-%07d", i)))
	}
	for _, p := range []pair{{"new-key", "new-alias"}, {"new-key", "new-alias"}, {"new-key", "other-alias"}} {
		if a, b := in.getPair([]byte(p.a), []byte(p.b)); a != p.a || b != p.b {
			t.Fatalf("past the bound, getPair(%q, %q) = %q, %q", p.a, p.b, a, b)
		}
	}
}

package ledger

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
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

// TestInternerPairsAtOnce checks getPairs against getPair: the same
// values, in order, and the strings the interner holds, on a sequence
// longer than a window (pairWindow) that repeats pairs inside a window
// and across, meets a key with another alias, holds empty values, and
// puts more pairs on one memo set than it keeps; then on batches of a
// few pairs, and of none.
func TestInternerPairsAtOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var keys, aliases [][]byte
	add := func(k, a string) { keys, aliases = append(keys, []byte(k)), append(aliases, []byte(a)) }
	for range 3 * pairWindow {
		i := rng.IntN(400)
		add(fmt.Sprintf("%064d", i), fmt.Sprintf("key-%07d", i))
	}
	// Keys of the same first and last eight bytes share a memo set: five
	// of them, more than it keeps, met in turn.
	for range 4 {
		for i := range 5 {
			add(fmt.Sprintf("sk-hash-%d-same-end", i), fmt.Sprintf("alias-%d", i))
		}
	}
	add(fmt.Sprintf("%064d", 7), "key-renamed")
	add("", "alias-only")
	add("key-only", "")
	add(fmt.Sprintf("%064d", 7), "key-0000007")
	var one, many interner
	got := make([][2]string, len(keys))
	var sink uint64
	many.getPairs(keys, aliases, func(i int, k, a string) { got[i] = [2]string{k, a} }, &sink)
	for i := range keys {
		k, a := one.getPair(keys[i], aliases[i])
		if got[i] != [2]string{k, a} || k != string(keys[i]) || a != string(aliases[i]) {
			t.Fatalf("pair %d: getPairs gave %q, getPair %q, %q; the row has %q, %q", i, got[i], k, a, keys[i], aliases[i])
		}
		if gk, ga := many.get(keys[i]), many.get(aliases[i]); unsafe.StringData(gk) != unsafe.StringData(got[i][0]) ||
			unsafe.StringData(ga) != unsafe.StringData(got[i][1]) {
			t.Fatalf("pair %d (%q, %q) is not the strings the interner holds", i, keys[i], aliases[i])
		}
	}
	// Batches of a few pairs, and of none, from the end of the sequence
	// (its odd pairs among them), one interner for them all.
	var short interner
	for n := range 30 {
		ks, as := keys[len(keys)-n:], aliases[len(aliases)-n:]
		calls := 0
		short.getPairs(ks, as, func(i int, k, a string) {
			if calls++; i != calls-1 || k != string(ks[i]) || a != string(as[i]) {
				t.Fatalf("batch of %d: put %d (%q, %q) as call %d; the row has %q, %q", n, i, k, a, calls, ks[i], as[i])
			}
		}, &sink)
		if calls != n {
			t.Fatalf("batch of %d: %d pairs put", n, calls)
		}
	}
}

// TestCSVKeysInternedWithTheBatch reads rows whose keys and aliases the
// CSV reader interns at each batch's end (csvWorker.internPairs), in
// batches of three, with two rejected rows and rows of a raw key, a key
// without alias, an alias without key and quoted keys and aliases among
// them: each call has its own row's key and alias, and none of a rejected
// row.
func TestCSVKeysInternedWithTheBatch(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("request_id,startTime,endTime,spend,prompt_tokens,completion_tokens,model,api_key,key_alias\n")
	type want struct{ key, alias string }
	var wants []want
	for i := range 20 {
		key, alias := fmt.Sprintf("%064d", i%6), fmt.Sprintf("key-%d", i%6)
		spend, prompt := "0.5", "1"
		switch i {
		case 4:
			spend = "lots" // rejected before its key is read
		case 11:
			prompt = "2000000000000000" // rejected after (Call.check), last of its batch
		case 7:
			key = "" // an alias alone
		case 9:
			alias = "" // a key alone
		case 13:
			key = "sk-raw-13" // a raw key, hashed
		}
		field := func(s string) string { return s }
		if i == 15 || i == 16 { // quoted, a quote doubled: unescaped in place
			key, alias = `quoted"key,`+key, `quoted"alias`
			field = func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
		}
		fmt.Fprintf(&sb, "r%d,2026-10-01 00:00:%02d,2026-10-01 00:00:%02d,%s,%s,1,gpt-4o,%s,%s\n", i, i, i+1, spend, prompt, field(key), field(alias))
		if i == 4 || i == 11 {
			continue
		}
		if key == "sk-raw-13" {
			key = HashKey(key)
		}
		wants = append(wants, want{key, alias})
	}
	r, err := open(context.Background(), "in.csv", strings.NewReader(sb.String()), Options{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []want
	rejected := 0
	for {
		var b Batch
		err := r.Next(context.Background(), &b)
		rejected += len(b.Rejected)
		for _, c := range b.Calls {
			got = append(got, want{c.Key, c.KeyAlias})
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if rejected != 2 || !slices.Equal(got, wants) {
		t.Fatalf("rejected %d rows, want 2; keys and aliases\n got %q\nwant %q", rejected, got, wants)
	}
}

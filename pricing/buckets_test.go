package pricing

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/tokenfare/tokenfare/tariffs"
)

// TestBucketTable adds buckets past several doublings of the index, finds
// each by its key and no bucket for a key never added, then drops some and
// finds exactly the others.
func TestBucketTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
	}{
		{name: "empty", n: 0},
		{name: "within the first index", n: 10},
		{name: "past slabs and doublings", n: 5*bucketSlab + 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tb bucketTable
			keyOf := func(i int) bucketKey {
				// Keys alike but for one field each, as a real run's are.
				k := bucketKey{unknown: 1, slot: int64(i % 7 * 86400)}
				k.holder.key = text(i/7 + 1)
				return k
			}
			for i := range tc.n {
				k := keyOf(i)
				if tb.get(&k) != nil {
					t.Fatalf("key %d found before it was added", i)
				}
				tb.add(&k, &bucketPricing{}).Calls = int64(i)
			}
			if tb.len() != tc.n {
				t.Fatalf("%d buckets, want %d", tb.len(), tc.n)
			}
			for i := range tc.n {
				k := keyOf(i)
				if b := tb.get(&k); b == nil || b.Calls != int64(i) {
					t.Fatalf("key %d: got %v", i, b)
				}
			}
			absent := bucketKey{unknown: 1}
			absent.holder.key = text(tc.n + 1)
			if tb.get(&absent) != nil {
				t.Fatal("a key never added was found")
			}
			tb.deleteWhere(func(b *bucket) bool { return b.Calls%3 == 0 })
			for i := range tc.n {
				k := keyOf(i)
				if b := tb.get(&k); (b != nil) != (i%3 != 0) || b != nil && b.Calls != int64(i) {
					t.Fatalf("key %d after deleting every third: got %v", i, b)
				}
			}
			if want := tc.n - (tc.n+2)/3; tb.len() != want {
				t.Fatalf("%d buckets left, want %d", tb.len(), want)
			}
			// Buckets made after, past doublings of the index: the
			// buckets listed are no longer in the slabs' order.
			for i := tc.n; i < 3*tc.n; i++ {
				k := keyOf(i)
				tb.add(&k, &bucketPricing{}).Calls = int64(i)
			}
			for i := range 3 * tc.n {
				k := keyOf(i)
				if b := tb.get(&k); (b != nil) != (i >= tc.n || i%3 != 0) || b != nil && b.Calls != int64(i) {
					t.Fatalf("key %d after more were made: got %v", i, b)
				}
			}
		})
	}
}

// TestBucketTableRecycle checks that a table making its buckets in the
// emptied slabs of another starts each bucket empty, finds each by its
// key, and finds none of the old table's.
func TestBucketTableRecycle(t *testing.T) {
	var old bucketTable
	for i := range 3*bucketSlab + 5 {
		k := bucketKey{unknown: 1, slot: int64(i)}
		b := old.add(&k, &bucketPricing{})
		b.Calls, b.KeyAlias = 7, "old"
	}
	n := bucketTable{slots: old.slots[:0]}
	n.reserve(10)
	oldList := old.list
	n.recycle(&old)
	if len(n.spare) != 4 {
		t.Fatalf("%d spare slabs, want the old table's 4", len(n.spare))
	}
	// The old list, emptied, is the next table's to start in: it holds
	// no bucket for the collector to keep.
	if cap(n.spareList) != cap(oldList) || len(n.spareList) != 0 || oldList[0] != nil {
		t.Fatalf("spare list of %d, %d long, first %p; want the old list's memory (%d), empty and cleared",
			cap(n.spareList), len(n.spareList), oldList[0], cap(oldList))
	}
	for i := range 2 * bucketSlab {
		k := bucketKey{unknown: 2, slot: int64(i)}
		if b := n.add(&k, &bucketPricing{}); b.Calls != 0 || b.KeyAlias != "" || b.k != k {
			t.Fatalf("bucket %d made in a recycled slab: %d calls, alias %q, key %+v; want an empty bucket of its key", i, b.Calls, b.KeyAlias, b.k)
		}
	}
	for i := range 2 * bucketSlab {
		k := bucketKey{unknown: 2, slot: int64(i)}
		if n.get(&k) == nil {
			t.Fatalf("bucket %d not found", i)
		}
		if old := (bucketKey{unknown: 1, slot: int64(i)}); n.get(&old) != nil {
			t.Fatalf("the old table's bucket %d found in the new", i)
		}
	}
}

// TestPlaceFindsABucketByItsStrings feeds an engine random calls, each
// followed by a copy whose strings are at other addresses (texts.id
// numbers them through its map rather than by address), and checks that
// the copies land in their originals' buckets: as many buckets as an
// engine fed the originals alone, through the index's doublings, spills
// and folds, and every bucket found again by its key.
func TestPlaceFindsABucketByItsStrings(t *testing.T) {
	cat := testCatalog(t)
	dims := []Dim{DimModel, DimKey, DimTeam, DimUser, DimTag, DimDay}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{name: "held in memory", opts: Options{Dims: dims}},
		{name: "spilled", opts: Options{Dims: dims, Runs: (&memRuns{}).store, MaxGroups: 50}},
		{name: "folded", opts: Options{Dims: dims, MaxGroups: 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := randomCalls(rand.New(rand.NewPCG(41, 3)), 3000)
			rng := rand.New(rand.NewPCG(5, 8))
			for i := range calls {
				c := &calls[i]
				c.Team, c.User, c.Tags = fmt.Sprintf("t%d", rng.IntN(4)), fmt.Sprintf("u%d", rng.IntN(30)), fmt.Sprintf("tag%d", rng.IntN(3))
			}
			alone, doubled := New(cat, tc.opts), New(cat, tc.opts)
			defer alone.Close()
			defer doubled.Close()
			for i := range calls {
				alone.AddPriced(&calls[i])
				doubled.AddPriced(&calls[i])
				cp := calls[i]
				cp.RequestID, cp.Identity = cp.RequestID+"-copy", cp.Identity+"-copy"
				for _, s := range []*string{&cp.Model, &cp.Key, &cp.Team, &cp.User, &cp.Tags, &cp.KeyAlias} {
					*s = strings.Clone(*s)
				}
				doubled.AddPriced(&cp)
			}
			for _, e := range []*Engine{alone, doubled} {
				if err := e.Err(); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := doubled.table.buckets.len(), alone.table.buckets.len(); got != want {
				t.Errorf("%d buckets with each call's copy, want the originals' %d", got, want)
			}
			if got, want := doubled.runs.files(), alone.runs.files(); got != want {
				t.Errorf("%d runs with each call's copy, want the originals' %d", got, want)
			}
			if tc.opts.Runs != nil && alone.runs.files() == 0 {
				t.Fatal("nothing spilled: the test checks too little")
			}
			for _, b := range doubled.table.buckets.all() {
				if got := doubled.table.buckets.get(&b.k); got != b {
					t.Fatalf("bucket %+v not found by its key (got %p, want %p)", b.k, got, b)
				}
			}
		})
	}
}

// TestBucketTableReserve checks that a table reserved for n buckets takes
// them without growing its index, which stays at most three quarters full,
// and that a key never added is still found absent in it.
func TestBucketTableReserve(t *testing.T) {
	for _, n := range []int{1, 47, 48, 49, DefaultSpillBuckets} {
		var tb bucketTable
		tb.reserve(n)
		size := len(tb.slots)
		if 4*n > 3*size || size&(size-1) != 0 {
			t.Fatalf("reserve(%d): %d slots, want a power of two at least 4/3 of it", n, size)
		}
		if n == DefaultSpillBuckets && size*int(unsafe.Sizeof(hashedBucket{}))+n*bucketBytes() > DefaultSpillBytes {
			t.Fatalf("reserve(%d): %d slots, with the buckets past DefaultSpillBytes", n, size)
		}
		for i := range n {
			k := bucketKey{unknown: 1}
			k.holder.key = text(i + 1)
			tb.add(&k, &bucketPricing{})
		}
		if len(tb.slots) != size {
			t.Fatalf("reserve(%d): the index grew from %d to %d slots", n, size, len(tb.slots))
		}
		absent := bucketKey{unknown: 2}
		if tb.get(&absent) != nil {
			t.Fatalf("reserve(%d): a key never added was found", n)
		}
	}
}

// bucketBytes is what a bucket takes besides the index: itself and its
// place in the list.
func bucketBytes() int { return int(unsafe.Sizeof(bucket{}) + unsafe.Sizeof((*bucket)(nil))) }

// TestBucketsIn checks that the budget of buckets of a size in bytes is
// the most that fit with their index at most three quarters full: they
// fit with the index reserve makes, and one more bucket fits with no
// index size.
func TestBucketsIn(t *testing.T) {
	slot := int(unsafe.Sizeof(indexSlot(0)))
	for _, size := range []int{64*slot + 10*bucketBytes(), 1 << 20, 50 << 20, DefaultSpillBytes} {
		n := bucketsIn(size)
		var tb bucketTable
		tb.reserve(n)
		if used := len(tb.slots)*slot + n*bucketBytes(); used > size {
			t.Errorf("bucketsIn(%d) = %d: %d bytes with its index", size, n, used)
		}
		for slots := 64; slots*slot < size; slots *= 2 {
			if n+1 <= indexRoom(slots) && slots*slot+(n+1)*bucketBytes() <= size {
				t.Errorf("bucketsIn(%d) = %d: %d fit with %d slots", size, n, n+1, slots)
			}
		}
	}
	if n := bucketsIn(64*slot + 10*bucketBytes()); n != 10 {
		t.Errorf("bucketsIn(64 slots and 10 buckets) = %d, want 10", n)
	}
	// An index of 64 slots holds 48 - 1 buckets of the budget: 47 fit in
	// its memory and theirs, and with one byte less 46 (128 slots take
	// more than the whole).
	if n := bucketsIn(64*slot + 47*bucketBytes()); n != 47 {
		t.Errorf("bucketsIn(64 slots and 47 buckets) = %d, want 47", n)
	}
	if n := bucketsIn(64*slot + 47*bucketBytes() - 1); n != 46 {
		t.Errorf("bucketsIn(64 slots and 47 buckets, less a byte) = %d, want 46", n)
	}
}

// TestBucketHashSpreads places in an index keys that differ in one field
// each, then in two (a key and a day, as a month by key and day does),
// and checks that they fall as a random hash's would: a field the hash
// left out, or mixed so that its values collide, would put its keys on
// few slots and make their probes long. At an index filled to a bit
// under half, linear probing expects about 0.45 steps a key past its
// slot; a bound of 1 leaves room for any seed.
func TestBucketHashSpreads(t *testing.T) {
	models := make([]tariffs.Model, 4096)
	versions := make([]tariffs.Version, 4096)
	fields := []struct {
		name string
		set  func(k *bucketKey, i int)
	}{
		{"model", func(k *bucketKey, i int) { k.model = &models[i] }},
		{"version", func(k *bucketKey, i int) { k.version = &versions[i] }},
		{"slot", func(k *bucketKey, i int) { k.slot = 1_790_000_000 + int64(i)*3600 }},
		{"unknown", func(k *bucketKey, i int) { k.unknown = text(i + 1) }},
		{"host", func(k *bucketKey, i int) { k.host = text(i + 1) }},
		{"group", func(k *bucketKey, i int) { k.group = text(i + 1) }},
		{"served", func(k *bucketKey, i int) { k.served = text(i + 1) }},
		{"key", func(k *bucketKey, i int) { k.holder.key = text(i + 1) }},
		{"team", func(k *bucketKey, i int) { k.holder.team = text(i + 1) }},
		{"user", func(k *bucketKey, i int) { k.holder.user = text(i + 1) }},
		{"tag", func(k *bucketKey, i int) { k.holder.tag = text(i + 1) }},
		{"meta", func(k *bucketKey, i int) { k.holder.meta = text(i + 1) }},
		{"period and tier", func(k *bucketKey, i int) { k.period, k.tier = uint8(i), uint8(i>>8) }},
		{"variant and outcome", func(k *bucketKey, i int) { k.variant, k.outcome = variantID(i), Outcome(i>>8) }},
	}
	const size = 1 << 14
	spread := func(name string, keys func(yield func(*bucketKey))) {
		tb := bucketTable{seed: randomSeed()}
		slots := make([]bool, size)
		n, probes := 0, 0
		keys(func(k *bucketKey) {
			i := tb.hash(k) & (size - 1)
			for ; slots[i]; i = (i + 1) & (size - 1) {
				probes++
			}
			slots[i] = true
			n++
		})
		if per := float64(probes) / float64(n); per > 1 {
			t.Errorf("%s: %d keys, %.2f probes a key past their slot", name, n, per)
		}
	}
	for _, f := range fields {
		spread(f.name, func(yield func(*bucketKey)) {
			for i := range 4096 {
				k := bucketKey{}
				f.set(&k, i)
				yield(&k)
			}
		})
	}
	spread("key and day", func(yield func(*bucketKey)) {
		for key := range 256 {
			for day := range 28 {
				k := bucketKey{slot: 1_790_000_000 + int64(day)*86400}
				k.holder.key = text(key + 1)
				yield(&k)
			}
		}
	})
}

// TestBucketKeyAbsent sets each text of a bucket key, found by its type
// (a text added to the key later among them), to absentText alone:
// absent must report every one, and no other value.
func TestBucketKeyAbsent(t *testing.T) {
	textType := reflect.TypeOf(text(0))
	var offsets []uintptr
	var names []string
	var walk func(typ reflect.Type, base uintptr, prefix string)
	walk = func(typ reflect.Type, base uintptr, prefix string) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			switch {
			case f.Type == textType:
				offsets, names = append(offsets, base+f.Offset), append(names, prefix+f.Name)
			case f.Type.Kind() == reflect.Struct:
				walk(f.Type, base+f.Offset, prefix+f.Name+".")
			}
		}
	}
	walk(reflect.TypeOf(bucketKey{}), 0, "")
	if len(offsets) < 9 {
		t.Fatalf("found %d texts in a bucket key (%v), want at least the nine of today", len(offsets), names)
	}
	var none bucketKey
	if none.absent() {
		t.Fatal("a key of no text absent: absent")
	}
	for i, off := range offsets {
		k := bucketKey{unknown: 3, host: 4}
		*(*text)(unsafe.Add(unsafe.Pointer(&k), off)) = absentText
		if !k.absent() {
			t.Errorf("%s absent: not reported", names[i])
		}
		*(*text)(unsafe.Add(unsafe.Pointer(&k), off)) = absentText - 1
		if k.absent() {
			t.Errorf("%s the text before absentText: reported absent", names[i])
		}
	}
}

package pricing

import "testing"

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
				tb.add(&k, bucketPricing{}).Calls = int64(i)
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
				if got, want := tb.get(&k) != nil, i%3 != 0; got != want {
					t.Fatalf("key %d after deleting every third: found %v, want %v", i, got, want)
				}
			}
			if want := tc.n - (tc.n+2)/3; tb.len() != want {
				t.Fatalf("%d buckets left, want %d", tb.len(), want)
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
		b := old.add(&k, bucketPricing{})
		b.Calls, b.KeyAlias = 7, "old"
	}
	n := bucketTable{slots: old.slots[:0]}
	n.reserve(10)
	n.recycle(&old)
	if len(n.spare) != 4 {
		t.Fatalf("%d spare slabs, want the old table's 4", len(n.spare))
	}
	for i := range 2 * bucketSlab {
		k := bucketKey{unknown: 2, slot: int64(i)}
		if b := n.add(&k, bucketPricing{}); b.Calls != 0 || b.KeyAlias != "" || b.k != k {
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

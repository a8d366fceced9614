package pricing

import (
	"cmp"
	"hash/maphash"
	"math/bits"
	"slices"
	"unsafe"
)

// bucketTable holds an engine's buckets: in a list, in the order they were
// made, and an index from bucket key to place in the slabs. Buckets are
// made in slabs of bucketSlab, so that a million buckets are a thousand
// objects to allocate and for the garbage collector to find, not a
// million; the index is a table of a word a slot (half the hash and the
// bucket's place in the slabs: indexSlot), not a map holding a copy of
// every 144-byte key, at most three quarters full: 4 MiB for the budget
// of a spilling engine, where two words a slot, a hash and a pointer,
// took 8 MiB, and half full 16 MiB and 5% more CPU on a million groups by
// model, key and day (docs/scale.md, "Ten million groups").
//
// The zero bucketTable is empty and ready to use.
type bucketTable struct {
	seed  uint64      // random, so that no input chooses its collisions
	slots []indexSlot // by hash; its length a power of two
	list  []*bucket   // every bucket, in the order made
	slab  []bucket    // room for the next buckets
	slabs [][]bucket  // every slab made or reused, for reuse (recycle)
	spare [][]bucket  // emptied slabs of another table, used before new ones are made
	// spareList is the emptied list of another table (recycle), whose
	// memory the next table's list starts in (collapse).
	spareList []*bucket
}

// indexSlot is a slot of a bucketTable's index: the high half of its
// bucket's hash and one more than the bucket's place in the slabs
// (bucketTable.at); 0 is a free slot. A word and no pointer: the garbage
// collector does not read the index (8 MiB for a spilling engine's
// budget, each of whose slots it followed at each cycle when a slot was a
// hash and a pointer), and a cache line holds eight slots. A place in the
// slabs, not in the list: the list of slabs is a few KiB, where the list
// of buckets, another read a look-up would wait on, is 8 bytes a bucket.
// A place is 32 bits: a table of 2^32 buckets would be 900 GB.
type indexSlot uint64

// indexSlotOf returns the slot of the bucket at place p of the slabs, of
// hash h.
func indexSlotOf(h uint64, p uint32) indexSlot { return indexSlot(h>>32<<32 | uint64(p+1)) }

// at returns the bucket at place p of the slabs: every slab is bucketSlab
// buckets long.
func (t *bucketTable) at(p uint32) *bucket { return &t.slabs[p/bucketSlab][p%bucketSlab] }

// bucketSlab is how many buckets are made at once.
const bucketSlab = 512

// len returns the number of buckets.
func (t *bucketTable) len() int { return len(t.list) }

// all returns every bucket, in the order they were made. The caller must
// not keep the slice past the next add.
func (t *bucketTable) all() []*bucket { return t.list }

// get returns the bucket of key k, nil when there is none.
func (t *bucketTable) get(k *bucketKey) *bucket {
	b, _ := t.find(k)
	return b
}

// find returns the bucket of key k, nil when there is none, and k's hash
// for addHashed: a new bucket's key is hashed once, not again to index it.
func (t *bucketTable) find(k *bucketKey) (*bucket, uint64) {
	if len(t.slots) == 0 {
		return nil, 0
	}
	h := t.hash(k)
	return t.findHashed(k, h), h
}

// findHashed returns the bucket of key k, whose hash is h; nil when there
// is none.
func (t *bucketTable) findHashed(k *bucketKey, h uint64) *bucket {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return nil
		}
		if uint64(s)>>32 == h>>32 {
			if b := t.at(uint32(s) - 1); b.k == *k {
				return b
			}
		}
	}
}

// add makes the bucket of key k, which must have none yet, priced by p.
func (t *bucketTable) add(k *bucketKey, p *bucketPricing) *bucket {
	return t.addHashed(k, 0, false, p)
}

// addHashed is add with k's hash, h, when known (find's, of the table as
// it is: its seed is made with its first slots).
func (t *bucketTable) addHashed(k *bucketKey, h uint64, known bool, p *bucketPricing) *bucket {
	if len(t.slab) == 0 {
		if n := len(t.spare); n > 0 {
			t.slab, t.spare = t.spare[n-1], t.spare[:n-1]
		} else {
			t.slab = make([]bucket, bucketSlab)
		}
		t.slabs = append(t.slabs, t.slab)
	}
	b, at := &t.slab[0], uint32(len(t.slabs)*bucketSlab-len(t.slab))
	t.slab = t.slab[1:]
	b.k, b.bucketPricing = *k, p
	if 4*(len(t.list)+1) > 3*len(t.slots) {
		t.grow()
		known = false
	}
	if !known {
		h = t.hash(k)
	}
	t.list = append(t.list, b)
	t.placeHashed(at, h)
	return b
}

// recycle empties old's slabs for t to make its buckets in: a spill's
// buckets are made again in the memory of the last spill's, not in new
// memory for the collector to sweep. No bucket of old may be used after.
func (t *bucketTable) recycle(old *bucketTable) {
	for _, s := range old.slabs {
		clear(s)
		t.spare = append(t.spare, s)
	}
	t.spare = append(t.spare, old.spare...)
	clear(old.list)
	t.spareList = old.list[:0]
	old.slabs, old.spare, old.slab, old.list = nil, nil, nil, nil
}

// placeHashed puts the bucket at place p of the slabs, whose key's hash
// is h, in the index.
func (t *bucketTable) placeHashed(p uint32, h uint64) {
	mask := uint64(len(t.slots) - 1)
	j := h & mask
	for t.slots[j] != 0 {
		j = (j + 1) & mask
	}
	t.slots[j] = indexSlotOf(h, p)
}

// grow doubles the index (making it at first) and indexes every bucket
// again, hashing its key: a slot keeps half the hash.
func (t *bucketTable) grow() {
	if len(t.slots) == 0 {
		t.seed = randomSeed()
		t.slots = make([]indexSlot, 64)
		return
	}
	t.reindex(2 * len(t.slots))
}

// reserve makes the index and the list room for n buckets, so that they
// do not grow until there are more.
func (t *bucketTable) reserve(n int) {
	t.list = slices.Grow(t.list, max(0, n-len(t.list)))
	size := 64
	for 3*size < 4*n {
		size *= 2
	}
	if size > len(t.slots) {
		if len(t.slots) == 0 {
			t.seed = randomSeed()
		}
		t.reindex(size)
	}
}

// reindex makes an index of n slots for the listed buckets, in the
// memory of the last index when it has room.
func (t *bucketTable) reindex(n int) {
	if cap(t.slots) >= n {
		t.slots = t.slots[:n]
		clear(t.slots)
	} else {
		t.slots = make([]indexSlot, n)
	}
	places := t.placesOf()
	for _, b := range t.list {
		t.placeHashed(places(b), t.hash(&b.k))
	}
}

// placesOf returns the function that gives a listed bucket's place in
// the slabs, from its address: the slab that holds it, found by a binary
// search of the slabs' addresses, and its place in it. The list is not in
// the slabs' order once deleteWhere has dropped some.
func (t *bucketTable) placesOf() func(*bucket) uint32 {
	type slabAt struct {
		start uintptr
		n     uint32
	}
	starts := make([]slabAt, len(t.slabs))
	for i, s := range t.slabs {
		starts[i] = slabAt{uintptr(unsafe.Pointer(&s[0])), uint32(i)}
	}
	slices.SortFunc(starts, func(a, b slabAt) int { return cmp.Compare(a.start, b.start) })
	size := unsafe.Sizeof(bucket{})
	return func(b *bucket) uint32 {
		a := uintptr(unsafe.Pointer(b))
		i, _ := slices.BinarySearchFunc(starts, a, func(s slabAt, a uintptr) int { return cmp.Compare(s.start, a) })
		if i == len(starts) || starts[i].start != a {
			i-- // the slab starting last before b
		}
		return starts[i].n*bucketSlab + uint32((a-starts[i].start)/size)
	}
}

// deleteWhere removes the buckets drop reports true for.
func (t *bucketTable) deleteWhere(drop func(*bucket) bool) {
	kept := t.list[:0]
	for _, b := range t.list {
		if !drop(b) {
			kept = append(kept, b)
		}
	}
	clear(t.list[len(kept):])
	t.list = kept
	if len(t.slots) > 0 {
		t.reindex(len(t.slots))
	}
}

// hash returns a hash of every field of k that equality compares: its
// texts by their numbers, tariff models and versions by their address
// (the catalog's, fixed for the engine's life). The words are mixed in
// four pairs that do not wait on each other, each pair's product folded
// (high word xor low), then the four in one more: two products deep,
// where the chain of a word at a time, until 2026-12-07, was eight. A
// hash takes about 6.5 ns, against 13.5 (a loop of hashes, one core).
func (t *bucketTable) hash(k *bucketKey) uint64 {
	flags := uint64(k.period) | uint64(k.tier)<<8 | uint64(k.variant)<<16 | uint64(k.outcome)<<24 |
		uint64(k.day)<<32 | boolBit(k.zero)<<40 | boolBit(k.noSpend)<<41 | boolBit(k.folded)<<42 | boolBit(k.collapsed)<<43
	s := t.seed
	a := fold(uint64(uintptr(unsafe.Pointer(k.model)))^s, uint64(uintptr(unsafe.Pointer(k.version)))^s^0x9E3779B97F4A7C15)
	b := fold(uint64(k.slot)^s^0xBF58476D1CE4E5B9, (uint64(k.unknown)|uint64(k.host)<<32)^s^0x94D049BB133111EB)
	c := fold((uint64(k.group)|uint64(k.served)<<32)^s^0xD6E8FEB86659FD93, (uint64(k.holder.key)|uint64(k.holder.team)<<32)^s^0xA0761D6478BD642F)
	d := fold((uint64(k.holder.user)|uint64(k.holder.tag)<<32)^s^0xE7037ED1A0B428DB, (uint64(k.holder.meta)|flags<<32)^flags^s^0x8EBC6AF09C88C6E3)
	return fold(a^c^0x589965CC75374CC3, b^d^s)
}

// fold is the 128-bit product of a and b, its high word xor its low.
func fold(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// randomSeed returns a random word.
func randomSeed() uint64 { return maphash.Comparable(maphash.MakeSeed(), 0) }

// boolBit is 1 for true, 0 for false.
func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

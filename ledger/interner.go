package ledger

import (
	"encoding/binary"
	"hash/maphash"
	"unsafe"
)

// interner returns one shared string for repeated byte values, so that a
// column such as model or api_key costs one allocation per distinct value.
//
// A direct-mapped cache of 4,096 values, picked by a cheap hash of the
// value's length and ends, answers the common hit (a model, a provider, a
// busy key) at the cost of one read and one comparison. Past it is a
// table of its own, open addressed, each slot a hash of all the value's
// bytes and the value: a value held costs its hash, the read of its slot
// and one comparison of its bytes, a slot of another value being passed
// over on its hash alone. Until 2026-12-03 a map stood there, whose
// lookup reads its control word, its slot and the value: on an input of
// 8,000 keys (40,000 keys, aliases, teams and users, which overflow the
// cache) the map took 40% of the read (docs/scale.md, "The interner").
//
// The table stops taking values once it holds maxInterned, which bounds
// its memory on high-cardinality columns (12 MiB of slots when full,
// and the values); 262,144 holds the keys and aliases of a gateway of
// 100,000 keys (65,536 until 2026-12-04: past it every call of most keys
// copied its key and alias, and the engine hashed their bytes); a value
// beyond is copied each time it is read (and kept in the cache until
// another takes its slot). Forgetting the values instead made an input of
// a few thousand keys rebuild the table over and over, most of the time
// of a read.
type interner struct {
	cache [1 << internCacheBits]string // by a cheap hash of the value's ends
	slots []internSlot                 // a power of two long, at most half full
	n     int                          // values held
	seed  maphash.Seed
	pairs []pairSet // by the cheap hash of a pair's first value (getPair); made at the first pair
}

// internPair is a pair of values read together, as the interner holds
// them (or copied, past its bound).
type internPair struct{ first, second string }

// internSlot holds one value and its hash; an empty slot has no value (the
// empty string is never held).
type internSlot struct {
	h uint64
	s string
}

const (
	maxInterned     = 1 << 18
	internCacheBits = 12
	// internPairBits sizes getPair's memo: 16,384 sets of two pairs
	// (1 MiB), for the keys and aliases of a gateway of thousands of keys.
	// Until 2026-12-07 it was 32,768 pairs, one a hash: on 8,000 keys a
	// fifth of the keys shared their slot with another, and their calls
	// went on to the table.
	internPairBits = 14
	// firstInternSlots is the table's first length; it doubles as it
	// fills, up to 2 × maxInterned.
	firstInternSlots = 1 << 10
)

func (in *interner) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	// A cheap hash of the length and the first and last eight bytes picks
	// the cache's slot; the table, past it, hashes every byte, since
	// values that share their ends (paths, names with a long prefix and
	// suffix) would share this hash.
	slot := &in.cache[cheapHash(b)>>(64-internCacheBits)]
	if len(*slot) == len(b) && *slot == string(b) {
		return *slot
	}
	s := in.held(b)
	*slot = s
	return s
}

// cheapHash mixes the length and the first and last eight bytes of b.
func cheapHash(b []byte) uint64 {
	n := len(b)
	var c uint64
	if n >= 8 {
		c = binary.LittleEndian.Uint64(b) ^ binary.LittleEndian.Uint64(b[n-8:])*0x9E3779B97F4A7C15
	} else {
		for _, x := range b {
			c = c<<8 | uint64(x)
		}
	}
	return (c ^ uint64(n)) * 0x9E3779B97F4A7C15
}

// getPair returns get(a) and get(b) for two values read together, a
// key and its alias: a memo of the pairs met answers a pair seen before
// with one cache line and the two comparisons, where the two values took
// a cache slot each and, past the cache (an input of thousands of keys
// and aliases overflows it), a table slot each and their hash.
func (in *interner) getPair(a, b []byte) (string, string) {
	if len(a) == 0 || len(b) == 0 {
		return in.get(a), in.get(b)
	}
	return in.pairIn(in.pairSet(a), a, b)
}

// pairSet is a set of the pair memo: the last two pairs met whose first
// values share a cheap hash, the last first; 64 bytes, a cache line
// (the memo's memory, a large allocation, starts on a page).
type pairSet [2]internPair

// pairSet returns the memo's set for pairs whose first value is a,
// making the memo at the first pair.
func (in *interner) pairSet(a []byte) *pairSet {
	if in.pairs == nil {
		in.pairs = make([]pairSet, 1<<internPairBits)
	}
	return &in.pairs[cheapHash(a)>>(64-internPairBits)]
}

// pairIn returns get(a) and get(b), a and b not empty, from set p when
// it holds them, and puts them first in it.
func (in *interner) pairIn(p *pairSet, a, b []byte) (string, string) {
	if x := &p[0]; len(x.first) == len(a) && len(x.second) == len(b) && x.first == string(a) && x.second == string(b) {
		return x.first, x.second
	}
	if x := p[1]; len(x.first) == len(a) && len(x.second) == len(b) && x.first == string(a) && x.second == string(b) {
		p[0], p[1] = x, p[0]
		return x.first, x.second
	}
	s, t := in.held(a), in.held(b)
	p[0], p[1] = internPair{s, t}, p[0]
	return s, t
}

// pairWindow is how many pairs getPairs looks up at once: their memo
// sets and values, a few cache lines each, stay in the core's cache
// between the pass that reads them and the one that uses them.
const pairWindow = 256

// getPairs calls put(i, getPair(keys[i], aliases[i])) for every i, in
// order, with the same results. It reads first every memo set the pairs
// use, then the values those sets hold first, and only then compares:
// the reads of one pass do not wait on each other, so their cache misses
// overlap, where getPair, a row at a time, waits on each in turn (on a
// month of 8,000 keys, the set's read was half the cost of a key and its
// alias; docs/scale.md, "Interning a batch's keys"). sink takes what the
// first two passes read, so that neither is dropped.
func (in *interner) getPairs(keys, aliases [][]byte, put func(i int, key, alias string), sink *uint64) {
	var sets [pairWindow]*pairSet
	for from := 0; from < len(keys); from += pairWindow {
		n := min(pairWindow, len(keys)-from)
		var touched uint64
		for i := range n {
			sets[i] = nil // a pair of no key has no set
			if a := keys[from+i]; len(a) > 0 {
				p := in.pairSet(a)
				sets[i] = p
				touched += uint64(len(p[0].first))
			}
		}
		for _, p := range sets[:n] {
			if p == nil {
				continue
			}
			if x := &p[0]; len(x.first) > 0 && len(x.second) > 0 {
				touched += uint64(*unsafe.StringData(x.first)) + uint64(*unsafe.StringData(x.second))
			}
		}
		*sink += touched
		for i, p := range sets[:n] {
			a, b := keys[from+i], aliases[from+i]
			if len(a) == 0 || len(b) == 0 {
				put(from+i, in.get(a), in.get(b))
				continue
			}
			s, t := in.pairIn(p, a, b)
			put(from+i, s, t)
		}
	}
}

// held returns the table's string for b, adding it while the table has room.
func (in *interner) held(b []byte) string {
	if in.slots == nil {
		in.seed = maphash.MakeSeed()
		in.slots = make([]internSlot, firstInternSlots)
	}
	h := maphash.Bytes(in.seed, b)
	mask := uint64(len(in.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &in.slots[i]
		if len(sl.s) == 0 {
			s := string(b)
			if in.n < maxInterned {
				*sl = internSlot{h, s}
				in.n++
				if 2*in.n > len(in.slots) {
					in.grow()
				}
			}
			return s
		}
		if sl.h == h && sl.s == string(b) {
			return sl.s
		}
	}
}

// grow doubles the table, placing its values again.
func (in *interner) grow() {
	old := in.slots
	in.slots = make([]internSlot, 2*len(old))
	mask := uint64(len(in.slots) - 1)
	for _, sl := range old {
		if len(sl.s) == 0 {
			continue
		}
		i := sl.h & mask
		for len(in.slots[i].s) != 0 {
			i = (i + 1) & mask
		}
		in.slots[i] = sl
	}
}

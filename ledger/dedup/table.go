package dedup

import (
	"math/bits"
	"slices"
)

// minSlots is the smallest table; a power of two.
const minSlots = 16

// table is an open-addressing hash set of fingerprints with linear probing.
// Slot value 0 marks an empty slot, so fingerprint 0 is kept in a flag.
// The table never holds more than 3/4 of its slots.
type table struct {
	slots []uint64
	shift uint8 // 64 - log2(len(slots))
	n     int   // entries, including fingerprint 0
	zero  bool  // fingerprint 0 is present
}

// slotsFor returns the table size that holds n entries under the load limit.
func slotsFor(n int) int {
	want := max(minSlots, (4*n+2)/3) // ceil(4n/3)
	return 1 << bits.Len(uint(want-1))
}

// newTable returns an empty table of the given number of slots, a power of two.
func newTable(slots int) table {
	return tableOf(make([]uint64, slots))
}

// tableOf returns an empty table using slots, which are zero and a power of
// two in number.
func tableOf(slots []uint64) table {
	return table{slots: slots, shift: uint8(64 - bits.TrailingZeros(uint(len(slots))))}
}

// bytes returns the memory held by the table's slots.
func (t *table) bytes() int64 { return int64(cap(t.slots)) * 8 }

// full reports whether one more entry would break the load limit.
func (t *table) full() bool { return (t.n+1)*4 > len(t.slots)*3 }

// home returns fp's first slot. Fingerprints may be small integers in tests,
// so they are mixed before taking the top bits.
func (t *table) home(fp uint64) int { return int((fp * 0x9e3779b97f4a7c15) >> t.shift) }

// has reports whether fp is in the table.
func (t *table) has(fp uint64) bool {
	if fp == 0 {
		return t.zero
	}
	if len(t.slots) == 0 {
		return false
	}
	mask := len(t.slots) - 1
	for i := t.home(fp); ; i = (i + 1) & mask {
		switch t.slots[i] {
		case fp:
			return true
		case 0:
			return false
		}
	}
}

// add inserts fp and reports whether it was new. The caller makes sure the
// table is not full.
func (t *table) add(fp uint64) bool {
	if fp == 0 {
		if t.zero {
			return false
		}
		t.zero = true
		t.n++
		return true
	}
	mask := len(t.slots) - 1
	for i := t.home(fp); ; i = (i + 1) & mask {
		switch t.slots[i] {
		case fp:
			return false
		case 0:
			t.slots[i] = fp
			t.n++
			return true
		}
	}
}

// resize moves the entries into a table of the given number of slots.
func (t *table) resize(slots int) { t.moveTo(make([]uint64, slots)) }

// moveTo moves the entries into slots, which are zero and a power of two in
// number.
func (t *table) moveTo(slots []uint64) {
	old := t.slots
	zero := t.zero
	*t = tableOf(slots)
	if t.zero = zero; zero {
		t.n = 1
	}
	for _, fp := range old {
		if fp != 0 {
			t.add(fp)
		}
	}
}

// drain returns the entries sorted, reusing the slots' memory; the table is
// empty afterwards. Entries are compacted to the front in place: the write
// index never passes the read index, and the load limit leaves room for 0.
func (t *table) drain() []uint64 {
	keys := t.slots[:0]
	for _, fp := range t.slots {
		if fp != 0 {
			keys = append(keys, fp)
		}
	}
	if t.zero {
		keys = append(keys, 0)
	}
	sortFingerprints(keys)
	*t = table{}
	return keys
}

// sortFingerprints sorts keys in place. Fingerprints are hashes, spread
// evenly over the top byte, so one in-place distribution pass on that byte
// (an American flag sort) leaves 256 small runs that sort fast.
func sortFingerprints(keys []uint64) {
	if len(keys) < 2048 {
		slices.Sort(keys)
		return
	}
	var count, start, next [256]int
	for _, k := range keys {
		count[k>>56]++
	}
	sum := 0
	for b := range 256 {
		start[b], next[b] = sum, sum
		sum += count[b]
	}
	for b := range 256 {
		end := start[b] + count[b]
		for next[b] < end {
			k := keys[next[b]]
			d := int(k >> 56)
			if d == b {
				next[b]++
				continue
			}
			// k belongs in bucket d: swap it there and look again at
			// what comes back.
			keys[next[b]], keys[next[d]] = keys[next[d]], k
			next[d]++
		}
	}
	for b := range 256 {
		slices.Sort(keys[start[b] : start[b]+count[b]])
	}
}

// prevPow2 returns the largest power of two not above n, or 0.
func prevPow2(n int) int {
	if n <= 0 {
		return 0
	}
	return 1 << (bits.Len(uint(n)) - 1)
}

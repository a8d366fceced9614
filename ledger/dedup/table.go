package dedup

import "math/bits"

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

// home returns fp's first slot: its top bits, so that slots follow the
// order of the fingerprints they are home to (Set.FirstSeen mixes them
// first). Linear probing moves a fingerprint only a little past its home,
// so the table is nearly sorted and drain need not sort it from scratch.
func (t *table) home(fp uint64) int { return int(fp >> t.shift) }

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
// empty afterwards. Slots hold fingerprints in the order of their homes,
// each a few slots past its own at most, except those that wrapped round
// the end into the run of slots at the start: they are set aside and put
// last. Entries are compacted to the front in place (the write index never
// passes the read index), then an insertion sort, which costs little on
// entries so nearly in order, puts the few out of place right.
func (t *table) drain() []uint64 {
	var buf [32]uint64
	wrapped := buf[:0]
	run := 0 // the run of full slots at the start: [0, run)
	for run < len(t.slots) && t.slots[run] != 0 {
		run++
	}
	keys := t.slots[:0]
	for i, fp := range t.slots {
		switch {
		case fp == 0:
		case i < run && t.home(fp) > i:
			wrapped = append(wrapped, fp)
		default:
			keys = append(keys, fp)
		}
	}
	keys = append(keys, wrapped...)
	if t.zero { // the smallest of all
		keys = append(keys, 0)
		copy(keys[1:], keys[:len(keys)-1])
		keys[0] = 0
	}
	insertionSort(keys)
	*t = table{}
	return keys
}

// insertionSort sorts keys in place, in time linear in their number plus
// the distance each is out of place.
func insertionSort(keys []uint64) {
	for i := 1; i < len(keys); i++ {
		k := keys[i]
		j := i
		for ; j > 0 && keys[j-1] > k; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = k
	}
}

// prevPow2 returns the largest power of two not above n, or 0.
func prevPow2(n int) int {
	if n <= 0 {
		return 0
	}
	return 1 << (bits.Len(uint(n)) - 1)
}

package pricing

import (
	"math/bits"
	"unsafe"
)

// text stands for a string of a bucket key: its number among the texts
// of an engine (texts), 0 for "". Keys made of numbers compare in a few
// words, hash without reading bytes, and hold no string for the garbage
// collector to follow; the strings are kept once each, in the engine.
type text uint32

// absentText is the text of a string an engine did not number: one past
// its budget of buckets, which no bucket has, so that the call's bucket
// is new and its groupings are folded (Engine.bucketOf).
const absentText text = 1<<32 - 1

// texts numbers strings: each distinct string once, in the order met, ""
// as 0. The zero value is ready to use.
type texts struct {
	ids  map[string]text
	list []string // by number, from 1
	// at indexes the strings numbered by the address of their bytes and
	// their length: readers intern what they read, so the calls of one
	// key share its bytes, and a string at the same address and of the
	// same length is the same string (the entry keeps its bytes from being
	// reused), found without hashing them. Open addressed, its length a
	// power of two, at most half full; it takes at most maxAt addresses,
	// a string at another found by its bytes in ids.
	at    []seenText
	held  int // entries in at
	shift uint8
}

// seenText is a string, by the address of its bytes (which the pointer
// keeps from being reused) and its length, and its number: two words.
type seenText struct {
	p   *byte
	len uint32
	n   text
}

// maxAt is how many addresses texts.at holds at most (16 MiB of index):
// a copy of each key, alias, team and user a reading goroutine, for a
// gateway of 100,000 keys read by two. Until 2026-12-04 the index was a
// cache of 131,072 slots, each taking the last address picked for it; a
// month of 90,000 keys and their aliases overflowed it, and two calls in
// three hashed their key's bytes (docs/scale.md, "Ten million groups").
const (
	maxAt   = 1 << 19
	firstAt = 1 << 10
)

// id returns the number of s, numbering it when new.
func (t *texts) id(s string) text {
	if s == "" {
		return 0
	}
	if n, ok := t.numberAt(s); ok {
		return n
	}
	n := t.number(s)
	t.rememberAt(s, n)
	return n
}

// rememberAt indexes s, numbered n, by its address, which at does not
// hold, while at has room.
func (t *texts) rememberAt(s string, n text) {
	if t.held < maxAt && uint64(len(s)) <= 1<<32-1 {
		t.remember(seenText{unsafe.StringData(s), uint32(len(s)), n})
	}
}

// touch reads the slot of at where numberAt looks for s first, and
// returns what it read (AddBatch reads ahead).
func (t *texts) touch(s string) uint64 {
	if len(t.at) == 0 || s == "" {
		return 0
	}
	return uint64(t.at[t.slotOf(unsafe.StringData(s))].n)
}

// numberAt returns the number of s, not empty, found by the address of
// its bytes (at), and true; false when at does not hold that address.
func (t *texts) numberAt(s string) (text, bool) {
	if len(t.at) == 0 {
		return 0, false
	}
	p := unsafe.StringData(s)
	mask := uint64(len(t.at) - 1)
	for i := t.slotOf(p); ; i = (i + 1) & mask {
		e := &t.at[i]
		if e.p == p && uint64(e.len) == uint64(len(s)) {
			return e.n, true
		}
		if e.p == nil {
			return 0, false
		}
	}
}

// slotOf returns the first slot of at for an address.
func (t *texts) slotOf(p *byte) uint64 {
	return (uint64(uintptr(unsafe.Pointer(p))) * 0x9E3779B97F4A7C15) >> t.shift
}

// remember indexes e, which at does not hold, by its address, growing at
// when it would be more than half full.
func (t *texts) remember(e seenText) {
	if 2*(t.held+1) > len(t.at) {
		t.resize(max(firstAt, 2*len(t.at)))
	}
	mask := uint64(len(t.at) - 1)
	i := t.slotOf(e.p)
	for t.at[i].p != nil {
		i = (i + 1) & mask
	}
	t.at[i] = e
	t.held++
}

// resize makes at n slots long, a power of two, indexing its entries
// again.
func (t *texts) resize(n int) {
	old := t.at
	t.at = make([]seenText, n)
	t.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	t.held = 0
	for _, e := range old {
		if e.p != nil {
			t.remember(e)
		}
	}
}

// emptied returns texts with no string numbered, whose index of
// addresses is t's, cleared: an engine starting its values again after a
// spill does not grow it again from the first size. t must not be
// numbered by after.
func (t *texts) emptied() *texts {
	clear(t.at)
	e := &texts{at: t.at, shift: t.shift}
	t.at, t.held = nil, 0
	return e
}

// number returns the number of s, numbering it when new.
func (t *texts) number(s string) text {
	if n, ok := t.ids[s]; ok {
		return n
	}
	if t.ids == nil {
		t.ids = map[string]text{}
		t.list = []string{""}
	}
	n := text(len(t.list))
	t.ids[s] = n
	t.list = append(t.list, s)
	return n
}

// lookup returns the number of s, absentText when it has none, numbering
// nothing: found by the address of its bytes first, as id finds it, and
// then by its bytes, its address then remembered as id remembers it.
// Until 2026-12-07 lookup remembered no address: the look-ahead of
// AddBatch finds its keys with lookup, and a key as the second of two
// reading goroutines interned it, at an address id had not been given
// while the engine held few buckets, was hashed again at each of its
// calls: over a million times a run of a month of 8,000 keys by model
// and key.
func (t *texts) lookup(s string) text {
	if s == "" {
		return 0
	}
	if n, ok := t.numberAt(s); ok {
		return n
	}
	if n, ok := t.ids[s]; ok {
		t.rememberAt(s, n)
		return n
	}
	return absentText
}

// of returns the string numbered n.
func (t *texts) of(n text) string {
	if n == 0 || n == absentText {
		return ""
	}
	return t.list[n]
}

// len returns how many strings are numbered.
func (t *texts) len() int { return len(t.ids) }

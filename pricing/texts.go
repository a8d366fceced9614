package pricing

import "unsafe"

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
	// seen holds strings numbered lately, by the address of their bytes:
	// readers intern what they read, so the calls of one key share its
	// bytes, and a string at the same address and of the same length is
	// the same string (the entry keeps its bytes from being reused), found
	// without hashing them. Made at the first string.
	seen *[seenSlots]seenText
}

// seenText is a string, by the address of its bytes (which the pointer
// keeps from being reused) and its length, and its number: two words.
type seenText struct {
	p   *byte
	len uint32
	n   text
}

// seenSlots is the size of texts.seen (2 MiB), a power of two: room for
// the keys of a busy gateway, each at an address per reading goroutine.
const (
	seenBits  = 17
	seenSlots = 1 << seenBits
)

// id returns the number of s, numbering it when new.
func (t *texts) id(s string) text {
	if s == "" {
		return 0
	}
	if t.seen == nil {
		t.seen = new([seenSlots]seenText)
	}
	p := unsafe.StringData(s)
	slot := &t.seen[(uint64(uintptr(unsafe.Pointer(p)))*0x9E3779B97F4A7C15)>>(64-seenBits)]
	if slot.p == p && uint64(slot.len) == uint64(len(s)) {
		return slot.n
	}
	n := t.number(s)
	if uint64(len(s)) <= 1<<32-1 {
		*slot = seenText{p, uint32(len(s)), n}
	}
	return n
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

// lookup returns the number of s, absentText when it has none.
func (t *texts) lookup(s string) text {
	if s == "" {
		return 0
	}
	if n, ok := t.ids[s]; ok {
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

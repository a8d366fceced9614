package dedup

// Memory charged for bookkeeping, from the sizes of the Go structures and
// their allocation classes, map slots included.
const (
	partitionOverhead = 72  // partition struct and its map slot
	hotOverhead       = 144 // hotPart struct
	segmentSize       = 56  // one segment in a partition's slice
)

// partition holds the fingerprints of the calls that started in one hour:
// segments on disk and, while hot, tables in memory.
type partition struct {
	segs  []segment
	hot   *hotPart // nil while only on disk
	loads int      // times segments of this partition were loaded
}

// hotPart is the in-memory state of a hot partition. fresh holds
// fingerprints not yet on disk, base copies of segments loaded back.
type hotPart struct {
	p      *partition
	fresh  table
	base   table
	lo, hi int64  // bounds of the start instants of fresh's entries
	loaded uint16 // bit i: segment i is in base; a partition has at most maxSegments
	// prev and next link hot partitions, most recently used first.
	prev, next *hotPart
}

// segment is a sorted run of fingerprints in the spill file.
type segment struct {
	off    int64    // byte offset of the first fingerprint
	n      int64    // fingerprints, 8 bytes each, little-endian
	lo, hi int64    // bounds of the start instants of its calls
	fences []uint64 // first fingerprint of each block of blockLen; nil for one block
}

// covers reports whether a call started at start may be in the segment: a
// duplicate repeats its call's start instant exactly.
func (g *segment) covers(start int64) bool { return g.lo <= start && start <= g.hi }

// metaBytes returns the memory charged for p's bookkeeping, hot state excluded.
func (p *partition) metaBytes() int64 {
	b := partitionOverhead + int64(cap(p.segs))*segmentSize
	for i := range p.segs {
		b += int64(cap(p.segs[i].fences)) * 8
	}
	return b
}

// has reports whether fp is in one of p's tables.
func (p *partition) has(fp uint64) bool {
	return p.hot != nil && (p.hot.fresh.has(fp) || p.hot.base.has(fp))
}

// bytes returns the memory held by a hot partition.
func (h *hotPart) bytes() int64 { return hotOverhead + h.fresh.bytes() + h.base.bytes() }

// lru is a list of hot partitions, most recently used first. The sentinel's
// next is the head and its prev the tail.
type lru struct{ root hotPart }

func (l *lru) init() { l.root.next, l.root.prev = &l.root, &l.root }

// touch moves h to the front, inserting it when absent.
func (l *lru) touch(h *hotPart) {
	if l.root.next == h {
		return
	}
	if h.next != nil {
		l.remove(h)
	}
	h.prev, h.next = &l.root, l.root.next
	h.next.prev, l.root.next = h, h
}

// remove takes h out of the list.
func (l *lru) remove(h *hotPart) {
	h.prev.next, h.next.prev = h.next, h.prev
	h.prev, h.next = nil, nil
}

// oldest returns the least recently used partition other than keep, or nil.
func (l *lru) oldest(keep *partition) *partition {
	for h := l.root.prev; h != &l.root; h = h.prev {
		if h.p != keep {
			return h.p
		}
	}
	return nil
}

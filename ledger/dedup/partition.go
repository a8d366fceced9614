package dedup

// Memory charged for bookkeeping that is never spilled. The figures are
// generous estimates of the Go structures, map buckets included.
const (
	partitionOverhead = 192 // partition struct plus its share of the map
	segmentOverhead   = 64  // segment struct plus its slot in the slice
)

// partition holds the fingerprints of the calls that started in one hour.
// While hot it keeps two tables: fresh holds fingerprints not yet on disk,
// base holds copies of segments loaded back from disk.
type partition struct {
	hour  int64
	fresh table
	base  table
	// lo and hi bound the start instants of fresh's entries.
	lo, hi int64
	segs   []segment
	loads  int // times segments of this partition were loaded
	// prev and next link hot partitions, most recently used first.
	prev, next *partition
}

// segment is a sorted run of fingerprints in the spill file.
type segment struct {
	off    int64    // byte offset of the first fingerprint
	n      int64    // fingerprints, 8 bytes each, little-endian
	lo, hi int64    // bounds of the start instants of its calls
	fences []uint64 // first fingerprint of each block of blockLen
	loaded bool     // its fingerprints are in the partition's base table
}

// bytes returns the memory charged for the segment's bookkeeping.
func (g *segment) bytes() int64 { return segmentOverhead + int64(cap(g.fences))*8 }

// covers reports whether a call started at start may be in the segment: a
// duplicate repeats its call's start instant exactly.
func (g *segment) covers(start int64) bool { return g.lo <= start && start <= g.hi }

// hot reports whether the partition holds tables in memory.
func (p *partition) hot() bool { return p.fresh.slots != nil || p.base.slots != nil }

// has reports whether fp is in one of the partition's tables.
func (p *partition) has(fp uint64) bool { return p.fresh.has(fp) || p.base.has(fp) }

// tableBytes returns the memory held by the partition's tables.
func (p *partition) tableBytes() int64 { return p.fresh.bytes() + p.base.bytes() }

// lru is a list of hot partitions, most recently used first. The sentinel's
// next is the head and its prev the tail.
type lru struct{ root partition }

func (l *lru) init() { l.root.next, l.root.prev = &l.root, &l.root }

// touch moves p to the front, inserting it when absent.
func (l *lru) touch(p *partition) {
	if l.root.next == p {
		return
	}
	if p.next != nil {
		l.remove(p)
	}
	p.prev, p.next = &l.root, l.root.next
	p.next.prev, l.root.next = p, p
}

// remove takes p out of the list.
func (l *lru) remove(p *partition) {
	p.prev.next, p.next.prev = p.next, p.prev
	p.prev, p.next = nil, nil
}

// oldest returns the least recently used partition other than keep, or nil.
func (l *lru) oldest(keep *partition) *partition {
	for p := l.root.prev; p != &l.root; p = p.prev {
		if p != keep {
			return p
		}
	}
	return nil
}

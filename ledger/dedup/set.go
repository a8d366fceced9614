package dedup

import (
	"fmt"
	"math"
	"os"
	"time"
)

// DefaultMaxBytes is the memory budget used when Options.MaxBytes is zero.
const DefaultMaxBytes = 8 << 20

// maxLoads is how many times a partition's segments are loaded back into
// memory; later lookups read single blocks from disk instead, so that input
// in random order does not reread whole partitions for every row.
const maxLoads = 4

// maxSegments is how many segments a partition keeps before they are merged
// into one, which bounds the blocks read by a lookup.
const maxSegments = 8

// Options configure a Set.
type Options struct {
	// Dir is the directory of the spill file; "" means os.TempDir().
	Dir string
	// MaxBytes is the memory budget in bytes; 0 means DefaultMaxBytes.
	MaxBytes int64
}

// Stats describe a Set's work and memory.
type Stats struct {
	Entries       int64 // distinct fingerprints recorded
	Partitions    int   // hour partitions seen
	HotPartitions int   // partitions with tables in memory
	Segments      int   // live segments in the spill file
	Spills        int64 // segments written, merges excluded
	Merges        int64 // merges of a partition's segments into one
	Loads         int64 // segments loaded back into memory
	Probes        int64 // lookups that read a block from disk
	BytesSpilled  int64 // bytes written to the spill file, merges included
	Bytes         int64 // memory charged now
	PeakBytes     int64 // most memory charged at any time
}

// Set is an exact set of call fingerprints within a memory budget. It is
// not safe for concurrent use.
type Set struct {
	dir      string
	limit    int64
	parts    map[int64]*partition
	last     *partition // partition of lastHour, saving a map lookup on sorted input
	lastHour int64
	// lastFrom is the first instant of lastHour: an instant within the
	// hour after it needs no division to find its partition.
	lastFrom int64
	hot      lru
	spill    *spillFile // nil until the budget is first exceeded
	spare    []uint64   // slots of the last fresh table evicted, charged, for reuse
	hint     int        // slots of the last fresh table evicted
	err      error      // sticky: the set's state is unknown after an I/O error
	st       Stats
}

// New returns an empty Set. It creates no file until the budget is exceeded.
func New(opts Options) *Set {
	s := &Set{dir: opts.Dir, limit: opts.MaxBytes, parts: make(map[int64]*partition)}
	if s.limit <= 0 {
		s.limit = DefaultMaxBytes
	}
	s.hot.init()
	return s
}

// mixer is the odd constant FirstSeen multiplies fingerprints by (2^64
// divided by the golden ratio).
const mixer = 0x9e3779b97f4a7c15

// hourOf returns the UTC hour of a start instant, rounding down.
func hourOf(start int64) int64 {
	h := start / int64(time.Hour)
	if start%int64(time.Hour) < 0 {
		h--
	}
	return h
}

// FirstSeen records fp, the fingerprint of a call started at startNanos
// (Unix nanoseconds), and reports whether it is new. Equal fingerprints must
// come with equal start instants; the caller's hash of the identity should
// include the start. After an I/O error every call returns that error.
func (s *Set) FirstSeen(fp uint64, startNanos int64) (bool, error) {
	if s.err != nil {
		return false, s.err
	}
	// Multiplying by an odd constant is a bijection: equal fingerprints stay
	// equal and distinct ones distinct, and the top bits, which place a
	// fingerprint in a table, are spread even when fingerprints are small
	// integers. From here on the set holds the mixed values only.
	fp *= mixer
	p := s.last
	if p == nil || uint64(startNanos-s.lastFrom) >= uint64(time.Hour) {
		p = s.partition(hourOf(startNanos))
	}
	if h := p.hot; h != nil && len(p.segs) == 0 && h.fresh.slots != nil && !h.fresh.full() {
		// Nothing of this hour is on disk or loaded back, so fresh alone
		// can hold fp: one probe both looks for it and inserts it.
		s.hot.touch(h)
		if !h.fresh.add(fp) {
			return false, nil
		}
		s.added(h, startNanos)
		return true, nil
	}
	if p.has(fp) {
		s.hot.touch(p.hot)
		return false, nil
	}
	seen, err := s.onDisk(p, fp, startNanos)
	if err == nil && !seen {
		err = s.insert(p, fp, startNanos)
	}
	if err != nil {
		s.err = err
		return false, err
	}
	return !seen, nil
}

// partition returns the partition of an hour, creating it.
func (s *Set) partition(hour int64) *partition {
	if s.last != nil && s.lastHour == hour {
		return s.last
	}
	p := s.parts[hour]
	if p == nil {
		p = &partition{}
		s.parts[hour] = p
		s.charge(p.metaBytes())
	}
	s.last, s.lastHour, s.lastFrom = p, hour, hour*int64(time.Hour)
	if hour <= math.MinInt64/int64(time.Hour) || hour >= math.MaxInt64/int64(time.Hour) {
		s.last = nil // the hour's bounds overflow: no shortcut by them
	}
	return p
}

// heat returns p's hot state, creating it, and marks p most recently used.
func (s *Set) heat(p *partition) *hotPart {
	if p.hot == nil {
		p.hot = &hotPart{p: p}
		s.charge(hotOverhead)
	}
	s.hot.touch(p.hot)
	return p.hot
}

// insert adds a fingerprint known to be new to p's fresh table, growing the
// table or spilling p when the budget is exhausted.
func (s *Set) insert(p *partition, fp uint64, start int64) error {
	if p.hot == nil || p.hot.fresh.slots == nil || p.hot.fresh.full() {
		if err := s.growFresh(p); err != nil {
			return err
		}
	}
	h := s.heat(p)
	h.fresh.add(fp)
	s.added(h, start)
	return nil
}

// added counts a fingerprint just added to h's fresh table, of a call
// started at start, and widens the table's bounds of start instants.
func (s *Set) added(h *hotPart, start int64) {
	if h.fresh.n == 1 { // the first entry
		h.lo, h.hi = start, start
	}
	h.lo, h.hi = min(h.lo, start), max(h.hi, start)
	s.st.Entries++
}

// growFresh allocates or doubles p's fresh table. When evicting the other
// partitions leaves no room, p itself is spilled and restarts with the
// smallest table.
func (s *Set) growFresh(p *partition) error {
	slots, need := minSlots, int64(hotOverhead)
	if p.hot != nil {
		slots, need = max(minSlots, 2*len(p.hot.fresh.slots)), 0
	}
	if len(p.segs) == 0 && slots == minSlots {
		// A new hour in sorted input likely needs as much as the last one
		// evicted; an eighth of the budget at most.
		slots = max(minSlots, min(s.hint, prevPow2(int(s.limit/64))))
	}
	ok, err := s.makeRoom(need+int64(slots)*8, p)
	if err != nil {
		return err
	}
	if !ok && p.hot != nil {
		if err := s.evict(p); err != nil {
			return err
		}
		slots = minSlots
	}
	if s.reuseSpare(p, slots) { // evictions may have left one
		return nil
	}
	h := s.heat(p)
	// Both tables exist while entries move, so the new one is charged first.
	s.charge(int64(slots) * 8)
	old := h.fresh.bytes()
	if h.fresh.slots == nil {
		h.fresh = newTable(slots)
	} else {
		h.fresh.resize(slots)
	}
	s.charge(-old)
	return nil
}

// reuseSpare moves p's fresh table into the spare table when p is a new
// hour and the spare has at least the given number of slots: reusing the
// table, already charged, saves an allocation and its garbage.
func (s *Set) reuseSpare(p *partition, slots int) bool {
	if len(p.segs) > 0 || len(s.spare) < slots {
		return false
	}
	h := s.heat(p)
	old := h.fresh.bytes()
	clear(s.spare)
	h.fresh.moveTo(s.spare)
	s.spare = nil
	s.charge(-old)
	return true
}

// makeRoom evicts least recently used partitions other than keep until
// extra more bytes fit in the budget, and reports whether they do.
func (s *Set) makeRoom(extra int64, keep *partition) (bool, error) {
	// Keep room for the bookkeeping of a new hour or segment, charged
	// without eviction, and for the buffers the first eviction allocates.
	extra += partitionOverhead + segmentSize
	if s.spill == nil {
		extra += spillBytes
	}
	if s.st.Bytes+extra > s.limit && s.spare != nil {
		s.charge(-int64(cap(s.spare)) * 8)
		s.spare = nil
	}
	for s.st.Bytes+extra > s.limit {
		victim := s.hot.oldest(keep)
		if victim == nil {
			return false, nil
		}
		if err := s.evict(victim); err != nil {
			return false, err
		}
	}
	return true, nil
}

// charge adds n bytes (negative to release) to the memory in use.
func (s *Set) charge(n int64) {
	s.st.Bytes += n
	s.st.PeakBytes = max(s.st.PeakBytes, s.st.Bytes)
}

// Stats returns counts of the set's work and memory.
func (s *Set) Stats() Stats {
	st := s.st
	st.Partitions = len(s.parts)
	for h := s.hot.root.next; h != &s.hot.root; h = h.next {
		st.HotPartitions++
	}
	for _, p := range s.parts {
		st.Segments += len(p.segs)
	}
	return st
}

// Close removes the spill file and releases memory. It is safe to call more
// than once; FirstSeen fails with ErrClosed afterwards.
func (s *Set) Close() error {
	if s.err == ErrClosed {
		return nil
	}
	s.err = ErrClosed
	s.parts, s.last, s.hot = nil, nil, lru{}
	s.hot.init()
	if s.spill == nil {
		return nil
	}
	err := s.spill.close()
	s.spill = nil
	return err
}

// fileError names the spill file in an I/O error.
func fileError(op string, f *os.File, err error) error {
	return fmt.Errorf("dedup: %s spill file %s: %w", op, f.Name(), err)
}

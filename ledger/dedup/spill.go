package dedup

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"unsafe"
)

// blockLen is the number of fingerprints per indexed block: a lookup on disk
// reads one block, and a segment keeps one fence per block in memory.
const blockLen = 512

// mergeLen is the number of fingerprints buffered per segment while merging.
const mergeLen = 64

// spillFile is the append-only temporary file holding sealed segments.
type spillFile struct {
	f     *os.File
	w     *bufio.Writer
	size  int64  // bytes written, buffered ones included
	block []byte // read buffer of one block
}

// spillBytes is the memory of a spill file's buffers.
const spillBytes = 2 * blockLen * 8

// openSpill creates the spill file on first need.
func (s *Set) openSpill() error {
	if s.spill != nil {
		return nil
	}
	f, err := os.CreateTemp(s.dir, "tokenfare-dedup-*.spill")
	if err != nil {
		return fmt.Errorf("dedup: create spill file: %w", err)
	}
	// Unlinked at once where the system allows it, so that a crash leaves
	// nothing behind; Close removes it otherwise.
	_ = os.Remove(f.Name()) // where the system refuses, Close removes it
	s.spill = &spillFile{f: f, w: bufio.NewWriterSize(f, blockLen*8), block: make([]byte, blockLen*8)}
	s.charge(spillBytes)
	return nil
}

// close closes and removes the file.
func (sf *spillFile) close() error {
	err := sf.f.Close()
	if rerr := os.Remove(sf.f.Name()); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
		err = rerr
	}
	if err != nil {
		return fileError("remove", sf.f, err)
	}
	return nil
}

// put appends fp to the segment being written at the end of the file.
func (sf *spillFile) put(g *segment, fp uint64) {
	if g.n%blockLen == 0 {
		g.fences = append(g.fences, fp)
	}
	// A write error sticks and is reported by finish.
	sf.w.Write(binary.LittleEndian.AppendUint64(sf.w.AvailableBuffer(), fp))
	g.n++
	sf.size += 8
}

// finish flushes the segment written since off.
func (sf *spillFile) finish(g *segment) error {
	if err := sf.w.Flush(); err != nil {
		return fileError("write", sf.f, err)
	}
	if g.n <= blockLen {
		g.fences = nil // the single block is read whole
	}
	g.fences = slices.Clip(g.fences)
	return nil
}

// nativeLittle: this machine stores a uint64 as its little-endian bytes,
// the spill file's encoding.
var nativeLittle = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// write appends sorted keys as a new segment. Where the machine's own
// byte order is the file's, the keys' memory is written as it is, in one
// call; elsewhere a block at a time.
func (sf *spillFile) write(keys []uint64, lo, hi int64) (segment, error) {
	g := segment{off: sf.size, lo: lo, hi: hi, n: int64(len(keys))}
	g.fences = make([]uint64, 0, (len(keys)+blockLen-1)/blockLen)
	for i := 0; i < len(keys); i += blockLen {
		g.fences = append(g.fences, keys[i])
	}
	sf.size += 8 * int64(len(keys))
	// A write error sticks and is reported by finish.
	if nativeLittle && len(keys) > 0 {
		sf.w.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(keys))), 8*len(keys)))
		return g, sf.finish(&g)
	}
	for len(keys) > 0 {
		blk := keys[:min(blockLen, len(keys))]
		keys = keys[len(blk):]
		buf := sf.block[:0] // the read buffer: nothing is read while writing
		for _, fp := range blk {
			buf = binary.LittleEndian.AppendUint64(buf, fp)
		}
		sf.w.Write(buf)
	}
	return g, sf.finish(&g)
}

// read fills dst with fingerprints at byte offset off.
func (sf *spillFile) read(dst []uint64, off int64) error {
	buf := sf.block[:len(dst)*8]
	if _, err := sf.f.ReadAt(buf, off); err != nil {
		return fileError("read", sf.f, err)
	}
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint64(buf[i*8:])
	}
	return nil
}

// probe reports whether segment g holds fp, reading one block.
func (sf *spillFile) probe(g *segment, fp uint64) (bool, error) {
	j := 0
	if g.fences != nil {
		j = sort.Search(len(g.fences), func(i int) bool { return g.fences[i] > fp }) - 1
		if j < 0 {
			return false, nil
		}
	}
	n := min(blockLen, g.n-int64(j)*blockLen)
	buf := sf.block[:n*8]
	if _, err := sf.f.ReadAt(buf, g.off+int64(j)*blockLen*8); err != nil {
		return false, fileError("read", sf.f, err)
	}
	i := sort.Search(int(n), func(i int) bool { return binary.LittleEndian.Uint64(buf[i*8:]) >= fp })
	return i < int(n) && binary.LittleEndian.Uint64(buf[i*8:]) == fp, nil
}

// evict writes p's fresh fingerprints as a segment, drops p's tables and,
// when p has too many segments, merges two of them.
func (s *Set) evict(p *partition) error {
	h := p.hot
	held := h.bytes()
	s.hot.remove(h)
	p.hot = nil
	if h.fresh.n > 0 {
		if err := s.openSpill(); err != nil {
			return err
		}
		s.hint = len(h.fresh.slots)
		keys := h.fresh.drain()
		g, err := s.spill.write(keys, h.lo, h.hi)
		if err != nil {
			return err
		}
		if cap(keys) > cap(s.spare) {
			// The table's memory stays as the spare and the old spare goes.
			held -= int64(cap(keys)-cap(s.spare)) * 8
			s.spare = keys[:cap(keys)]
		}
		// The table is garbage before the segment's bookkeeping is kept.
		s.charge(-held)
		held = 0
		before := p.metaBytes()
		p.segs = append(p.segs[:len(p.segs):len(p.segs)], g) // exact capacity: bookkeeping is never evicted
		s.charge(p.metaBytes() - before)
		s.st.Spills++
		s.st.BytesSpilled += g.n * 8
	}
	s.charge(-held)
	if len(p.segs) > maxSegments {
		return s.merge(p)
	}
	return nil
}

// onDisk reports whether fp is in one of p's segments not loaded in memory
// that may hold a call started at start. It loads those segments into p's
// base table when they fit in the budget and p has not been loaded too
// often; otherwise it reads one block of each.
func (s *Set) onDisk(p *partition, fp uint64, start int64) (bool, error) {
	var need int64
	var mask uint16
	for i := range p.segs {
		if p.segs[i].covers(start) && !p.loaded(i) {
			need += p.segs[i].n
			mask |= 1 << i
		}
	}
	if mask == 0 {
		return false, nil
	}
	if p.loads < maxLoads {
		var base table
		extra := int64(hotOverhead)
		if p.hot != nil {
			base, extra = p.hot.base, 0
		}
		slots := slotsFor(base.n + int(need))
		if slots > len(base.slots) {
			extra += int64(slots) * 8
		}
		ok, err := s.makeRoom(extra, p)
		if err != nil {
			return false, err
		}
		if ok {
			if err := s.load(p, mask, slots); err != nil {
				return false, err
			}
			return p.hot.base.has(fp), nil
		}
	}
	for i := range p.segs {
		if mask&(1<<i) != 0 {
			s.st.Probes++
			if found, err := s.spill.probe(&p.segs[i], fp); found || err != nil {
				return found, err
			}
		}
	}
	return false, nil
}

// loaded reports whether segment i of p is in its base table.
func (p *partition) loaded(i int) bool { return p.hot != nil && p.hot.loaded&(1<<i) != 0 }

// load reads the segments of p in mask into p's base table, resized to hold
// the given number of slots.
func (s *Set) load(p *partition, mask uint16, slots int) error {
	h := s.heat(p)
	if slots > len(h.base.slots) {
		// Both tables exist while entries move, so the new one is charged first.
		s.charge(int64(slots) * 8)
		old := h.base.bytes()
		if h.base.slots == nil {
			h.base = newTable(slots)
		} else {
			h.base.resize(slots)
		}
		s.charge(-old)
	}
	var chunk [blockLen]uint64
	for i := range p.segs {
		if mask&(1<<i) == 0 {
			continue
		}
		g := &p.segs[i]
		for done := int64(0); done < g.n; {
			dst := chunk[:min(blockLen, g.n-done)]
			if err := s.spill.read(dst, g.off+done*8); err != nil {
				return err
			}
			for _, fp := range dst {
				h.base.add(fp)
			}
			done += int64(len(dst))
		}
		s.st.Loads++
	}
	h.loaded |= mask
	p.loads++
	return nil
}

// merge replaces the two adjacent segments of p with the fewest
// fingerprints together by one, streaming them from disk. Merging small
// neighbours keeps the bytes rewritten near n log n and, for sorted input,
// the merged bounds of start instants tight. p must not be hot.
func (s *Set) merge(p *partition) error {
	at := 0
	for i := 1; i+1 < len(p.segs); i++ {
		if p.segs[i].n+p.segs[i+1].n < p.segs[at].n+p.segs[at+1].n {
			at = i
		}
	}
	a, b := &p.segs[at], &p.segs[at+1]
	bufBytes := int64(2 * mergeLen * 8)
	s.charge(bufBytes)
	defer s.charge(-bufBytes)
	runs := [2]run{{seg: a, mem: make([]uint64, mergeLen)}, {seg: b, mem: make([]uint64, mergeLen)}}
	out := segment{off: s.spill.size, lo: min(a.lo, b.lo), hi: max(a.hi, b.hi)}
	for {
		best := -1
		for i := range runs {
			ok, err := runs[i].fill(s.spill)
			if err != nil {
				return err
			}
			if ok && (best < 0 || runs[i].head() < runs[best].head()) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		s.spill.put(&out, runs[best].head())
		runs[best].buf = runs[best].buf[1:]
	}
	if err := s.spill.finish(&out); err != nil {
		return err
	}
	before := p.metaBytes()
	p.segs = slices.Concat(p.segs[:at], []segment{out}, p.segs[at+2:])
	s.charge(p.metaBytes() - before)
	s.st.Merges++
	s.st.BytesSpilled += out.n * 8
	return nil
}

// run reads a segment in order during a merge.
type run struct {
	seg  *segment
	next int64    // fingerprints read so far
	mem  []uint64 // buffer of mergeLen
	buf  []uint64 // unread part of mem
}

// fill refills an empty buffer and reports whether a fingerprint remains.
func (r *run) fill(sf *spillFile) (bool, error) {
	if len(r.buf) > 0 {
		return true, nil
	}
	n := min(mergeLen, r.seg.n-r.next)
	if n == 0 {
		return false, nil
	}
	r.buf = r.mem[:n]
	if err := sf.read(r.buf, r.seg.off+r.next*8); err != nil {
		return false, err
	}
	r.next += n
	return true, nil
}

// head returns the run's smallest unread fingerprint.
func (r *run) head() uint64 { return r.buf[0] }

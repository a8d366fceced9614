package dedup

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"sort"
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
	s.spill = &spillFile{f: f, w: bufio.NewWriterSize(f, blockLen*8), block: make([]byte, blockLen*8)}
	s.charge(spillBytes)
	return nil
}

// close closes and removes the file.
func (sf *spillFile) close() error {
	err := sf.f.Close()
	if rerr := os.Remove(sf.f.Name()); rerr != nil && err == nil {
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
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], fp)
	sf.w.Write(b[:]) // a write error sticks and is reported by finish
	g.n++
	sf.size += 8
}

// finish flushes the segment written since off.
func (sf *spillFile) finish(g *segment) error {
	if err := sf.w.Flush(); err != nil {
		return fileError("write", sf.f, err)
	}
	g.fences = slices.Clip(g.fences)
	return nil
}

// write appends sorted keys as a new segment.
func (sf *spillFile) write(keys []uint64, lo, hi int64) (segment, error) {
	g := segment{off: sf.size, lo: lo, hi: hi}
	for _, fp := range keys {
		sf.put(&g, fp)
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
	j := sort.Search(len(g.fences), func(i int) bool { return g.fences[i] > fp }) - 1
	if j < 0 {
		return false, nil
	}
	n := min(blockLen, g.n-int64(j)*blockLen)
	buf := sf.block[:n*8]
	if _, err := sf.f.ReadAt(buf, g.off+int64(j)*blockLen*8); err != nil {
		return false, fileError("read", sf.f, err)
	}
	i := sort.Search(int(n), func(i int) bool { return binary.LittleEndian.Uint64(buf[i*8:]) >= fp })
	return i < int(n) && binary.LittleEndian.Uint64(buf[i*8:]) == fp, nil
}

// evict writes p's fresh fingerprints as a segment, drops its tables and,
// when p has too many segments, merges them.
func (s *Set) evict(p *partition) error {
	held := p.tableBytes()
	if p.fresh.n > 0 {
		if err := s.openSpill(); err != nil {
			return err
		}
		g, err := s.spill.write(p.fresh.drain(), p.lo, p.hi)
		if err != nil {
			return err
		}
		p.segs = append(p.segs, g)
		s.charge(g.bytes())
		s.st.Spills++
		s.st.BytesSpilled += g.n * 8
	}
	p.fresh, p.base = table{}, table{}
	s.charge(-held)
	for i := range p.segs {
		p.segs[i].loaded = false
	}
	s.hot.remove(p)
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
	for i := range p.segs {
		if g := &p.segs[i]; !g.loaded && g.covers(start) {
			need += g.n
		}
	}
	if need == 0 {
		return false, nil
	}
	if p.loads < maxLoads {
		slots := slotsFor(p.base.n + int(need))
		var grow int64
		if slots > len(p.base.slots) {
			grow = int64(slots) * 8
		}
		ok, err := s.makeRoom(grow, p)
		if err != nil {
			return false, err
		}
		if ok {
			if err := s.load(p, start, slots); err != nil {
				return false, err
			}
			return p.base.has(fp), nil
		}
	}
	for i := range p.segs {
		if g := &p.segs[i]; !g.loaded && g.covers(start) {
			s.st.Probes++
			if found, err := s.spill.probe(g, fp); found || err != nil {
				return found, err
			}
		}
	}
	return false, nil
}

// load reads the unloaded segments of p that cover start into p's base
// table, resized to the given number of slots.
func (s *Set) load(p *partition, start int64, slots int) error {
	if slots > len(p.base.slots) {
		// Both tables exist while entries move, so the new one is charged first.
		s.charge(int64(slots) * 8)
		old := p.base.bytes()
		if p.base.slots == nil {
			p.base = newTable(slots)
		} else {
			p.base.resize(slots)
		}
		s.charge(-old)
	}
	var chunk [blockLen]uint64
	for i := range p.segs {
		g := &p.segs[i]
		if g.loaded || !g.covers(start) {
			continue
		}
		for done := int64(0); done < g.n; {
			dst := chunk[:min(blockLen, g.n-done)]
			if err := s.spill.read(dst, g.off+done*8); err != nil {
				return err
			}
			for _, fp := range dst {
				p.base.add(fp)
			}
			done += int64(len(dst))
		}
		g.loaded = true
		s.st.Loads++
	}
	p.loads++
	s.hot.touch(p)
	return nil
}

// merge replaces p's segments with one, streaming them from disk.
func (s *Set) merge(p *partition) error {
	bufBytes := int64(len(p.segs)) * mergeLen * 8
	s.charge(bufBytes)
	defer s.charge(-bufBytes)
	runs := make([]run, len(p.segs))
	out := segment{off: s.spill.size, lo: p.segs[0].lo, hi: p.segs[0].hi}
	for i := range p.segs {
		runs[i] = run{seg: &p.segs[i], mem: make([]uint64, mergeLen)}
		out.lo, out.hi = min(out.lo, p.segs[i].lo), max(out.hi, p.segs[i].hi)
	}
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
	for i := range p.segs {
		s.charge(-p.segs[i].bytes())
	}
	p.segs = append(p.segs[:0], out)
	s.charge(out.bytes())
	s.st.Merges++
	s.st.BytesSpilled += out.n * 8
	return nil
}

// run reads a segment in order during a merge.
type run struct {
	seg  *segment
	next int64 // fingerprints read so far
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

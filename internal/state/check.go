package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
)

// DamagedError is a state file tokenfare cannot read safely: cut short,
// pages overwritten, or not a bbolt file at all. Nothing is written to
// it. The way back is to move it aside: the next start makes a new state
// and reads every source again from its start (rows a gateway has
// deleted since are not counted again).
type DamagedError struct {
	Path string
	Why  string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("state %s is damaged (%s): move it aside (mv %s %s.damaged); the next start reads the sources again from their start",
		e.Path, e.Why, e.Path, e.Path)
}

// The layout of a bbolt file's meta pages (go.etcd.io/bbolt
// internal/common: a 16-byte page header, then the meta).
const (
	pageHeader   = 16
	metaMagic    = 0xED0CDAED
	metaVersion  = 2
	metaLen      = 64 // magic, version, page size, flags, root, sequence, freelist, pgid, txid, checksum
	metaChecksum = 56 // the checksum's offset: FNV-64a of the bytes before it
)

// boltMeta is what checkFile reads of a meta page.
type boltMeta struct {
	pageSize uint32
	pgid     uint64 // the high-water mark: pages [0, pgid) are in use
	txid     uint64
}

// checkFile checks the state file at path before bbolt maps it: a page
// mapped past the file's end kills the process (SIGBUS) rather than
// failing. A file missing or empty is new, and passes. Its size must be
// a whole number of pages, one of its two meta pages must be valid, and
// the pages the newest valid meta counts must be in the file.
func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open state %s: %w", path, err)
	}
	defer func() { _ = f.Close() }() // opened read-only: closing it loses nothing
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return err
	}
	m, err := newestMeta(f)
	if err != nil {
		return &DamagedError{Path: path, Why: err.Error()}
	}
	size, page := st.Size(), int64(m.pageSize)
	switch {
	case size%page != 0:
		return &DamagedError{Path: path, Why: fmt.Sprintf("its %d bytes are not a whole number of %d-byte pages: cut short?", size, page)}
	case uint64(size/page) < m.pgid:
		return &DamagedError{Path: path, Why: fmt.Sprintf("it holds %d pages, its meta page counts %d: cut short?", size/page, m.pgid)}
	}
	return nil
}

// newestMeta returns the valid meta page of the newest transaction.
func newestMeta(r io.ReaderAt) (*boltMeta, error) {
	m0, err0 := readMeta(r, 0)
	var best *boltMeta
	if err0 == nil {
		best = m0
	}
	// The second meta page is one page on: its size is the first's, or,
	// the first being damaged, one of the usual ones.
	sizes := []int64{4096, 8192, 16384, 65536, int64(os.Getpagesize())}
	if m0 != nil {
		sizes = []int64{int64(m0.pageSize)}
	}
	for _, ps := range sizes {
		if m1, err := readMeta(r, ps); err == nil && (best == nil || m1.txid > best.txid) {
			best = m1
			break
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no valid meta page: %v", err0)
	}
	return best, nil
}

// readMeta reads and checks the meta page at off.
func readMeta(r io.ReaderAt, off int64) (*boltMeta, error) {
	var b [pageHeader + metaLen]byte
	if _, err := r.ReadAt(b[:], off); err != nil {
		return nil, fmt.Errorf("meta page at %d: %w", off, err)
	}
	meta := b[pageHeader:]
	le := binary.LittleEndian
	h := fnv.New64a()
	h.Write(meta[:metaChecksum])
	switch {
	case le.Uint32(meta[0:]) != metaMagic:
		return nil, errors.New("not a bbolt file (no magic number)")
	case le.Uint32(meta[4:]) != metaVersion:
		return nil, fmt.Errorf("bbolt format version %d", le.Uint32(meta[4:]))
	case le.Uint64(meta[metaChecksum:]) != h.Sum64():
		return nil, fmt.Errorf("meta page at %d: checksum mismatch", off)
	}
	m := &boltMeta{pageSize: le.Uint32(meta[8:]), pgid: le.Uint64(meta[40:]), txid: le.Uint64(meta[48:])}
	if m.pageSize < 512 || m.pageSize&(m.pageSize-1) != 0 {
		return nil, fmt.Errorf("page size %d", m.pageSize)
	}
	return m, nil
}

// Recover turns a panic of bbolt reading a damaged page into a
// DamagedError naming the file, in *err. Every method of the store that
// reads the file defers it, and so must a caller that reads it through a
// Batch (internal/run's refresh): deferred itself, as in
// defer s.Recover(&err), for recover to see the panic.
func (s *Store) Recover(err *error) {
	if r := recover(); r != nil {
		*err = &DamagedError{Path: s.path, Why: fmt.Sprintf("reading it failed: %v", r)}
	}
}

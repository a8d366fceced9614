package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/tokenfare/tokenfare/ledger"
)

// prefixSize is how many first bytes of a file tell it from another: a
// file whose first bytes (as many as were read, up to prefixSize) are no
// longer those read is another file (rotated, truncated, rewritten).
const prefixSize = 4 << 10

// headSize is how much of a file's start is read to tell its format and
// CSV header.
const headSize = 64 << 10

// fileMark is where the last refresh left one file of a feed.
type fileMark struct {
	Offset int64  `json:"o"` // bytes read: the start of the first line not read yet
	Line   int    `json:"l"` // number of the line at Offset
	Size   int64  `json:"s"` // the file's size when last looked at
	MTime  int64  `json:"m"` // its modification time then (Unix ns)
	Prefix int    `json:"p"` // how many first bytes Hash covers: min(Offset, prefixSize)
	Hash   string `json:"h"` // SHA-256 of them, hex
	// Sum is the CRC-32C of every byte before Offset, hex: a file whose
	// bytes before its mark changed (an export regenerated in place,
	// sorted, a late call put in its place) is another file, read again
	// from its start under the duplicate set. "" in a mark written before
	// it was kept (then only the first bytes tell).
	Sum string `json:"c,omitempty"`
	// Whole: a format read whole (gzip, a JSON array, CLIProxyAPI's v6
	// export), read again whole when it changes.
	Whole bool `json:"w,omitempty"`
}

// fileRead is one file a refresh reads, and its mark once read.
type fileRead struct {
	path string
	mark fileMark
	span *ledger.SpanSource
	// fresh: none of its calls was read before (bytes past the file's
	// mark, or a file never seen), so a copy of a call stored is a
	// duplicate; otherwise the file is read again from its start and a
	// call stored is one read before.
	fresh bool
}

// filePlan is what a refresh reads of a feed's files.
type filePlan struct {
	files  []fileRead   // every file looked at and not unchanged
	drop   []string     // paths whose mark moved to another path (a renamed file)
	unread []UnreadFile // files listed that could not be looked at
}

// UnreadFile is a file of a feed a refresh could not read (a symbolic
// link in a loop, a file without read permission): the other files are
// read, and the next refresh tries it again from its mark.
type UnreadFile struct {
	Path string
	Err  error
}

// marks returns the marks stored for the feed's files, by path.
func (b *Batch) marks(feed string) (map[string]fileMark, error) {
	out := map[string]fileMark{}
	bk := b.tx.files()
	if !bk.exists() {
		return out, nil
	}
	prefix := fileKey(feed, "")
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var m fileMark
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, fmt.Errorf("%w: file mark %q: %v", errCorrupt, k[len(prefix):], err)
		}
		out[string(k[len(prefix):])] = m
	}
	return out, nil
}

// planFiles decides, for each of paths, what the refresh reads: nothing
// when the file has not changed since its mark, the lines past the mark
// when it grew, the whole file when it is new or no longer the file
// marked. A file's last line without its line break waits for a refresh
// that finds the file unchanged: then its writer is done with it.
func (b *Batch) planFiles(feed string, paths []string) (*filePlan, error) {
	marks, err := b.marks(feed)
	if err != nil {
		return nil, err
	}
	plan := &filePlan{}
	type looked struct {
		path string
		st   fs.FileInfo
		head []byte
	}
	var unmatched []looked
	used := map[string]bool{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone since it was listed: the next listing tells
		}
		if err != nil {
			plan.unread = append(plan.unread, UnreadFile{Path: p, Err: err})
			continue
		}
		if !st.Mode().IsRegular() {
			continue
		}
		m, ok := marks[p]
		if ok && m.Size == st.Size() && m.MTime == st.ModTime().UnixNano() && m.Offset >= m.Size {
			used[p] = true
			continue // unchanged: not opened at all
		}
		head, err := readHead(p, st.Size())
		if err != nil {
			plan.unread = append(plan.unread, UnreadFile{Path: p, Err: err})
			continue
		}
		if ok && m.matches(head, st) {
			base, same, err := m.sumMatches(p)
			if err != nil {
				plan.unread = append(plan.unread, UnreadFile{Path: p, Err: err})
				continue
			}
			if same {
				used[p] = true
				if err := plan.add(p, m, st, head, base, true); err != nil {
					return nil, err
				}
				continue
			}
		}
		unmatched = append(unmatched, looked{p, st, head})
	}
	var rest []looked
	for _, l := range unmatched {
		from, base := renamedFrom(marks, used, l.path, l.head, l.st)
		if from == "" {
			rest = append(rest, l)
			continue
		}
		used[from] = true
		plan.drop = append(plan.drop, from)
		if err := plan.add(l.path, marks[from], l.st, l.head, base, true); err != nil {
			return nil, err
		}
	}
	for _, l := range rest {
		// A file at a path marked is read again from its start, its calls
		// stored counted once, unless what was marked there moved away:
		// then it is a new file. A new gzip file is read as one read
		// again too: most are a rotated log compressed, whose calls were
		// read under its old name.
		_, marked := marks[l.path]
		fresh := (!marked || slices.Contains(plan.drop, l.path)) && !gzipped(l.head)
		if err := plan.add(l.path, fileMark{Line: 1}, l.st, l.head, 0, fresh); err != nil {
			return nil, err
		}
	}
	return plan, nil
}

// renamedFrom returns the path of the mark, not yet used, that the file
// at path (its first bytes head, its state st) takes over: the file was
// renamed (rotated into the folder) or copied before its old path was
// truncated. "" when none; base is the CRC-32C of the file's bytes before
// the mark.
func renamedFrom(marks map[string]fileMark, used map[string]bool, path string, head []byte, st fs.FileInfo) (from string, base uint32) {
	for op, m := range marks {
		if used[op] || op == path || m.Whole || m.Offset == 0 || !m.matches(head, st) {
			continue
		}
		if base, same, err := m.sumMatches(path); err == nil && same {
			return op, base
		}
	}
	return "", 0
}

// matches reports whether the file whose start is head and whose state is
// st is the one m marks, grown or not.
func (m *fileMark) matches(head []byte, st fs.FileInfo) bool {
	if m.Whole {
		return false // read again whole once changed
	}
	return st.Size() >= m.Offset && len(head) >= m.Prefix && prefixHash(head[:m.Prefix]) == m.Hash
}

// sumMatches reports whether the bytes of the file at p before m's
// offset are those m was left at (true when m keeps no sum), and returns
// their CRC-32C. It reads them all: the price of telling a file
// regenerated in place from one appended to.
func (m *fileMark) sumMatches(p string) (sum uint32, same bool, err error) {
	sum, err = fileSum(p, 0, 0, m.Offset)
	if err != nil {
		return 0, false, err
	}
	return sum, m.Sum == "" || m.Sum == fmt.Sprintf("%08x", sum), nil
}

// castagnoli is CRC-32C's table (hardware-assisted on amd64 and arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fileSum extends the CRC-32C sum with the bytes of the file at p from
// offset from to offset to.
func fileSum(p string, sum uint32, from, to int64) (uint32, error) {
	if to <= from {
		return sum, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return 0, fmt.Errorf("read calls %s: %w", p, err)
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	r := io.NewSectionReader(f, from, to-from)
	for {
		n, err := r.Read(buf)
		sum = crc32.Update(sum, castagnoli, buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("read calls %s: %w", p, err)
		}
	}
	return sum, nil
}

// add plans the read of the file at p past m; base is the CRC-32C of
// the file's bytes before m's offset.
func (plan *filePlan) add(p string, m fileMark, st fs.FileInfo, head []byte, base uint32, fresh bool) error {
	size := st.Size()
	next := fileMark{Size: size, MTime: st.ModTime().UnixNano(), Line: m.Line}
	header, lines := ledger.LineFormat(head)
	unchanged := m.Size == size && m.MTime == next.MTime
	if !lines && !gzipped(head) && bytes.IndexByte(head, '\n') < 0 && !unchanged {
		// Empty, or a first line not whole yet (a one-line file may
		// still be written): wait for a line break, or for a refresh
		// that finds the file as this one left it.
		next.Offset, next.Prefix, next.Hash, next.Sum = m.Offset, m.Prefix, m.Hash, m.Sum
		if next.Hash == "" {
			next.Hash = prefixHash(nil)
		}
		plan.files = append(plan.files, fileRead{path: p, mark: next, fresh: fresh})
		return nil
	}
	if !lines {
		next.Whole, next.Offset, next.Line = true, size, 0
		next.Prefix = int(min(size, prefixSize))
		next.Hash = prefixHash(head[:next.Prefix])
		src := ledger.NewSpanSource(p, ledger.Span{Offset: 0, End: size, Line: 1}, ledger.Options{})
		plan.files = append(plan.files, fileRead{path: p, mark: next, span: src, fresh: fresh})
		return nil
	}
	end, err := lastLineEnd(p, m.Offset, size)
	if err != nil {
		return err
	}
	if end == m.Offset && m.Offset < size && unchanged {
		end = size // a last line left without its line break: its writer is done
	}
	next.Offset = end
	next.Prefix = int(min(end, prefixSize))
	if len(head) < next.Prefix {
		return fmt.Errorf("read calls %s: the file changed while read", p)
	}
	next.Hash = prefixHash(head[:next.Prefix])
	sum, err := fileSum(p, base, m.Offset, end)
	if err != nil {
		return err
	}
	next.Sum = fmt.Sprintf("%08x", sum)
	fr := fileRead{path: p, mark: next, fresh: fresh}
	if end > m.Offset {
		sp := ledger.Span{Offset: m.Offset, End: end, Line: m.Line}
		if m.Offset > 0 {
			sp.Head = header
		}
		fr.span = ledger.NewSpanSource(p, sp, ledger.Options{})
	}
	plan.files = append(plan.files, fr)
	return nil
}

// sources returns the plan's sources read fresh, or read again.
func (plan *filePlan) sources(fresh bool) []ledger.Source {
	var out []ledger.Source
	for _, r := range plan.files {
		if r.span != nil && r.fresh == fresh {
			out = append(out, r.span)
		}
	}
	return out
}

// put stores the plan's marks, once its files are read, in tx.
func (plan *filePlan) put(tx *txn, feed string) error {
	bk, err := tx.ensure(bucketFiles)
	if err != nil {
		return err
	}
	for _, p := range plan.drop {
		if err := bk.Delete(fileKey(feed, p)); err != nil {
			return err
		}
	}
	for _, r := range plan.files {
		m := r.mark
		if !m.Whole && r.span != nil {
			m.Line += int(r.span.Lines())
		}
		v, _ := json.Marshal(m)
		if err := bk.Put(fileKey(feed, r.path), v); err != nil {
			return err
		}
	}
	return nil
}

// gzipped reports whether head opens a gzip stream.
func gzipped(head []byte) bool { return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b }

func prefixHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// readHead reads the first headSize bytes of the file at p (fewer when it
// is shorter).
func readHead(p string, size int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read calls %s: %w", p, err)
	}
	defer f.Close()
	head := make([]byte, min(size, headSize))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read calls %s: %w", p, err)
	}
	return head[:n], nil
}

// lastLineEnd returns the offset just past the last line break of the
// file at p between from and size, or from when there is none.
func lastLineEnd(p string, from, size int64) (int64, error) {
	if size <= from {
		return from, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return 0, fmt.Errorf("read calls %s: %w", p, err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for end := size; end > from; {
		start := max(from, end-int64(len(buf)))
		chunk := buf[:end-start]
		if _, err := f.ReadAt(chunk, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("read calls %s: %w", p, err)
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return from, nil
}

// Package tail reads files of calls that grow (an export appended to, a
// folder of daily exports, usage-queue records persisted as JSON Lines)
// past where the last read left them: given the files listed now and
// each file's Mark, a Plan says what to read of each, as ledger sources,
// and the marks to keep for the next read. It keeps nothing itself: the
// caller stores the marks (tokenfare serve's state).
//
// A file is known again by its first bytes (up to PrefixSize, hashed) and
// by a CRC-32C of every byte before its mark: a file whose bytes before
// its mark changed (regenerated in place, truncated, another file at the
// path) is read again from its start; a file whose first bytes and sum
// are those of a mark at another path was renamed (rotated) and is read
// past that mark. A file whose size and modification time are those of
// its mark, read to its end, is not opened at all.
//
// # Invariants
//
//   - Every byte of a file is read once over the reads that find it
//     growing, unless its bytes before its mark change: then it is read
//     again whole, marked as read before (File.Fresh false).
//   - A last line without its line break is read only once its file is
//     found as the last read left it: its writer is done with it.
package tail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/tokenfare/tokenfare/ledger"
)

// PrefixSize is how many first bytes of a file tell it from another: a
// file whose first bytes (as many as were read, up to PrefixSize) are no
// longer those read is another file (rotated, truncated, rewritten).
const PrefixSize = 4 << 10

// headSize is how much of a file's start is read to tell its format and
// CSV header.
const headSize = 64 << 10

// Mark is where the last read left one file.
type Mark struct {
	Offset int64  // bytes read: the start of the first line not read yet
	Line   int    // number of the line at Offset
	Size   int64  // the file's size when last looked at
	MTime  int64  // its modification time then (Unix ns)
	Prefix int    // how many first bytes Hash covers: min(Offset, PrefixSize)
	Hash   string // SHA-256 of them, hex
	// Sum is the CRC-32C of every byte before Offset, hex: a file whose
	// bytes before its mark changed (an export regenerated in place,
	// sorted, a late call put in its place) is another file, read again
	// from its start. "" in a mark kept before sums were (then only the
	// first bytes tell).
	Sum string
	// Whole: a format read whole (gzip, a JSON array, CLIProxyAPI's v6
	// export), read again whole when it changes.
	Whole bool
}

// File is one file a plan reads, and its mark once read.
type File struct {
	Path string
	// Fresh: none of its calls was read before (bytes past the file's
	// mark, or a file never seen); otherwise the file is read again from
	// its start and its calls may have been read before.
	Fresh bool
	mark  Mark
	span  *ledger.SpanSource
}

// Source returns what is to be read of the file; nil when nothing.
func (f *File) Source() *ledger.SpanSource { return f.span }

// Mark returns the file's mark once its source is read: the line number
// moved past the lines read.
func (f *File) Mark() Mark {
	m := f.mark
	if !m.Whole && f.span != nil {
		m.Line += int(f.span.Lines())
	}
	return m
}

// Unread is a file listed that could not be looked at (a symbolic link in
// a loop, a file without read permission): the other files are read, and
// the next read tries it again from its mark.
type Unread struct {
	Path string
	Err  error
}

// Plan is what one read takes of a list of files.
type Plan struct {
	Files  []File   // every file looked at and not unchanged
	Drop   []string // paths whose mark moved to another path (a renamed file)
	Unread []Unread // files listed that could not be looked at
}

// Sources returns the plan's sources read fresh, or read again.
func (p *Plan) Sources(fresh bool) []ledger.Source {
	var out []ledger.Source
	for _, f := range p.Files {
		if f.span != nil && f.Fresh == fresh {
			out = append(out, f.span)
		}
	}
	return out
}

// looked is a file looked at that no mark at its path matches.
type looked struct {
	path string
	st   fs.FileInfo
	head []byte
}

// planner makes a plan from the marks of the last read.
type planner struct {
	plan      *Plan
	marks     map[string]Mark
	used      map[string]bool // the marks taken by a file
	unmatched []looked
}

// NewPlan decides, for each of paths, what to read: nothing when the file
// has not changed since its mark (marks, by path), the lines past the
// mark when it grew, the whole file when it is new or no longer the file
// marked. A file's last line without its line break waits for a read that
// finds the file unchanged.
func NewPlan(paths []string, marks map[string]Mark) (*Plan, error) {
	pl := &planner{plan: &Plan{}, marks: marks, used: map[string]bool{}}
	for _, p := range paths {
		if err := pl.look(p); err != nil {
			return nil, err
		}
	}
	rest, err := pl.renamed()
	if err != nil {
		return nil, err
	}
	for _, l := range rest {
		// A file at a path marked is read again from its start, its calls
		// read before counted once, unless what was marked there moved
		// away: then it is a new file. A new gzip file is read as one read
		// again too: most are a rotated log compressed, whose calls were
		// read under its old name.
		_, marked := marks[l.path]
		fresh := (!marked || slices.Contains(pl.plan.Drop, l.path)) && !gzipped(l.head)
		if err := pl.plan.add(l.path, Mark{Line: 1}, l.st, l.head, 0, fresh); err != nil {
			return nil, err
		}
	}
	return pl.plan, nil
}

// unread notes a file that could not be looked at.
func (pl *planner) unread(p string, err error) {
	pl.plan.Unread = append(pl.plan.Unread, Unread{Path: p, Err: err})
}

// look plans the file at p when its mark matches it (unchanged, or grown),
// or keeps it for the marks of other paths.
func (pl *planner) look(p string) error {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // gone since it was listed: the next listing tells
	}
	if err != nil {
		pl.unread(p, err)
		return nil
	}
	if !st.Mode().IsRegular() {
		return nil
	}
	m, ok := pl.marks[p]
	if ok && m.Size == st.Size() && m.MTime == st.ModTime().UnixNano() && m.Offset >= m.Size {
		pl.used[p] = true
		return nil // unchanged: not opened at all
	}
	head, err := readHead(p, st.Size())
	if err != nil {
		pl.unread(p, err)
		return nil
	}
	if ok && m.matches(head, st) {
		base, same, err := m.sumMatches(p)
		if err != nil {
			pl.unread(p, err)
			return nil
		}
		if same {
			pl.used[p] = true
			return pl.plan.add(p, m, st, head, base, true)
		}
	}
	pl.unmatched = append(pl.unmatched, looked{p, st, head})
	return nil
}

// renamed plans the files that take over the mark of another path, and
// returns the others.
func (pl *planner) renamed() ([]looked, error) {
	var rest []looked
	for _, l := range pl.unmatched {
		from, base := renamedFrom(pl.marks, pl.used, l.path, l.head, l.st)
		if from == "" {
			rest = append(rest, l)
			continue
		}
		pl.used[from] = true
		pl.plan.Drop = append(pl.plan.Drop, from)
		if err := pl.plan.add(l.path, pl.marks[from], l.st, l.head, base, true); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// renamedFrom returns the path of the mark, not yet used, that the file
// at path (its first bytes head, its state st) takes over: the file was
// renamed (rotated into the folder) or copied before its old path was
// truncated. "" when none; base is the CRC-32C of the file's bytes before
// the mark.
func renamedFrom(marks map[string]Mark, used map[string]bool, path string, head []byte, st fs.FileInfo) (from string, base uint32) {
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
func (m *Mark) matches(head []byte, st fs.FileInfo) bool {
	if m.Whole {
		return false // read again whole once changed
	}
	return st.Size() >= m.Offset && len(head) >= m.Prefix && prefixHash(head[:m.Prefix]) == m.Hash
}

// sumMatches reports whether the bytes of the file at p before m's
// offset are those m was left at (true when m keeps no sum), and returns
// their CRC-32C. It reads them all: the price of telling a file
// regenerated in place from one appended to.
func (m *Mark) sumMatches(p string) (sum uint32, same bool, err error) {
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
	defer func() { _ = f.Close() }() // opened read-only
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
func (plan *Plan) add(p string, m Mark, st fs.FileInfo, head []byte, base uint32, fresh bool) error {
	size := st.Size()
	next := Mark{Size: size, MTime: st.ModTime().UnixNano(), Line: m.Line}
	header, lines := ledger.LineFormat(head)
	unchanged := m.Size == size && m.MTime == next.MTime
	if !lines && !gzipped(head) && bytes.IndexByte(head, '\n') < 0 && !unchanged {
		// Empty, or a first line not whole yet (a one-line file may
		// still be written): wait for a line break, or for a read that
		// finds the file as this one left it.
		next.Offset, next.Prefix, next.Hash, next.Sum = m.Offset, m.Prefix, m.Hash, m.Sum
		if next.Hash == "" {
			next.Hash = prefixHash(nil)
		}
		plan.Files = append(plan.Files, File{Path: p, mark: next, Fresh: fresh})
		return nil
	}
	if !lines {
		next.Whole, next.Offset, next.Line = true, size, 0
		next.Prefix = int(min(size, PrefixSize))
		next.Hash = prefixHash(head[:next.Prefix])
		src := ledger.NewSpanSource(p, ledger.Span{Offset: 0, End: size, Line: 1}, ledger.Options{})
		plan.Files = append(plan.Files, File{Path: p, mark: next, span: src, Fresh: fresh})
		return nil
	}
	return plan.addLines(p, m, next, head, header, base, fresh)
}

// addLines plans the read of a file of lines past m, up to its last line
// break (or its end, when m left it as it is now); next is the mark
// without its offset.
func (plan *Plan) addLines(p string, m, next Mark, head, header []byte, base uint32, fresh bool) error {
	end, err := lastLineEnd(p, m.Offset, next.Size)
	if err != nil {
		return err
	}
	if end == m.Offset && m.Offset < next.Size && m.Size == next.Size && m.MTime == next.MTime {
		end = next.Size // a last line left without its line break: its writer is done
	}
	next.Offset = end
	next.Prefix = int(min(end, PrefixSize))
	if len(head) < next.Prefix {
		return fmt.Errorf("read calls %s: the file changed while read", p)
	}
	next.Hash = prefixHash(head[:next.Prefix])
	sum, err := fileSum(p, base, m.Offset, end)
	if err != nil {
		return err
	}
	next.Sum = fmt.Sprintf("%08x", sum)
	f := File{Path: p, mark: next, Fresh: fresh}
	if end > m.Offset {
		sp := ledger.Span{Offset: m.Offset, End: end, Line: m.Line}
		if m.Offset > 0 {
			sp.Head = header
		}
		f.span = ledger.NewSpanSource(p, sp, ledger.Options{})
	}
	plan.Files = append(plan.Files, f)
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
	defer func() { _ = f.Close() }() // opened read-only
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
	defer func() { _ = f.Close() }() // opened read-only
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

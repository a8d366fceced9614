package reports

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/tokenfare/tokenfare/reports/textout"
)

// alignedPadding is the spaces a column of an aligned table keeps beyond
// its widest cell.
const alignedPadding = 2

// writeAligned writes a header and rows of cells right-aligned in
// columns as wide as their widest cell plus alignedPadding, byte for byte
// what text/tabwriter writes with AlignRight, that padding, spaces and
// every cell ended by a tab, each cell shown as tableCell shows it (so
// that its lines hold no byte textout.Escaping would change, and may be
// written past it). rows calls yield with the header's cells,
// then each row's, and returns yield's first error or its own; yield keeps
// no cell past its call, so a row's cells may be text in memory the next
// row uses again. The rows are gone over once: each is laid out as it
// comes, in the widths of the columns so far, and waits in a spool for
// the last widths to be known (in memory up to alignedSpoolMemory bytes,
// past it in a temporary file, removed after), so that neither the rows
// nor their cells are made twice, nor held in memory however many there
// are. The rows laid out in the last widths are written as they are; the
// rows before them are laid out again (spool.writeTo).
func writeAligned(out io.Writer, rows func(yield func(cells []string) error) error) error {
	sp := &spool{}
	defer sp.close()
	if err := rows(sp.add); err != nil {
		return err
	}
	return sp.writeTo(out)
}

// cellWidth is the runes of cell c, as utf8.RuneCountInString counts
// them (an invalid byte one rune), found eight bytes at a time while they
// are ASCII, as a table's cells mostly are: the count a rune at a time
// took, on a table of a million groups, most of a tenth of a second.
// A word is read from the string's bytes at once, not put together from
// its eight bytes.
func cellWidth(c string) int {
	b := unsafe.Slice(unsafe.StringData(c), len(c)) // read, never written
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			return i + utf8.RuneCountInString(c[i:])
		}
	}
	for ; i < len(c); i++ {
		if c[i] >= utf8.RuneSelf {
			return i + utf8.RuneCountInString(c[i:])
		}
	}
	return len(c)
}

// spaces pads the cells of an aligned table.
const spaces = "                                                                " +
	"                                                                "

// alignedSpoolMemory is how many bytes of lines a spool holds in memory
// before it moves them to a temporary file (a variable for tests): a
// table of about 7,000 rows. It was 8 MiB until 2026-12-07; the memory a
// large table's spool filled and doubled to before it moved to the file,
// 24 MiB never touched before, cost a page fault each 4 KiB (5,300 on a
// table of a million groups, of 40,000 in the run; a fault takes about
// 11 µs on the machine of docs/scale.md), and 17 MiB of peak memory.
var alignedSpoolMemory = 1 << 20

// spoolBlock is how many bytes a spool in a file writes at once, and
// reads at once at the least (a variable for tests).
var spoolBlock = 256 << 10

// spool keeps the lines of an aligned table until the widths of its
// columns are known. Each row is laid out when it is added, in the
// widths of the columns so far (its layout), and kept as the line it
// makes; a row with a cell wider than its column, or more cells than
// there are columns, starts a new layout. At the end, the lines of the
// last layout are the table's as they are, and the lines before it, of
// layouts whose columns were narrower, are laid out again: each column,
// as many runes as its width was, gets the spaces it lacks
// (relayout).
//
// A table's widths are mostly known within its first rows: its header's
// names are wider than most of its cells. In the table of a million
// groups of bench/groups.md the last layout starts at the fourth row, so
// that all but four lines go from the spool to the output as a block of
// bytes.
// Until 2026-12-07 the spool kept each row's cells, and the second pass
// cut every row into its cells again, counted their runes and padded
// them. On that table (three runs, profiled) the two passes took 0.29 s
// of samples a run; now 0.2: adding a row, laid out, 0.16 where counting
// and keeping its cells took 0.11, and writing the lines 0.04 where
// cutting and padding them took 0.18.
type spool struct {
	mem     []byte   // the lines not in the file
	f       *os.File // past alignedSpoolMemory
	inFile  int64    // the bytes written to f
	layouts []layout // in the order they start; the last has the widths of every column
	cells   []int    // the widths of the cells of the row being added (addLaidOut)
	shown   []string // and the cells as shown
}

// layout is the widths a spool's rows were laid out in, from a line on.
type layout struct {
	at     int64 // where the first line laid out so starts, in the spool's bytes
	widths []int // each column's: its widest cell's runes so far, plus alignedPadding
	ends   []int // where each column ends in a line: the widths summed to it
}

// add lays out a row and appends its line.
func (s *spool) add(row []string) error {
	if n := len(s.layouts); n == 0 || !s.addPlain(row, &s.layouts[n-1]) {
		s.addLaidOut(row)
	}
	switch {
	case s.f == nil && len(s.mem) < alignedSpoolMemory, s.f != nil && len(s.mem) < spoolBlock:
		return nil
	case s.f == nil:
		f, err := os.CreateTemp("", "tokenfare-table-*")
		if err != nil {
			return err
		}
		s.f = f
	}
	return s.spill()
}

// addPlain appends row's line laid out in l, the last layout, when each
// of its cells is printable ASCII (as many runes as bytes, nothing to
// quote) and narrower than its column, as a table's rows mostly are, and
// reports whether it did; when not, the spool is as it was. The line is
// filled with spaces, each cell copied to the end of its column, and the
// whole line tested once for what is not printable, sixteen bytes a step.
// Until 2026-12-07 every row counted its cells' runes and appended its
// spaces and cells one by one, and the table's lines went through
// textout.Escaping after: about 2,900 instructions a row of a table by
// model, key and day, where this takes about 1,000 (docs/scale.md, "A
// table's rows laid out at once").
func (s *spool) addPlain(row []string, l *layout) bool {
	if len(row) > len(l.widths) {
		return false
	}
	n := 0 // the line's bytes, its newline apart
	if len(row) > 0 {
		n = l.ends[len(row)-1]
	}
	start := len(s.mem)
	s.room(n + 1)
	line := s.mem[start : start+n+1]
	fillSpaces(line[:n])
	for j, c := range row {
		end := l.ends[j]
		if len(c)+alignedPadding > l.widths[j] {
			return false
		}
		copy(line[end-len(c):end], c)
	}
	if !textout.Printable(line[:n]) {
		return false
	}
	line[n] = '\n'
	s.mem = s.mem[:start+n+1]
	return true
}

// addLaidOut appends row's line, its cells shown as tableCell shows them,
// in the last layout, or in a new one when a cell is wider than its
// column or the row has more cells than there are columns.
func (s *spool) addLaidOut(row []string) {
	var widths []int
	if n := len(s.layouts); n > 0 {
		widths = s.layouts[n-1].widths
	}
	wider := len(row) > len(widths)
	cells, shown := s.cells[:0], s.shown[:0]
	size := 1 // the newline
	for j, c := range row {
		c = tableCell(c)
		w := cellWidth(c)
		cells, shown = append(cells, w), append(shown, c)
		wider = wider || w+alignedPadding > widths[j]
		size += len(c) - w // the bytes a cell has beyond its runes
	}
	s.cells, s.shown = cells, shown
	if wider {
		next := make([]int, max(len(widths), len(row)))
		copy(next, widths)
		for j, w := range cells {
			next[j] = max(next[j], w+alignedPadding)
		}
		widths = next
		s.layouts = append(s.layouts, newLayout(s.inFile+int64(len(s.mem)), widths))
	}
	for j := range row {
		size += widths[j]
	}
	s.room(size)
	for j, c := range shown {
		s.mem = appendSpaces(s.mem, widths[j]-cells[j])
		s.mem = append(s.mem, c...)
	}
	s.mem = append(s.mem, '\n')
	clear(shown) // no cell is kept past its row
}

// newLayout is the layout of widths from the spool's byte at on.
func newLayout(at int64, widths []int) layout {
	ends := make([]int, len(widths))
	end := 0
	for j, w := range widths {
		end += w
		ends[j] = end
	}
	return layout{at: at, widths: widths, ends: ends}
}

// room makes room in memory for n more bytes of lines.
func (s *spool) room(n int) {
	if need := len(s.mem) + n; need > cap(s.mem) {
		// Twice the room, from 64 KiB: grown by append (a quarter more
		// each time past 256 KiB), the copies and the collections their
		// garbage set off took a tenth of a second of a table of a million
		// groups. Not all of alignedSpoolMemory at once: a short table
		// would be handed it, which the allocator may have to clear.
		m := make([]byte, len(s.mem), max(2*cap(s.mem), 64<<10, need))
		copy(m, s.mem)
		s.mem = m
	}
}

// spill moves the lines in memory to the file.
func (s *spool) spill() error {
	n, err := s.f.Write(s.mem)
	s.inFile += int64(n)
	s.mem = s.mem[:0]
	return err
}

// appendSpaces appends n spaces to b.
func appendSpaces(b []byte, n int) []byte {
	if n <= 0 {
		return b
	}
	at := len(b)
	b = slices.Grow(b, n)[:at+n]
	fillSpaces(b[at:])
	return b
}

// fillSpaces writes spaces over b.
func fillSpaces(b []byte) {
	for len(b) > 0 {
		b = b[copy(b, spaces):]
	}
}

// writeTo writes the table: the lines of layouts before the last laid
// out again in its widths, then the others as they are. The lines are
// read from memory, or from the file past alignedSpoolMemory, a block at
// a time.
func (s *spool) writeTo(out io.Writer) error {
	if len(s.layouts) == 0 {
		return nil
	}
	var src io.ReadSeeker = s.f
	size := s.inFile
	if s.f == nil {
		src, size = bytes.NewReader(s.mem), int64(len(s.mem))
	} else if len(s.mem) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
		size, s.mem = s.inFile, nil
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	last := s.layouts[len(s.layouts)-1]
	buf := make([]byte, min(int64(spoolBlock), max(size, 1)))
	// The lines before the last layout, laid out again as they are cut,
	// written a block at a time.
	rl := relayout{layouts: s.layouts}
	n, read := 0, int64(0) // buf[:n] is read and not yet laid out; read, the bytes read
	for read < last.at || n > 0 {
		m, err := src.Read(buf[n:min(len(buf), n+int(last.at-read))])
		n += m
		read += int64(m)
		if err != nil && err != io.EOF {
			return err
		}
		if m == 0 && read < last.at {
			return errSpoolCut
		}
		used, err := rl.rows(buf[:n], read == last.at)
		if err != nil {
			return err
		}
		if len(rl.out) >= alignedOutBlock || read == last.at {
			if _, err := out.Write(rl.out); err != nil {
				return err
			}
			rl.out = rl.out[:0]
		}
		n = copy(buf, buf[used:n])
		if read == last.at && n > 0 {
			return errSpoolCut
		}
		if n == len(buf) {
			// A line longer than the room: twice the room.
			buf = append(buf, make([]byte, len(buf))...)
		}
	}
	// The lines of the last layout, as they are.
	if _, err := src.Seek(last.at, io.SeekStart); err != nil {
		return err
	}
	copied, err := io.CopyBuffer(writerOnly{out}, readerOnly{src}, buf)
	if err == nil && copied != size-last.at {
		err = errors.New("read a table's spool: it is shorter than was written")
	}
	return err
}

// writerOnly and readerOnly hide their io.ReaderFrom and io.WriterTo from
// io.CopyBuffer, so that it copies through the buffer it is given.
type (
	writerOnly struct{ io.Writer }
	readerOnly struct{ io.Reader }
)

// alignedOutBlock is how many bytes of lines laid out again writeTo
// makes before it writes them.
const alignedOutBlock = 64 << 10

// errSpoolCut is the error of a spool that ends inside a line.
var errSpoolCut = errors.New("read a table's spool: it ends inside a line")

// relayout lays out again the lines of a spool's layouts but the last,
// in the last's widths.
type relayout struct {
	layouts []layout
	at      int64  // in the spool, the start of the next line
	l       int    // the layout of that line
	out     []byte // the lines laid out again, not yet written
}

// rows lays out again the whole lines at the start of b, which starts at
// the spool's byte rl.at, and returns how many bytes of b they take; end
// is set when b is the last of the lines before the last layout, so that
// a rune cut short is not waited on.
func (rl *relayout) rows(b []byte, end bool) (int, error) {
	widths := rl.layouts[len(rl.layouts)-1].widths
	used := 0
	for used < len(b) {
		for rl.l+1 < len(rl.layouts) && rl.layouts[rl.l+1].at <= rl.at {
			rl.l++
		}
		was := rl.layouts[rl.l].widths
		out, n := rl.out, 0
		for j := 0; ; j++ {
			if used+n == len(b) {
				return used, nil // the line is cut short
			}
			if b[used+n] == '\n' {
				n++
				break
			}
			if j == len(was) {
				return used, errors.New("read a table's spool: a line with more columns than its layout")
			}
			// Column j: was[j] runes, spaces first.
			w, ok := runesEnd(b[used+n:], was[j], end)
			if !ok {
				return used, nil
			}
			out = appendSpaces(out, widths[j]-was[j])
			out = append(out, b[used+n:used+n+w]...)
			n += w
		}
		rl.out = append(out, '\n')
		used += n
		rl.at += int64(n)
	}
	return used, nil
}

// runesEnd returns the bytes of the first n runes of b, as cellWidth
// counts them, eight bytes at a time while they are ASCII; false when b
// ends before them, or, unless end, inside one.
func runesEnd(b []byte, n int, end bool) (int, bool) {
	i := 0
	for ; n >= 8 && i+8 <= len(b); i, n = i+8, n-8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for ; n > 0; n-- {
		if i == len(b) {
			return i, false
		}
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		if !end && !utf8.FullRune(b[i:]) {
			return i, false
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return i, true
}

// close removes the spool's file, if any.
func (s *spool) close() {
	if s.f != nil {
		// The spool is a temporary copy of output already written or given
		// up: nothing is lost if it stays behind.
		_ = s.f.Close()
		_ = os.Remove(s.f.Name())
	}
}

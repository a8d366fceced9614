package reports

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"os"
	"unicode/utf8"
	"unsafe"
)

// alignedPadding is the spaces a column of an aligned table keeps beyond
// its widest cell.
const alignedPadding = 2

// writeAligned writes a header and rows of cells right-aligned in
// columns as wide as their widest cell plus alignedPadding, byte for byte
// what text/tabwriter writes with AlignRight, that padding, spaces and
// every cell ended by a tab. rows calls yield with the header's cells,
// then each row's, and returns yield's first error or its own; yield keeps
// no cell past its call, so a row's cells may be text in memory the next
// row uses again. The rows
// are gone over once: their cells, as text, wait in a spool for the widths
// to be known (in memory up to alignedSpoolMemory bytes, past it in a
// temporary file, removed after), so that neither the rows nor their
// cells are made twice, nor held in memory however many there are.
func writeAligned(out io.Writer, rows func(yield func(cells []string) error) error) error {
	var widths []int
	sp := &spool{}
	defer sp.close()
	err := rows(func(row []string) error {
		for j, c := range row {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], cellWidth(c)+alignedPadding)
		}
		return sp.add(row)
	})
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 64<<10)
	var line []byte
	err = sp.each(func(row [][]byte) error {
		line = line[:0]
		for j, c := range row {
			for n := widths[j] - cellWidth(unsafe.String(unsafe.SliceData(c), len(c))); n > 0; n -= len(spaces) {
				line = append(line, spaces[:min(n, len(spaces))]...)
			}
			line = append(line, c...)
		}
		line = append(line, '\n')
		_, err := w.Write(line)
		return err
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// cellWidth is the runes of cell c, as utf8.RuneCountInString counts
// them (an invalid byte one rune), found eight bytes at a time while they
// are ASCII, as a table's cells mostly are: the count a rune at a time
// took, on a table of a million groups, most of a tenth of a second.
func cellWidth(c string) int {
	i := 0
	for ; i+8 <= len(c); i += 8 {
		w := uint64(c[i]) | uint64(c[i+1])<<8 | uint64(c[i+2])<<16 | uint64(c[i+3])<<24 |
			uint64(c[i+4])<<32 | uint64(c[i+5])<<40 | uint64(c[i+6])<<48 | uint64(c[i+7])<<56
		if w&0x8080808080808080 != 0 {
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

// alignedSpoolMemory is how many bytes of cells a spool holds in memory
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

// spool keeps rows of cells for a second pass: each row its length in
// bytes, then its number of cells, then each cell's length and bytes
// (varints), so that a row is read back whole and its cells cut from
// memory. A row is written where it is kept, once; past
// alignedSpoolMemory the rows go to the file a block at a time, and are
// read back a block at a time and cut where they lie. Until 2026-12-07 a
// row was made apart, copied to the rows in memory, and to a buffered
// writer, and read back a byte at a time for its length, then copied out.
// On a table of a million groups, adding rows took 0.2 s of samples a
// run and reading them back (and writing the lines) 0.22; now 0.085 and
// 0.2 (two runs each), the most of it from the memory the spool no
// longer fills first.
type spool struct {
	mem []byte   // the rows not in the file
	f   *os.File // past alignedSpoolMemory
}

// add appends a row.
func (s *spool) add(row []string) error {
	n := uvarintLen(uint64(len(row)))
	for _, c := range row {
		n += uvarintLen(uint64(len(c))) + len(c)
	}
	if need := len(s.mem) + uvarintLen(uint64(n)) + n; need > cap(s.mem) {
		// Twice the room, from 64 KiB: grown by append (a quarter more
		// each time past 256 KiB), the copies and the collections their
		// garbage set off took a tenth of a second of a table of a million
		// groups. Not all of alignedSpoolMemory at once: a short table
		// would be handed it, which the allocator may have to clear.
		m := make([]byte, len(s.mem), max(2*cap(s.mem), 64<<10, need))
		copy(m, s.mem)
		s.mem = m
	}
	s.mem = binary.AppendUvarint(binary.AppendUvarint(s.mem, uint64(n)), uint64(len(row)))
	for _, c := range row {
		s.mem = append(binary.AppendUvarint(s.mem, uint64(len(c))), c...)
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
	_, err := s.f.Write(s.mem)
	s.mem = s.mem[:0]
	return err
}

// uvarintLen is the length of x as binary.AppendUvarint writes it.
func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// each calls fn with each row in order; the cells are valid during the
// call only.
func (s *spool) each(fn func(row [][]byte) error) error {
	if s.f == nil {
		used, _, err := cutRows(s.mem, nil, fn)
		if err == nil && used < len(s.mem) {
			err = spoolCut(io.ErrUnexpectedEOF)
		}
		return err
	}
	if len(s.mem) > 0 {
		if _, err := s.f.Write(s.mem); err != nil {
			return err
		}
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	// The rows read and not yet cut are buf[:n].
	buf := make([]byte, spoolBlock)
	s.mem = nil
	var row [][]byte
	n := 0
	for {
		m, err := s.f.Read(buf[n:])
		n += m
		if err != nil && err != io.EOF {
			return err
		}
		if m == 0 && err == io.EOF {
			if n > 0 {
				return spoolCut(io.ErrUnexpectedEOF)
			}
			return nil
		}
		used, r, err := cutRows(buf[:n], row, fn)
		if err != nil {
			return err
		}
		row = r
		n = copy(buf, buf[used:n])
		if n == len(buf) {
			// A row longer than the room: twice the room.
			buf = append(buf, make([]byte, len(buf))...)
		}
	}
}

// cutRows calls fn with the cells of each whole row at the start of b,
// in order, in row's memory, and returns the bytes of b they take and
// that memory; the rest of b is a row cut short, to be read whole.
func cutRows(b []byte, row [][]byte, fn func(row [][]byte) error) (int, [][]byte, error) {
	used := 0
	for used < len(b) {
		n, k := binary.Uvarint(b[used:])
		if k == 0 {
			break // the length is cut short
		}
		if k < 0 || n > 1<<31 {
			return used, row, errors.New("read a table's spool: a row longer than 2 GiB")
		}
		if uint64(len(b)-used-k) < n {
			break
		}
		var err error
		if row, err = cutCells(row[:0], b[used+k:used+k+int(n)]); err != nil {
			return used, row, err
		}
		if err := fn(row); err != nil {
			return used, row, err
		}
		used += k + int(n)
	}
	return used, row, nil
}

// cutCells appends to row the cells of a spooled row b: its number of
// cells, then each cell's length and bytes.
func cutCells(row [][]byte, b []byte) ([][]byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return row, spoolCut(io.ErrUnexpectedEOF)
	}
	b = b[k:]
	for range n {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return row, spoolCut(io.ErrUnexpectedEOF)
		}
		row = append(row, b[k:k+int(l)])
		b = b[k+int(l):]
	}
	if len(b) > 0 {
		return row, errors.New("read a table's spool: a row longer than its cells")
	}
	return row, nil
}

// spoolCut is the error of a spool that ends inside a row.
func spoolCut(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errors.New("read a table's spool: it ends inside a row")
	}
	return err
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

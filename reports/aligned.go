package reports

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"unicode/utf8"
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
			widths[j] = max(widths[j], utf8.RuneCountInString(c)+alignedPadding)
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
			for n := widths[j] - utf8.RuneCount(c); n > 0; n -= len(spaces) {
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

// spaces pads the cells of an aligned table.
const spaces = "                                                                " +
	"                                                                "

// alignedSpoolMemory is how many bytes of cells a spool holds in memory
// before it moves them to a temporary file (a variable for tests).
var alignedSpoolMemory = 8 << 20

// spool keeps rows of cells for a second pass: each row its length in
// bytes, then its number of cells, then each cell's length and bytes
// (varints), so that a row is read back whole and its cells cut from
// memory.
type spool struct {
	mem []byte
	row []byte   // the row being added
	f   *os.File // past alignedSpoolMemory
	w   *bufio.Writer
}

// add appends a row.
func (s *spool) add(row []string) error {
	b := binary.AppendUvarint(s.row[:0], uint64(len(row)))
	for _, c := range row {
		b = append(binary.AppendUvarint(b, uint64(len(c))), c...)
	}
	s.row = b
	if need := len(s.mem) + binary.MaxVarintLen64 + len(b); need > cap(s.mem) {
		// Twice the room, from 64 KiB: grown by append (a quarter more
		// each time past 256 KiB), the copies and the collections their
		// garbage set off took a tenth of a second of a table of a million
		// groups. Not all 8 MiB at once: a short table would be handed
		// them, which the allocator may have to clear.
		m := make([]byte, len(s.mem), max(2*cap(s.mem), 64<<10, need))
		copy(m, s.mem)
		s.mem = m
	}
	s.mem = append(binary.AppendUvarint(s.mem, uint64(len(b))), b...)
	if len(s.mem) < alignedSpoolMemory && s.f == nil {
		return nil
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "tokenfare-table-*")
		if err != nil {
			return err
		}
		s.f, s.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	_, err := s.w.Write(s.mem)
	s.mem = s.mem[:0]
	return err
}

// each calls fn with each row in order; the cells are valid during the
// call only.
func (s *spool) each(fn func(row [][]byte) error) error {
	var r spoolReader
	if s.f == nil {
		r = &byteReader{b: s.mem}
	} else {
		if err := s.w.Flush(); err != nil {
			return err
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		r = bufio.NewReaderSize(s.f, 64<<10)
	}
	var row [][]byte
	var buf []byte
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if n > 1<<31 {
			return errors.New("read a table's spool: a row longer than 2 GiB")
		}
		if uint64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return spoolCut(err)
		}
		if row, err = cutCells(row[:0], buf); err != nil {
			return err
		}
		if err := fn(row); err != nil {
			return err
		}
	}
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

// spoolReader reads a spool back.
type spoolReader interface {
	io.ByteReader
	io.Reader
}

// byteReader reads a byte slice.
type byteReader struct {
	b  []byte
	at int
}

func (r *byteReader) Read(p []byte) (int, error) {
	if r.at >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.at:])
	r.at += n
	return n, nil
}

func (r *byteReader) ReadByte() (byte, error) {
	if r.at >= len(r.b) {
		return 0, io.EOF
	}
	r.at++
	return r.b[r.at-1], nil
}

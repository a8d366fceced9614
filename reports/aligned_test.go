package reports

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"
	"text/tabwriter"
	"unicode/utf8"
	"unsafe"
)

// TestWriteAlignedAsTabwriter checks writeAligned against text/tabwriter
// with the settings the reconciliation table used (AlignRight, padding 2,
// spaces, every cell ended by a tab): the same bytes, empty cells, wide
// characters and a single row included.
func TestWriteAlignedAsTabwriter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rows  [][]string // the header first
		spool int        // bytes of cells kept in memory; 0: the default
	}{
		{name: "header only", rows: [][]string{{"MODEL", "CALLS"}}},
		{name: "rows spooled to a file", rows: manyRows(500), spool: 100},
		{name: "a cell wider than the padding at hand", rows: [][]string{{"K", "N"}, {strings.Repeat("é", 700), "1"}, {"a", "22"}}, spool: 1},
		{name: "empty first column", rows: [][]string{{"", "CALLS", "GAP"}, {"", "12", "-0.5"}, {"", "3", "10.25"}}},
		{name: "wide and empty cells", rows: [][]string{{"KEY", "DAY", "CALLS"}, {"é-clé", "2026-10-01", ""}, {"-", "", "1234567"}, {"キー", "2026-10-02", "7"}}},
		{name: "many rows", rows: manyRows(200)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.spool > 0 {
				was := alignedSpoolMemory
				alignedSpoolMemory = tc.spool
				t.Cleanup(func() { alignedSpoolMemory = was })
				tmp := t.TempDir()
				t.Setenv("TMPDIR", tmp)
				t.Cleanup(func() {
					if left, _ := os.ReadDir(tmp); len(left) > 0 {
						t.Errorf("left in the temporary folder: %v", left)
					}
				})
			}
			var want bytes.Buffer
			tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', tabwriter.AlignRight)
			for _, r := range tc.rows {
				fmt.Fprintf(tw, "%s\t\n", strings.Join(r, "\t"))
			}
			tw.Flush()
			var got bytes.Buffer
			err := writeAligned(&got, func(yield func([]string) error) error {
				for _, r := range tc.rows {
					if err := yield(r); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
			}
		})
	}
}

// manyRows returns a header and n rows of cells of varied widths.
func manyRows(n int) [][]string {
	rows := [][]string{{"MODEL", "KEY", "CALLS", "OFFICIAL"}}
	for i := range n {
		rows = append(rows, []string{fmt.Sprintf("m%d", i%7), strings.Repeat("k", i%13), fmt.Sprint(i * i), fmt.Sprintf("%d.%02d", i*31, i%100)})
	}
	return rows
}

// TestCellWidth checks cellWidth against utf8.RuneCountInString on text
// of every length to past two words, ASCII or with a byte from 0x80 (a
// rune of two, three or four bytes, or an invalid byte) at each place.
func TestCellWidth(t *testing.T) {
	for n := range 20 {
		ascii := strings.Repeat("7", n)
		if got := cellWidth(ascii); got != n {
			t.Fatalf("cellWidth(%q) = %d, want %d", ascii, got, n)
		}
		for at := range n {
			for _, odd := range []string{"é", "キ", "🙂", "\xff", "\x80", "\xe3\x82"} {
				c := ascii[:at] + odd + ascii[at:]
				if got, want := cellWidth(c), utf8.RuneCountInString(c); got != want {
					t.Fatalf("cellWidth(%q) = %d, want %d", c, got, want)
				}
			}
		}
	}
}

// TestSpoolReadInBlocks spools rows to a file and reads them back a
// few bytes at a time: rows cut by a block's end, their length itself
// cut, and rows longer than a block (read whole in room made for them)
// come back as they went in; a file cut short is an error.
func TestSpoolReadInBlocks(t *testing.T) {
	rows := manyRows(300)
	rows = append(rows, []string{strings.Repeat("x", 300), "", strings.Repeat("é", 90)}, []string{"last"})
	for _, block := range []int{1, 2, 3, 7, 64, 1000} {
		wasMem, wasBlock := alignedSpoolMemory, spoolBlock
		alignedSpoolMemory, spoolBlock = 16, block
		t.Setenv("TMPDIR", t.TempDir())
		s := &spool{}
		for _, r := range rows {
			if err := s.add(r); err != nil {
				t.Fatal(err)
			}
		}
		var got [][]string
		err := s.each(func(row [][]byte) error {
			cells := make([]string, len(row))
			for i, c := range row {
				cells[i] = string(c)
			}
			got = append(got, cells)
			return nil
		})
		if err != nil {
			t.Fatalf("block of %d: %v", block, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(rows) {
			t.Errorf("block of %d: read back\n%q\nwrote\n%q", block, got, rows)
		}
		// The same file cut inside its last row.
		info, err := s.f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.f.Truncate(info.Size() - 2); err != nil {
			t.Fatal(err)
		}
		if _, err := s.f.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		rowsRead := 0
		err = s.each(func([][]byte) error { rowsRead++; return nil })
		if err == nil || !strings.Contains(err.Error(), "ends inside a row") || rowsRead != len(rows)-1 {
			t.Errorf("block of %d, the file cut short: %d rows read, error %v", block, rowsRead, err)
		}
		s.close()
		alignedSpoolMemory, spoolBlock = wasMem, wasBlock
	}
}

// TestWriteAlignedRowsInReusedMemory checks that writeAligned keeps no
// cell past yield's call: rows whose cells are text in one buffer,
// written over by the next row, spooled in memory and to a file, come out
// as tabwriter writes the rows themselves.
func TestWriteAlignedRowsInReusedMemory(t *testing.T) {
	rows := manyRows(300)
	var want bytes.Buffer
	tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(r, "\t"))
	}
	tw.Flush()
	for _, spool := range []int{alignedSpoolMemory, 64} {
		was := alignedSpoolMemory
		alignedSpoolMemory = spool
		t.Setenv("TMPDIR", t.TempDir())
		var got bytes.Buffer
		err := writeAligned(&got, func(yield func([]string) error) error {
			var buf []byte
			var cells []string
			for _, r := range rows {
				buf, cells = buf[:0], cells[:0]
				var ends []int
				for _, c := range r {
					buf = append(buf, c...)
					ends = append(ends, len(buf))
				}
				start := 0
				for _, end := range ends {
					cells = append(cells, unsafe.String(unsafe.SliceData(buf[start:end]), end-start))
					start = end
				}
				if err := yield(cells); err != nil {
					return err
				}
				clear(buf) // the next row's text goes where this row's was
			}
			return nil
		})
		alignedSpoolMemory = was
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("spool of %d bytes: got\n%s\nwant\n%s", spool, got.String(), want.String())
		}
	}
}

// TestSpoolRowCut checks that a spooled row cut short, or longer than
// its cells, is an error rather than cells of the wrong text.
func TestSpoolRowCut(t *testing.T) {
	var s spool
	if err := s.add([]string{"model", "", "12.50"}); err != nil {
		t.Fatal(err)
	}
	n, k := binary.Uvarint(s.mem)
	if k <= 0 || int(n) != len(s.mem)-k {
		t.Fatalf("the spool's row is %d bytes by its length, %d in memory", n, len(s.mem)-k)
	}
	whole := s.mem[k:]
	if got, err := cutCells(nil, whole); err != nil || len(got) != 3 || string(got[0]) != "model" || string(got[2]) != "12.50" {
		t.Fatalf("whole row: got %q, %v", got, err)
	}
	for cut := range len(whole) {
		if got, err := cutCells(nil, whole[:cut]); err == nil {
			t.Errorf("row cut at %d of %d bytes: got %q, no error", cut, len(whole), got)
		}
	}
	if got, err := cutCells(nil, append(whole[:len(whole):len(whole)], 'x')); err == nil {
		t.Errorf("row with a byte past its cells: got %q, no error", got)
	}
}

package reports

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
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

// TestAlignedInBlocks writes tables whose columns widen all along (a
// cell wider than its column's every few rows, so that most lines are
// laid out again), through a spool in a file read back a few bytes at a
// time: lines, and runes of two to four bytes, cut by a block's end, and
// lines longer than a block (read whole in room made for them), with
// rows of fewer or more cells than the row before. Each comes out as a
// plain layout in the widest cell of each column makes it; a spool cut
// short is an error.
func TestAlignedInBlocks(t *testing.T) {
	rows := ragged(manyRows(300))
	rows = append(rows, []string{strings.Repeat("x", 300), "", strings.Repeat("é", 90)}, []string{"キー🙂", "\xff"}, []string{"last"})
	for i := range rows {
		if i%40 == 39 {
			rows[i] = append(slices.Clone(rows[i]), strings.Repeat("🙂", i/40)) // a column wider late
		}
	}
	want := plainAligned(rows)
	wasMem, wasBlock := alignedSpoolMemory, spoolBlock
	t.Cleanup(func() { alignedSpoolMemory, spoolBlock = wasMem, wasBlock })
	for _, block := range []int{1, 2, 3, 7, 64, 1000, 256 << 10} {
		for _, inMemory := range []bool{false, true} {
			alignedSpoolMemory, spoolBlock = 16, block
			if inMemory {
				alignedSpoolMemory = 1 << 20
			}
			t.Setenv("TMPDIR", t.TempDir())
			s := &spool{}
			for _, r := range rows {
				if err := s.add(r); err != nil {
					t.Fatal(err)
				}
			}
			if len(s.layouts) < 10 {
				t.Fatalf("%d layouts: the rows do not widen the columns as the test means them to", len(s.layouts))
			}
			var got bytes.Buffer
			if err := s.writeTo(&got); err != nil {
				t.Fatalf("block of %d: %v", block, err)
			}
			if got.String() != want {
				t.Errorf("block of %d, in memory %v: got\n%s\nwant\n%s", block, inMemory, got.String(), want)
			}
			if inMemory {
				if s.f != nil {
					t.Errorf("block of %d: a spool of %d bytes went to a file", block, len(s.mem))
				}
				continue
			}
			// The same file cut inside a line laid out again, then inside
			// one of the last layout.
			info, err := s.f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			last := s.layouts[len(s.layouts)-1].at
			for _, size := range []int64{last - 2, info.Size() - 2} {
				if err := s.f.Truncate(size); err != nil {
					t.Fatal(err)
				}
				s.inFile = info.Size()
				if err := s.writeTo(io.Discard); err == nil {
					t.Errorf("block of %d, the file cut to %d bytes of %d: no error", block, size, info.Size())
				}
			}
			s.close()
		}
	}
}

// plainAligned lays out rows as writeAligned does, a column at a time:
// each cell, as tableCell shows it, after the spaces that make it as wide
// as its column's widest cell and alignedPadding.
func plainAligned(rows [][]string) string {
	var widths []int
	for _, r := range rows {
		for j, c := range r {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], utf8.RuneCountInString(tableCell(c))+alignedPadding)
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for j, c := range r {
			c = tableCell(c)
			b.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)) + c)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ragged returns rows some shorter and some longer than the row before.
func ragged(rows [][]string) [][]string {
	out := make([][]string, 0, len(rows))
	for i, r := range rows {
		switch i % 17 {
		case 5:
			r = r[:2]
		case 6:
			r = append(slices.Clone(r), "é")
		}
		out = append(out, r)
	}
	return out
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

// TestRelayoutCut checks that a line laid out again is taken whole or
// not at all: cut short anywhere, inside a rune of several bytes too, it
// is left to be read whole, and once the spool is known to end there it
// is an error; a line with more columns than its layout is one too.
func TestRelayoutCut(t *testing.T) {
	layouts := []layout{{at: 0, widths: []int{5, 4}}, {at: 1 << 40, widths: []int{7, 4, 3}}}
	line := []byte("   é7  22\n")
	for cut := range len(line) {
		rl := relayout{layouts: layouts}
		if used, err := rl.rows(line[:cut], false); used != 0 || err != nil || len(rl.out) != 0 {
			t.Errorf("line cut at %d of %d bytes: used %d, laid out %q, %v", cut, len(line), used, rl.out, err)
		}
	}
	rl := relayout{layouts: layouts}
	if used, err := rl.rows(line, false); used != len(line) || err != nil || string(rl.out) != "     é7  22\n" {
		t.Errorf("whole line: used %d of %d, laid out %q, %v", used, len(line), rl.out, err)
	}
	rl = relayout{layouts: layouts}
	if _, err := rl.rows([]byte("   é7  22  x\n"), true); err == nil {
		t.Errorf("a line of three columns in a layout of two: no error")
	}
	if n, ok := runesEnd([]byte("ab\xc3"), 3, false); ok {
		t.Errorf("a rune cut short, more to come: %d bytes, ok", n)
	}
	if n, ok := runesEnd([]byte("ab\xc3"), 3, true); !ok || n != 3 {
		t.Errorf("a rune cut short at the end: %d bytes, %v; want 3, as one rune of a byte", n, ok)
	}
}

// TestAlignedRandomRows writes tables of random rows (cells of ASCII,
// runes of two to four bytes and invalid bytes, rows of any length,
// columns that widen anywhere) through a spool of a few bytes in memory
// and blocks of a few bytes, and checks each against plainAligned.
func TestAlignedRandomRows(t *testing.T) {
	wasMem, wasBlock := alignedSpoolMemory, spoolBlock
	t.Cleanup(func() { alignedSpoolMemory, spoolBlock = wasMem, wasBlock })
	t.Setenv("TMPDIR", t.TempDir())
	r := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"a", "7", " ", "-", "é", "キ", "🙂", "\xff", "\xe3\x82", "\n"}
	for table := range 300 {
		rows := make([][]string, r.IntN(40))
		for i := range rows {
			rows[i] = make([]string, r.IntN(6))
			for j := range rows[i] {
				var b strings.Builder
				for range r.IntN(3 + i) {
					b.WriteString(pieces[r.IntN(len(pieces))])
				}
				rows[i][j] = b.String()
			}
		}
		alignedSpoolMemory, spoolBlock = 1+r.IntN(200), 1+r.IntN(50)
		var got bytes.Buffer
		err := writeAligned(&got, func(yield func([]string) error) error {
			for _, row := range rows {
				if err := yield(row); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("table %d: %v", table, err)
		}
		if want := plainAligned(rows); got.String() != want {
			t.Fatalf("table %d (spool %d, block %d): got\n%q\nwant\n%q", table, alignedSpoolMemory, spoolBlock, got.String(), want)
		}
	}
}

package reports

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// alignedPadding is the spaces a column of an aligned table keeps beyond
// its widest cell.
const alignedPadding = 2

// writeAligned writes a header and n rows of cells right-aligned in
// columns as wide as their widest cell plus alignedPadding, byte for byte
// what text/tabwriter writes with AlignRight, that padding, spaces and
// every cell ended by a tab. It goes over the rows twice, the first time
// for the widths, rather than holding them: cells(i, dst) appends row i's
// cells to dst (the header's when i is -1), the same each time it is
// called.
func writeAligned(out io.Writer, n int, cells func(i int, dst []string) []string) error {
	var widths []int
	var row []string
	for i := -1; i < n; i++ {
		row = cells(i, row[:0])
		for j, c := range row {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], utf8.RuneCountInString(c)+alignedPadding)
		}
	}
	w := bufio.NewWriterSize(out, 64<<10)
	for i := -1; i < n; i++ {
		row = cells(i, row[:0])
		for j, c := range row {
			w.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)))
			w.WriteString(c)
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}

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

// writeAligned writes a header and rows of cells right-aligned in
// columns as wide as their widest cell plus alignedPadding, byte for byte
// what text/tabwriter writes with AlignRight, that padding, spaces and
// every cell ended by a tab. It goes over the rows twice, the first time
// for the widths, rather than holding them: rows calls yield with the
// header's cells, then each row's, the same each time it is called, and
// returns yield's first error or its own.
func writeAligned(out io.Writer, rows func(yield func(cells []string) error) error) error {
	var widths []int
	err := rows(func(row []string) error {
		for j, c := range row {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], utf8.RuneCountInString(c)+alignedPadding)
		}
		return nil
	})
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 64<<10)
	err = rows(func(row []string) error {
		for j, c := range row {
			w.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)))
			w.WriteString(c)
		}
		return w.WriteByte('\n')
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

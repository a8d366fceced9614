package reports

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"text/tabwriter"
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

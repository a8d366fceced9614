package reports

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/reports/textout"
	"github.com/tokenfare/tokenfare/tariffs/importer"
)

// Imported writes what tariffs import did: the files written into dir,
// the instant their prices take effect, and per table how many entries
// were read, imported, not selected and skipped, by reason.
func Imported(out io.Writer, dir string, effective time.Time, res *importer.Result) error {
	w := &textout.Writer{W: out}
	models := 0
	for _, f := range res.Files {
		models += f.Models
	}
	if len(res.Files) == 0 {
		w.Printf("nothing imported: no entry of the tables is both selected and missing from the catalog\n")
	} else {
		w.Printf("imported %d model(s) into %s, in force from %s, resting on a secondary source:\n", models, dir, effective.UTC().Format(time.RFC3339))
	}
	for _, f := range res.Files {
		w.Printf("  %s  host %s, %d model(s)\n", filepath.Join(dir, f.Name), f.Host, f.Models)
	}
	for _, c := range res.Counts {
		skipped, reasons := 0, []string{}
		for r, n := range c.Skipped {
			if n > 0 {
				skipped += n
				reasons = append(reasons, fmt.Sprintf("%s %d", importer.Reason(r), n))
			}
		}
		w.Printf("%s: %s, %d entries read: %d imported, %d not selected, %d skipped", c.Table.DB.File, c.Table.DB.Format, c.Read, c.Imported, c.NotSelected, skipped)
		if len(reasons) > 0 {
			w.Printf(" (%s)", strings.Join(reasons, ", "))
		}
		w.Printf("\n")
	}
	return w.Err
}

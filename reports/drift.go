package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tokenfare/tokenfare/reports/textout"

	"github.com/tokenfare/tokenfare/tariffs"
	"github.com/tokenfare/tokenfare/tariffs/drift"
)

// Drift writes the differences between a catalog and other price databases
// found at instant at, in format f.
func Drift(w io.Writer, f Format, at time.Time, dbs []*drift.Database, fs []drift.Finding) error {
	return writeAs(w, f, "a comparison", newDriftDoc(at, dbs, fs), tableDrift, csvDrift, asDoc)
}

// driftDoc is the stable JSON shape of `tariffs compare`.
type driftDoc struct {
	At          string          `json:"at"`
	Files       []driftFileDoc  `json:"files"`
	Differences []differenceDoc `json:"differences"`
}

type driftFileDoc struct {
	File    string    `json:"file"`
	Format  string    `json:"format"`
	Read    int       `json:"read"`    // entries in the file
	Entries int       `json:"entries"` // entries read and compared
	Skipped []skipDoc `json:"skipped"` // entries that could not be read
}

type skipDoc struct {
	Name   string `json:"name"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

type differenceDoc struct {
	Kind    string `json:"kind"` // price, only_in_catalog, only_in_other, time_of_use, unknown_name
	Model   string `json:"model,omitempty"`
	File    string `json:"file"`
	Name    string `json:"name,omitempty"`   // the name the other database lists
	Source  string `json:"source,omitempty"` // file:line of that entry
	Usage   string `json:"usage,omitempty"`
	Above   int64  `json:"above,omitempty"`        // prompt-size tier: prompts above this many tokens
	Service string `json:"service_tier,omitempty"` // batch, flex or priority; absent for the standard tier
	Region  string `json:"region,omitempty"`       // region rows: catalog and other are multipliers
	Period  string `json:"period,omitempty"`
	Catalog string `json:"catalog,omitempty"` // price per 1M tokens (request: per call; a tool: per use)
	Other   string `json:"other,omitempty"`
	From    string `json:"from,omitempty"`
	Until   string `json:"until,omitempty"`
	Note    string `json:"note,omitempty"`
}

func newDriftDoc(at time.Time, dbs []*drift.Database, fs []drift.Finding) *driftDoc {
	d := &driftDoc{At: at.UTC().Format(time.RFC3339), Files: []driftFileDoc{}, Differences: []differenceDoc{}}
	for _, db := range dbs {
		fd := driftFileDoc{File: db.File, Format: string(db.Format), Read: db.Read, Entries: len(db.Entries), Skipped: []skipDoc{}}
		for _, s := range db.Skipped {
			fd.Skipped = append(fd.Skipped, skipDoc{Name: s.Name, Line: s.Line, Reason: s.Reason})
		}
		d.Files = append(d.Files, fd)
	}
	for _, f := range fs {
		x := differenceDoc{Kind: f.Kind.String(), File: f.Database.File, Period: f.Period, Note: f.Note}
		if f.Model != nil {
			x.Model = f.Model.ID
		}
		if f.Entry != nil {
			x.Name, x.Source = f.Entry.Name, f.Entry.Where()
		}
		if f.Kind == drift.PriceDiffers {
			x.Usage, x.Above, x.Catalog, x.Other = f.Usage.String(), f.Above, f.Catalog.String(), f.Other.String()
			if f.Service != tariffs.Standard {
				x.Service = f.Service.String()
			}
		}
		if f.Kind == drift.RegionDiffers {
			x.Region, x.Other = f.Region, f.Other.String()
			if f.Catalog.IsPositive() { // zero: the catalog has no multiplier
				x.Catalog = f.Catalog.String()
			}
		}
		if !f.From.IsZero() {
			x.From, x.Until = f.From.UTC().Format(time.RFC3339), f.Until.UTC().Format(time.RFC3339)
		}
		d.Differences = append(d.Differences, x)
	}
	return d
}

// usageText names a usage type with its prompt-size and service tiers.
func (x *differenceDoc) usageText() string {
	if x.Region != "" {
		return "region " + x.Region
	}
	u := x.Usage
	if x.Above > 0 {
		u = fmt.Sprintf("%s (prompt > %d)", u, x.Above)
	}
	if x.Service != "" {
		u += " [" + x.Service + "]"
	}
	return u
}

func (x *differenceDoc) detail() string {
	if x.From != "" {
		return fmt.Sprintf("%s to %s: %s", x.From, x.Until, x.Note)
	}
	return x.Note
}

func tableDrift(out io.Writer, d *driftDoc) error {
	w := &textout.Writer{W: out}
	for _, f := range d.Files {
		w.Printf("%s: %s, %d entries read, %d skipped\n", f.File, f.Format, f.Read, len(f.Skipped))
	}
	if len(d.Differences) == 0 {
		w.Printf("no differences at %s\n", d.At)
		return w.Err
	}
	w.Printf("%d difference(s) at %s (prices per 1M tokens, tool fees per use)\n\n", len(d.Differences), d.At)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tMODEL\tOTHER NAME\tUSAGE\tPERIOD\tCATALOG\tOTHER\tDETAIL\tSOURCE")
	for i := range d.Differences {
		x := &d.Differences[i]
		source := x.Source
		if source == "" {
			source = x.File
		}
		cells := []string{x.Kind, x.Model, x.Name, x.usageText(), x.Period, x.Catalog, x.Other, x.detail(), source}
		for j := range cells {
			cells[j] = orDash(cells[j])
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	return w.Err
}

func csvDrift(w io.Writer, d *driftDoc) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"kind", "model", "file", "name", "source", "usage", "above", "period", "catalog", "other", "from", "until", "note", "service_tier", "region", "currency"})
	for _, x := range d.Differences {
		above := ""
		if x.Above > 0 {
			above = strconv.FormatInt(x.Above, 10)
		}
		currency := ""
		if x.Catalog != "" && x.Region == "" {
			currency = "USD" // both other formats are in USD; other currencies are not compared
		}
		cw.Write(sheetTexts([]string{x.Kind, x.Model, x.File, x.Name, x.Source, x.Usage, above, x.Period, x.Catalog, x.Other, x.From, x.Until, x.Note, x.Service, x.Region, currency}))
	}
	cw.Flush()
	return cw.Error()
}

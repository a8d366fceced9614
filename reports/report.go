package reports

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Reconciliation writes a reconciliation in format f.
func Reconciliation(w io.Writer, f Format, r *pricing.Reconciliation) error {
	switch f {
	case JSON:
		return jsonReconciliation(w, r)
	case YAML:
		doc, err := newReconciliationDoc(r)
		if err != nil {
			return err
		}
		return writeYAML(w, doc)
	}
	return writeAs(w, f, "a reconciliation", r, tableReconciliation, csvReconciliation,
		func(r *pricing.Reconciliation) any { return nil })
}

// Blend writes blended prices in format f.
func Blend(w io.Writer, f Format, b *pricing.Blend) error {
	return writeAs(w, f, "a blend", b, tableBlend, csvBlend, func(b *pricing.Blend) any { return newBlendDoc(b) })
}

// Models writes the models of a catalog with their status at an instant,
// in format f.
func Models(w io.Writer, f Format, models []*tariffs.Model, at time.Time) error {
	return writeAs(w, f, "a model list", newModelDocs(models, at), tableModels, csvModels, asDoc)
}

// CallWriter writes priced calls one at a time, as they are read, so that
// memory does not grow with the number of calls.
type CallWriter interface {
	// Write writes one call with its pricing.
	Write(c *ledger.Call, pc *pricing.PricedCall) error
	// Flush writes out what is buffered; a CSV header is written even when
	// no call was.
	Flush() error
}

// NewCallWriter returns a writer of priced calls in format f: a table,
// CSV, or JSON with one object per line.
func NewCallWriter(w io.Writer, f Format) (CallWriter, error) {
	switch f {
	case Table:
		return newTableCalls(w), nil
	case CSV:
		return newCSVCalls(w), nil
	case JSON:
		return newJSONCalls(w), nil
	}
	return nil, errFormat("priced calls", f)
}

// MonthLine writes the line `report` ends with: the month (as label names
// it) and zone, the rows read, the official and recorded totals and their
// ratio, and the files written.
func MonthLine(w io.Writer, label string, m *pricing.Month, wrote []string) error {
	t := m.Reconciliation.Totals
	ratio := "-"
	if t.Ratio.Valid {
		ratio = t.Ratio.Decimal.StringFixed(pricing.RatioPlaces)
	}
	_, err := fmt.Fprintf(w, "%s %s: %d rows read, official %s %s, recorded %s, recorded/official %s; wrote %s\n",
		label, m.Zone, m.Reconciliation.Rows.Read, money(t.Official), currencyText(m.Reconciliation.Currencies),
		money(t.Recorded), ratio, strings.Join(wrote, ", "))
	return err
}

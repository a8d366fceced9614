package reports

import (
	"io"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Reconciliation writes a reconciliation in format f.
func Reconciliation(w io.Writer, f Format, r *pricing.Reconciliation) error {
	switch f {
	case Table:
		return tableReconciliation(w, r)
	case CSV:
		return csvReconciliation(w, r)
	case JSON:
		return writeJSON(w, newReconciliationDoc(r))
	case YAML:
		return writeYAML(w, newReconciliationDoc(r))
	}
	return errFormat("a reconciliation", f)
}

// Blend writes blended prices in format f.
func Blend(w io.Writer, f Format, b *pricing.Blend) error {
	switch f {
	case Table:
		return tableBlend(w, b)
	case CSV:
		return csvBlend(w, b)
	case JSON:
		return writeJSON(w, newBlendDoc(b))
	case YAML:
		return writeYAML(w, newBlendDoc(b))
	}
	return errFormat("a blend", f)
}

// Models writes the models of a catalog with their status at an instant,
// in format f.
func Models(w io.Writer, f Format, models []*tariffs.Model, at time.Time) error {
	docs := newModelDocs(models, at)
	switch f {
	case Table:
		return tableModels(w, docs)
	case CSV:
		return csvModels(w, docs)
	case JSON:
		return writeJSON(w, docs)
	case YAML:
		return writeYAML(w, docs)
	}
	return errFormat("a model list", f)
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

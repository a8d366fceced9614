package threeway

import (
	"sort"

	"github.com/tokenfare/tokenfare/pricing"
)

// Reconciliation is the three-way result: per UTC day, model and (where
// both sides have it) key, what the gateway logged and recorded, what the
// tariff says the gateway's tokens cost, and what the provider counted and
// billed.
//
// For each cell the gap is billed minus recorded, and its parts add up to
// it exactly: recorded against the tariff, usage the provider counted and
// the gateway did not log (missing), usage the gateway logged and the
// provider did not count (unknown), and the tariff drift — what the
// provider billed against the tariff's price of the provider's own tokens.
type Reconciliation struct {
	Rows            pricing.Rows // the gateway's row accounting
	ProviderRows    int64        // rows read from the provider's exports
	ProviderOutside int64        // of which outside the window: their bucket ends by Since or starts at Until or later
	Keyed           []string     // tariff providers aligned by key as well
	Cells           []Cell
	Providers       []ProviderTotals
	Drifts          []Drift
}

// Build finishes the three-way reconciliation; rows is the gateway's row
// accounting.
func (b *Builder) Build(rows pricing.Rows) *Reconciliation {
	tw := &Reconciliation{Rows: rows, ProviderRows: b.rows, ProviderOutside: b.outside, Cells: []Cell{}, Providers: []ProviderTotals{}}
	for p := range b.keyed {
		tw.Keyed = append(tw.Keyed, p)
	}
	sort.Strings(tw.Keyed)
	accs := make([]*cellAcc, 0, len(b.cells))
	for _, c := range b.cells {
		accs = append(accs, c)
	}
	sort.Slice(accs, func(i, j int) bool { return cellLess(accs[i], accs[j]) })
	var ds drifts
	for _, a := range accs {
		cell := b.finish(a)
		tw.Cells = append(tw.Cells, cell)
		for _, d := range cellDrifts(a, &cell) {
			ds.add(d)
		}
	}
	tw.Drifts = ds.list()
	tw.Providers = totalsByProvider(tw.Cells)
	return tw
}

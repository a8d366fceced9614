package pricing

import (
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Coster prices quantities at rates as CostOf's total, exactly, in
// integers where they fit (each rates' prices made integers once): what
// prices many sums at a few rates, as serve's metrics do. The zero value
// is ready to use; not safe for concurrent use.
type Coster struct {
	fixed map[*tariffs.Rates]*fixedRates
}

// Total returns CostOf(r, q)'s total as an Amount.
func (t *Coster) Total(r *tariffs.Rates, q *Quantities) ledger.Amount {
	f := t.fixed[r]
	if f == nil {
		if t.fixed == nil {
			t.fixed = map[*tariffs.Rates]*fixedRates{}
		}
		f = newFixedRates(r)
		t.fixed[r] = f
	}
	if a, ok := f.amount(q); ok {
		return a
	}
	_, total := CostOf(r, q)
	return ledger.AmountOf(total)
}

// Merge adds o into s exactly.
func (s *ExactSum) Merge(o *ExactSum) { s.merge(o) }

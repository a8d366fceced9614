package pricing

import (
	"encoding/json"
	"iter"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// Collect copies what seq yields (the groups of a reconciliation, the
// lines of a chargeback) into a list, and returns the error seq yields,
// with what was read before it. It is for results known to be short, and
// for tests: a long result is ranged over as it is read.
func Collect[T any](seq iter.Seq2[*T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, *v)
	}
	return out, nil
}

// reconciliationJSON is a reconciliation as encoding/json writes it:
// its exported fields, with the groups read whole in their place.
type reconciliationJSON struct {
	Rows         Rows
	Currencies   []string
	Totals       Totals
	By           []Dim
	Groups       []Group
	Explanations []Explanation
	Billed       []Modifier
	Failed       *FailedSplit
	Unpriced     []UnpricedCalls
	Daily        []*ledger.DailyComparison
}

// MarshalJSON writes the reconciliation's exported fields and, as
// Groups, every group read whole (an error reading them is the
// encoding's): a plain encoding that compares two reconciliations
// group by group. The command's JSON is the reports package's.
func (r *Reconciliation) MarshalJSON() ([]byte, error) {
	groups, err := Collect(r.Groups())
	if err != nil {
		return nil, err
	}
	return json.Marshal(reconciliationJSON{r.Rows, r.Currencies, r.Totals, r.By, groups,
		r.Explanations, r.Billed, r.Failed, r.Unpriced, r.Daily})
}

// chargebackJSON is a chargeback as encoding/json writes it: its
// exported fields, with the lines read whole in their place.
type chargebackJSON struct {
	Rows         Rows
	From, Until  time.Time
	Currencies   []string
	By           []Dim
	MetaField    string
	Gateway      ChargebackLine
	Lines        []ChargebackLine
	BlendedPrice []BlendModel
	Excluded     *ChargebackLine
	Unpriced     []UnpricedCalls
}

// MarshalJSON writes the chargeback's exported fields and, as Lines,
// every line read whole, as Reconciliation.MarshalJSON does its groups.
func (c *Chargeback) MarshalJSON() ([]byte, error) {
	lines, err := Collect(c.Lines())
	if err != nil {
		return nil, err
	}
	return json.Marshal(chargebackJSON{c.Rows, c.From, c.Until, c.Currencies, c.By, c.MetaField,
		c.Gateway, lines, c.BlendedPrice, c.Excluded, c.Unpriced})
}

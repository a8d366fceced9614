package pricing

import "fmt"

// Outputs are the results an engine that spills its groups (Options.Runs)
// will be asked for once its calls are read. Each needs something of the
// buckets a spill collapses, which only the runs can keep, so the engine
// keeps what the outputs asked of it need, and no more:
//
//   - OutputGroups (Reconcile, MonthOf): the groups, which every spill
//     writes.
//   - OutputChargeback (Chargeback): with each group, its quantities by
//     model and the cost of the calls the blend leaves out, to price its
//     line at the blended prices known only once every call is read.
//   - OutputCharges (Charges, a FOCUS file): the buckets summed by charge
//     key at each spill, in runs of their own.
//
// Zero asks for every output. An engine asked for an output it was not
// told of fails it with ErrSpill, once it spilled.
type Outputs uint8

const (
	OutputGroups Outputs = 1 << iota
	OutputChargeback
	OutputCharges
)

// keeps reports whether the engine spills and keeps what output o needs.
func (e *Engine) keeps(o Outputs) bool {
	return e.opts.Runs != nil && (e.opts.Outputs == 0 || e.opts.Outputs&o != 0)
}

// notAsked is the error of output o (its name) asked of an engine that
// spilled without what it needs (Options.Outputs).
func notAsked(o string) error {
	return fmt.Errorf("%w: %s asked of an engine that spilled its groups without being told of it (Options.Outputs)", ErrSpill, o)
}

package failures

import (
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// Tally counts a run's failed calls by class, one call at a time, for
// the reports that show the split beside their totals (reconcile, the
// workbook). It keeps no call.
type Tally struct {
	Calls [NumClasses]int64
}

// Observe counts a failed call under its class.
func (t *Tally) Observe(c *ledger.Call, pc *pricing.PricedCall) error {
	if pc.Outcome == pricing.Failed {
		class, _ := Classify(c)
		t.Calls[class]++
	}
	return nil
}

// Split returns the upstream, gateway and unknown failures of a run
// that counted failed calls in all: the calls the tally did not
// see (summed in the database, without their error detail) are unknown.
func (t *Tally) Split(failed int64) (upstream, gateway, unknown int64) {
	upstream, gateway = t.Calls[Upstream], t.Calls[Gateway]
	return upstream, gateway, max(failed-upstream-gateway, 0)
}

// Both watch a run's calls through the one seam.
var (
	_ pricing.Observer = (*Analyzer)(nil)
	_ pricing.Observer = (*Tally)(nil)
)

// ObserveSummed counts a group of failed calls summed with their class
// (tokenfare's state keeps it).
func (t *Tally) ObserveSummed(g *ledger.Summed) {
	if int(g.Failure) < len(t.Calls) {
		t.Calls[g.Failure] += g.Calls
	}
}

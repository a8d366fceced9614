package pricing

import "github.com/tokenfare/tokenfare/ledger"

// An Observer watches the calls of a run go by, each with what pricing made
// of it: per-call output, the workbook's month, FOCUS, three-way
// reconciliation, a metrics exporter. Observe sees c and pc only while it
// runs; it keeps a copy of whatever it needs after. An error stops the run
// at once: no further row is read or priced, and the run returns the error.
type Observer interface {
	Observe(c *ledger.Call, pc *PricedCall) error
}

// ObserverFunc makes a function an Observer.
type ObserverFunc func(c *ledger.Call, pc *PricedCall) error

// Observe calls f.
func (f ObserverFunc) Observe(c *ledger.Call, pc *PricedCall) error { return f(c, pc) }

// Observers fans each call out to every observer in order, stopping at the
// first error.
type Observers []Observer

// Observe shows the call to each observer in turn.
func (os Observers) Observe(c *ledger.Call, pc *PricedCall) error {
	for _, o := range os {
		if err := o.Observe(c, pc); err != nil {
			return err
		}
	}
	return nil
}

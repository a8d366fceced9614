package pricing

import (
	"fmt"
	"sync/atomic"

	"github.com/tokenfare/tokenfare/internal/extsort"
)

// spillRuns are the engine's spill: the sorted runs it wrote past its
// budget of buckets (Options.Runs), of groups, and of charge groups when
// it keeps them (OutputCharges), in a store made at the first spill
// (open), which the engine holds a reference to (files) until Close
// (remove). The engine decides what to write and when (spill.go); the
// runs are internal/extsort's.
type spillRuns struct {
	make    func() (RunStore, error)   // Options.Runs; nil: the engine folds, never spills
	store   RunStore                   // the store of the runs, made at the first spill
	ref     *runFiles                  // the engine's reference to store
	lineSet int                        // the sets of runs of lines written (Chargeback), each named apart
	max     int                        // runs kept before they merge (extsort.MaxRuns of the store's FileLimit)
	groups  *extsort.Runs[groupSum]    // nil until the first spill
	charges *extsort.Runs[chargeGroup] // nil until the first spill
	aliased bool                       // a group of a run has a key alias
	removed bool                       // Close removed the runs: their groups cannot be read
	prices  chargePrices               // the prices of the charges in runs (OutputCharges)
	texts   *runTexts                  // the numbers of the texts of the runs' records, made when first asked for (textsOf)
	err     error                      // the first error of a spill (ErrSpill): the engine spills no more
}

// files returns how many runs of groups there are.
func (r *spillRuns) files() int {
	if r.groups == nil {
		return 0
	}
	return r.groups.Len()
}

// written returns how many runs of groups were written, compactions'
// included.
func (r *spillRuns) written() int {
	if r.groups == nil {
		return 0
	}
	return r.groups.Stats().Runs
}

// spilling reports whether the engine writes its groups past its budget
// rather than fold them: it has a store to make, and no spill failed.
func (r *spillRuns) spilling() bool { return r.make != nil && r.err == nil }

// fail keeps the error of a spill, as ErrSpill, when it is the first.
func (r *spillRuns) fail(err error) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %w", ErrSpill, err)
	}
}

// open makes the store of the runs, at the first spill, the number of
// runs it keeps from the store's budget of open files, and the runs of
// groups and of charge groups configured for the store.
func (r *spillRuns) open(groups func(RunStore) extsort.Config[groupSum], charges func(RunStore) extsort.Config[chargeGroup]) error {
	store, err := r.make()
	if err != nil {
		return err
	}
	r.store, r.max = store, extsort.MaxRuns(store.FileLimit())
	r.ref = newRunFiles(store)
	r.groups = extsort.New(groups(store))
	r.charges = extsort.New(charges(store))
	return nil
}

// textsOf returns the numbers of the texts of the runs' records, which
// last as long as the engine and every result that reads its runs.
func (r *spillRuns) textsOf() *runTexts {
	if r.texts == nil {
		r.texts = &runTexts{}
	}
	return r.texts
}

// readable returns an error when the engine let go of its runs: it
// cannot read them, nor hand them to a result.
func (r *spillRuns) readable() error {
	if r.removed {
		return fmt.Errorf("%w: %w: the engine was closed", ErrSpill, ErrClosed)
	}
	return nil
}

// remove lets go of the engine's reference to the runs, if any were
// written: the engine reads none after, and the store goes once no
// result streams from it (runFiles).
func (r *spillRuns) remove() error {
	if r.ref == nil {
		return nil
	}
	err := r.ref.release()
	// The prices stay: the charge codec of a result that still holds
	// the runs reads them (Charges).
	*r = spillRuns{make: r.make, removed: true, err: r.err, prices: r.prices, texts: r.texts}
	return err
}

// runFiles is the store of an engine's runs, shared by the engine and
// the results that stream from it (a spilled Reconciliation, a
// Chargeback of streamed lines): each holds a reference, and the store
// is removed, every run in it, when the last is let go. The count is
// atomic, as a result may be closed on another goroutine than its
// engine.
type runFiles struct {
	store RunStore
	refs  atomic.Int64
}

// newRunFiles returns the runs of store with one reference, the engine's.
func newRunFiles(store RunStore) *runFiles {
	f := &runFiles{store: store}
	f.refs.Store(1)
	return f
}

// hold takes a reference for a result; f may be nil (no run written).
func (f *runFiles) hold() *runFiles {
	if f != nil {
		f.refs.Add(1)
	}
	return f
}

// release lets go of a reference, removing the store with the last; f
// may be nil.
func (f *runFiles) release() error {
	if f == nil || f.refs.Add(-1) > 0 {
		return nil
	}
	return f.store.RemoveAll()
}

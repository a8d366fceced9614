package pricing

import (
	"fmt"

	"github.com/tokenfare/tokenfare/internal/extsort"
)

// spillRuns are the engine's spill: the sorted runs it wrote past its
// budget of buckets (Options.Runs), of groups, and of charge groups when
// it keeps them (OutputCharges), in a store made at the first spill
// (open) and removed by Close (remove). The engine decides what to write
// and when (spill.go); the runs are internal/extsort's.
type spillRuns struct {
	make    func() (RunStore, error)   // Options.Runs; nil: the engine folds, never spills
	store   RunStore                   // the store of the runs, made at the first spill
	max     int                        // runs kept before they merge (extsort.MaxRuns of the store's FileLimit)
	groups  *extsort.Runs[groupSum]    // nil until the first spill
	charges *extsort.Runs[chargeGroup] // nil until the first spill
	aliased bool                       // a group of a run has a key alias
	removed bool                       // Close removed the runs: their groups cannot be read
	prices  chargePrices               // the prices of the charges in runs (OutputCharges)
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
	r.groups = extsort.New(groups(store))
	r.charges = extsort.New(charges(store))
	return nil
}

// readable returns an error when the runs were removed: what was in them
// cannot be read.
func (r *spillRuns) readable() error {
	if r.removed {
		return fmt.Errorf("%w: the engine was closed", ErrSpill)
	}
	return nil
}

// remove removes the runs, if any were written: none can be read after.
func (r *spillRuns) remove() error {
	if r.store == nil {
		return nil
	}
	err := r.store.RemoveAll()
	*r = spillRuns{make: r.make, removed: true, err: r.err}
	return err
}

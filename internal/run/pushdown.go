package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/postgres"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Distinct refuses, with a *DatabaseError, databases among sources that
// are one database twice (two host names of one server, a primary and
// its replica), as Run refuses them: for a caller that reads them in
// runs of their own (a state refreshed source by source), where no run
// sees them together.
func Distinct(ctx context.Context, sources []ledger.Source) error {
	return distinct(ctx, summers(sources))
}

// distinct refuses, before anything is read, databases that are one
// database twice (two host names of one server, a primary and its
// replica): its rows would count twice.
func distinct(ctx context.Context, dbs []ledger.Summer) error {
	if len(dbs) < 2 {
		return nil
	}
	first := map[string]string{}
	for _, db := range dbs {
		id, err := db.Identity(ctx)
		if err != nil {
			return &DatabaseError{Err: err}
		}
		if prev, ok := first[id]; ok {
			return &DatabaseError{Err: &postgres.Error{Kind: postgres.ErrSameDatabase, Op: "read", DB: db.Name(),
				Msg: fmt.Sprintf("it is the database %s names (%s); its calls would count twice", prev, id)}}
		}
		first[id] = db.Name()
	}
	return nil
}

// errNothingSummed: the databases summed no priced call; reading their
// rows tells why, source by source.
var errNothingSummed = errors.New("nothing priced in the databases' sums")

// pushDown prices what each database sums, plus the rows it could not sum
// plainly. It fails with pricing.ErrNotExact when the sums cannot give the
// exact answer (a group spans a tariff switch the boundaries missed, or the
// tariffs bill by different instants): the caller then reads rows, where
// the summers keep them. Summers that keep none (a state) give their run's
// result, priced or not.
func pushDown(ctx context.Context, in *Input, dbs []ledger.Summer) (*Result, error) {
	opts, seen := in.engineOptions()
	defer seen.Close()
	rows := keepRows(dbs)
	billing, ok := pricing.CommonBilling(in.Catalog, opts.Billing)
	if !ok && rows {
		return nil, fmt.Errorf("%w: the tariffs bill by different instants", pricing.ErrNotExact)
	}
	e := pricing.New(in.Catalog, opts)
	done := false
	defer func() {
		if !done {
			e.Close() // the groups it spilled, if any: the caller reads rows or fails
		}
	}()
	res := &Result{Engine: e}
	r := reader{in: in, e: e}
	ao := sumOptions(in.Catalog, opts, billing)
	for _, db := range dbs {
		format, err := r.sum(ctx, db, ao)
		if err != nil {
			return nil, err
		}
		res.PushedDown = append(res.PushedDown, SourceRows{Name: db.Name(), Format: format, Rows: e.Rows().Sub(r.before)})
	}
	if e.Rows().Priced == 0 && rows {
		return nil, errNothingSummed
	}
	if err := e.Err(); errors.Is(err, pricing.ErrSpill) {
		return nil, err
	}
	res.finish(&r)
	done = true
	if e.Rows().Priced == 0 {
		return res, res.nothingPriced(opts)
	}
	return res, nil
}

// keepRows reports whether every summer keeps the rows of its sums.
func keepRows(dbs []ledger.Summer) bool {
	for _, db := range dbs {
		if !db.KeepsRows() {
			return false
		}
	}
	return true
}

// sumOptions are the groupings a summer sums by for an engine of opts.
func sumOptions(cat *tariffs.Catalog, opts pricing.Options, billing tariffs.BillingTime) ledger.SumOptions {
	return ledger.SumOptions{Boundaries: boundaries(cat, opts), Billing: billing, TierBounds: pricing.TierBounds(cat),
		ByKey: slices.Contains(opts.Dims, pricing.DimKey) || slices.Contains(opts.Dims, pricing.DimMeta) || opts.Apart != nil, ByTeam: slices.Contains(opts.Dims, pricing.DimTeam),
		ByUser: slices.Contains(opts.Dims, pricing.DimUser), ByTags: slices.Contains(opts.Dims, pricing.DimTag), ByKeyMeta: slices.Contains(opts.Dims, pricing.DimMeta)}
}

// sum prices the sums of db, then the rows it could not sum, and returns
// the format read. A database's failure is a *DatabaseError; a summer
// without rows fails as it says.
func (r *reader) sum(ctx context.Context, db ledger.Summer, ao ledger.SumOptions) (string, error) {
	r.before = r.e.Rows()
	p := &Progress{}
	p.stage.Store(uint32(StageSumming))
	stop := func() {}
	if r.in.Progress != nil {
		stop = r.in.Progress(db.Name(), p)
	}
	odd, err := db.Sum(ctx, ao, &sink{r: r, p: p})
	stop() // the odd rows, if any, are read with a progress of their own
	switch {
	case err != nil && (errors.Is(err, pricing.ErrNotExact) || !db.KeepsRows()):
		return "", err
	case err != nil:
		return "", &DatabaseError{Err: err}
	case odd == nil:
		return "sums", nil
	}
	r.e.NextSource() // a call of two databases' odd rows is an overlap
	format, err := r.read(ctx, oddRows{odd, db.Name()}, func(calls []ledger.Call) error {
		return r.e.AddBatch(calls, r.in.observeFailed)
	})
	if err != nil {
		return "", err
	}
	return "sums and " + format, nil
}

// sink prices the groups a Summer hands the run into its engine, and
// shows the failed calls it knows the class of to Input.FailedCalls,
// where that counts them (SummedObserver).
type sink struct {
	r *reader
	p *Progress
}

// SummedObserver is an Input.FailedCalls observer that counts failed
// calls summed with their class (failures.Tally) as well.
type SummedObserver interface {
	ObserveSummed(g *ledger.Summed)
}

func (s *sink) Add(g *ledger.Summed) error {
	s.p.stage.Store(uint32(StagePricing))
	s.p.rows.Add(1)
	if err := s.r.e.AddGroup(g); err != nil {
		return err
	}
	if obs, ok := s.r.in.FailedCalls.(SummedObserver); ok && g.Classed && s.failedIn(g) {
		obs.ObserveSummed(g)
	}
	return nil
}

// failedIn reports whether g's calls are failed calls of the window.
func (s *sink) failedIn(g *ledger.Summed) bool {
	opts := &s.r.in.Options
	failed := g.As == ledger.SummedFailed || g.As == ledger.SummedNew && g.Status == ledger.StatusFailure
	return failed && g.First.Compare(opts.Since) >= 0 && (opts.Until.IsZero() || g.First.Before(opts.Until))
}

func (s *sink) Rejected(rows int64) {
	for range rows {
		s.r.e.Reject()
	}
}

// oddRows is the reader of a database's odd rows as a source already open.
type oddRows struct {
	r    ledger.Reader
	name string
}

func (o oddRows) Name() string                                { return o.name }
func (o oddRows) Open(context.Context) (ledger.Reader, error) { return o.r, nil }

// boundaries chooses the instants the database must not sum calls across
// from the rows' range: from the first call's start to a day after the
// last one's, clipped to the window. A call that ends later still is
// checked when its group is priced.
func boundaries(cat *tariffs.Catalog, opts pricing.Options) func(first, last time.Time) []time.Time {
	return func(first, last time.Time) []time.Time {
		from, until := first, last.Add(24*time.Hour)
		if !opts.Since.IsZero() && opts.Since.After(from) {
			from = opts.Since
		}
		if !opts.Until.IsZero() && opts.Until.Before(until) {
			until = opts.Until
		}
		return pricing.AggregateBoundaries(cat, opts, from.Add(-time.Nanosecond), until.Add(time.Nanosecond))
	}
}

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
// tariffs bill by different instants): the caller then reads rows.
func pushDown(ctx context.Context, in *Input, dbs []ledger.Summer) (*Result, error) {
	opts := in.Options
	billing, ok := pricing.CommonBilling(in.Catalog, opts.Billing)
	if !ok {
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
	ao := ledger.SumOptions{Boundaries: boundaries(in.Catalog, opts), Billing: billing, TierBounds: pricing.TierBounds(in.Catalog),
		ByKey: slices.Contains(opts.Dims, pricing.DimKey) || slices.Contains(opts.Dims, pricing.DimMeta) || opts.Apart != nil, ByTeam: slices.Contains(opts.Dims, pricing.DimTeam),
		ByUser: slices.Contains(opts.Dims, pricing.DimUser), ByTags: slices.Contains(opts.Dims, pricing.DimTag), ByKeyMeta: slices.Contains(opts.Dims, pricing.DimMeta)}
	for _, db := range dbs {
		before := e.Rows()
		p := &Progress{}
		p.stage.Store(uint32(StageSumming))
		stop := func() {}
		if in.Progress != nil {
			stop = in.Progress(db.Name(), p)
		}
		odd, err := db.Sum(ctx, ao, &sink{e: e, p: p})
		stop() // the odd rows, if any, are read with a progress of their own
		if errors.Is(err, pricing.ErrNotExact) {
			return nil, err
		}
		if err != nil {
			return nil, &DatabaseError{Err: err}
		}
		format := "sums"
		if odd != nil {
			e.NextSource() // a call of two databases' odd rows is an overlap
			format, err = r.read(ctx, oddRows{odd, db.Name()}, func(c *ledger.Call) error {
				pc := e.AddPriced(c)
				return in.observeFailed(c, &pc)
			})
			if err != nil {
				return nil, err
			}
			format = "sums and " + format
		}
		res.PushedDown = append(res.PushedDown, SourceRows{Name: db.Name(), Format: format, Rows: e.Rows().Sub(before)})
	}
	if e.Rows().Priced == 0 {
		return nil, errNothingSummed
	}
	if err := e.Err(); errors.Is(err, pricing.ErrSpill) {
		return nil, err
	}
	res.finish(&r)
	done = true
	return res, nil
}

// sink prices the groups a Summer hands the run into its engine.
type sink struct {
	e *pricing.Engine
	p *Progress
}

func (s *sink) Add(g *ledger.Summed) error {
	s.p.stage.Store(uint32(StagePricing))
	s.p.rows.Add(1)
	return s.e.AddSummed(&g.Aggregate, g.BilledBy, outcomeOf(g.As))
}

func (s *sink) Rejected(rows int64) {
	for range rows {
		s.e.Reject()
	}
}

// outcomeOf is the engine's outcome of calls a Summer summed as as.
func outcomeOf(as ledger.SummedAs) pricing.Outcome {
	switch as {
	case ledger.SummedFailed:
		return pricing.Failed
	case ledger.SummedDuplicate:
		return pricing.Duplicate
	case ledger.SummedOverlap:
		return pricing.Overlap
	case ledger.SummedCacheHit:
		return pricing.CacheHit
	}
	return pricing.Priced
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

package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/postgres"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// defaultDB reads DATABASE_URL, as LiteLLM names it, when neither --calls
// nor --db is given.
func (a *app) defaultDB(o *sourceOptions) {
	if len(o.calls) > 0 || len(o.dbs) > 0 || a.getenv == nil {
		return
	}
	if url := a.getenv("DATABASE_URL"); url != "" {
		o.dbs = []string{url}
	}
}

// openDB returns the source of one --db URL for the engine's window.
func openDB(url string, opts pricing.Options) (*postgres.Source, error) {
	src, err := postgres.New(url, postgres.Options{Since: opts.Since, Until: opts.Until})
	if err != nil {
		return nil, usageError(fmt.Errorf("--db: %w", err), "write a URL like postgres://user:password@host:5432/litellm")
	}
	return src, nil
}

// dbError makes a database failure bad input (exit 2) with a hint by kind.
func dbError(err error) error {
	hint := ""
	switch {
	case errors.Is(err, postgres.ErrAuth):
		hint = "check the user and password of --db (or DATABASE_URL)"
	case errors.Is(err, postgres.ErrConnection):
		hint = "check that the server is up and reachable; a run stopped mid-way writes no output"
	case errors.Is(err, postgres.ErrMissingTable):
		hint = "point --db at LiteLLM's database (the one its DATABASE_URL names)"
	case errors.Is(err, postgres.ErrPermission):
		hint = "run the GRANT above as the tables' owner, or give --db a role that may read them"
	case errors.Is(err, postgres.ErrSameDatabase):
		hint = "give each database once; a read replica is the same database as its primary"
	case errors.Is(err, postgres.ErrTimeout):
		hint = "narrow the window with --since/--until, or let the database sum (drop --rows)"
	case errors.Is(err, context.Canceled):
		return err
	}
	return usageError(err, hint)
}

// distinctDBs refuses, before anything is read, --db URLs that name one
// database twice (two host names of one server, a primary and its
// replica): its rows would count twice.
func distinctDBs(ctx context.Context, urls []string, opts pricing.Options) error {
	if len(urls) < 2 {
		return nil
	}
	first := map[string]string{}
	for _, url := range urls {
		src, err := openDB(url, opts)
		if err != nil {
			return err
		}
		id, err := src.Identity(ctx)
		if err != nil {
			return dbError(err)
		}
		if prev, ok := first[id]; ok {
			return dbError(&postgres.Error{Kind: postgres.ErrSameDatabase, Op: "read", DB: src.Name(),
				Msg: fmt.Sprintf("it is the database %s names (%s); its calls would count twice", prev, id)})
		}
		first[id] = src.Name()
	}
	return nil
}

// pushDown prices what each database sums, plus the rows it could not sum
// plainly. It fails with pricing.ErrNotExact when the sums cannot give the
// exact answer (a group spans a tariff switch the boundaries missed, or the
// tariffs bill by different instants): the caller then reads rows.
func (a *app) pushDown(ctx context.Context, o *sourceOptions, cat *tariffs.Catalog, opts pricing.Options) (*pricing.Engine, error) {
	billing, ok := pricing.CommonBilling(cat, opts.Billing)
	if !ok {
		return nil, fmt.Errorf("%w: the tariffs bill by different instants", pricing.ErrNotExact)
	}
	e := pricing.New(cat, opts)
	r := callReader{a: a, strict: o.strict}
	ao := postgres.AggregateOptions{Boundaries: boundaries(cat, opts), Billing: billing, TierBounds: pricing.TierBounds(cat),
		ByKey: hasDim(opts.Dims, pricing.DimKey), ByTeam: hasDim(opts.Dims, pricing.DimTeam), ByUser: hasDim(opts.Dims, pricing.DimUser)}
	for _, url := range o.dbs {
		src, err := openDB(url, opts)
		if err != nil {
			return nil, err
		}
		odd, err := src.Aggregate(ctx, ao, func(g *ledger.Aggregate) error { return e.AddAggregate(g, billing) })
		if errors.Is(err, pricing.ErrNotExact) {
			return nil, err
		}
		if err != nil {
			return nil, dbError(err)
		}
		if odd != nil {
			e.NextSource() // a call of two databases' odd rows is an overlap
			_, err = r.read(ctx, oddRows{odd, src.Name()}, e, func(c *ledger.Call) {
				pc := e.AddPriced(c)
				if o.tally != nil {
					_ = o.tally.Observe(c, &pc) // failed rows are odd: read with their error detail
				}
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if e.Rows().Priced == 0 {
		return nil, errNothingSummed // row mode says why, file by file
	}
	a.reportRows(e.Rows(), r.shown)
	a.reportFolded(e)
	a.reportCalendarGaps(e.CalendarGaps())
	return e, nil
}

// errNothingSummed: the database summed no priced call.
var errNothingSummed = errors.New("nothing priced in the database's sums")

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

func hasDim(dims []pricing.Dim, d pricing.Dim) bool {
	for _, x := range dims {
		if x == d {
			return true
		}
	}
	return false
}

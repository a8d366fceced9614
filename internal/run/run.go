package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/dedup"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// MaxListed is how many rejected rows a run passes to Input.OnRejected;
// the others are only counted (Result.Unlisted).
const MaxListed = 20

// Input is what a run reads, how it prices it and who watches.
type Input struct {
	Catalog *tariffs.Catalog
	// Options are the engine's; Options.Seen is the run's own duplicate
	// set, spanning every source.
	Options pricing.Options
	// Sources are read in order: files, stdin, databases. A
	// ledger.Summer (a database) may sum its calls itself.
	Sources []ledger.Source
	// Strict ends the run at its first rejected row (*RejectedError).
	Strict bool
	// Rows reads databases row by row even where they could sum.
	Rows bool
	// PushDown has databases sum their calls wherever the sums give the
	// exact answer and nothing observes the calls, even one PostgreSQL,
	// which sends its rows faster than it sums them (see Choice).
	PushDown bool
	// OnChoice, when not nil, is told how the run chose to read its
	// databases, where it chose (neither Rows nor PushDown, nothing
	// observing the calls), before they are read.
	OnChoice func(Choice)
	// Observers see every call read, with its pricing, in order; an
	// observer's error ends the run. Any observer means rows are read,
	// where the sources keep them: they see no call of a summer that
	// keeps none (a state).
	Observers []pricing.Observer
	// FailedCalls, when not nil, sees every failed call with its pricing,
	// rows read one by one or summed in the database (which reads failed
	// rows whole where its table keeps their error detail, ledger/postgres);
	// it does not stop the sums. Its error ends the run. Where it is a
	// SummedObserver it counts the failed calls summed with their class.
	FailedCalls pricing.Observer
	// OnRejected, when not nil, gets the first MaxListed rejected rows of
	// the pass that reads them, as they are read.
	OnRejected func(ledger.Rejection)
	// OnRowsInstead, when not nil, is told why the databases' sums could
	// not be exact, before their rows are read instead.
	OnRowsInstead func(why error)
	// CompareDaily compares, for each database whose LiteLLM keeps daily
	// tables, the daily user table with the spend logs per UTC day, key
	// and model over the window's whole UTC days (Result.Daily).
	CompareDaily bool
	// Month, when not nil, is the report's month the run builds beside
	// its engine (Result.Month): Options are then Month.Options with the
	// spill settings of the caller's. The month watches the calls as an
	// observer does, or, over summers that keep no rows, takes their sums.
	Month *Month
	// Progress, when not nil, is called as each source read row by row
	// starts, and as each database summing its own calls does (its
	// Progress tells the Stage), with how far its read has got, updated
	// as it reads; the function it returns is called when the source is
	// done.
	Progress func(source string, p *Progress) (stop func())
}

// Result is what a run read and priced.
//
// Its engine holds the runs of the groups it spilled, if it did: Close
// it once its results are made (pricing's results of streamed groups
// hold the runs they read) or once the engine is read.
type Result struct {
	Engine *pricing.Engine
	// Sources is the row accounting of each source read row by row, in
	// order: their Rows add up to the engine's.
	Sources []SourceRows
	// PushedDown is the accounting of each database that summed its own
	// calls (its sums and the odd rows it could not sum): empty when the
	// calls were read row by row.
	PushedDown []SourceRows
	// NotExact is why the databases' sums were given up for rows, when
	// they were tried and could not be exact.
	NotExact error
	// First and Last are the billing instants of the calls read row by
	// row, of any outcome (zero when none or pushed down).
	First, Last time.Time
	// Listed is how many rejected rows went to Input.OnRejected; Unlisted
	// how many more were only counted.
	Listed, Unlisted int64
	// What the engine met that the caller should tell: see the pricing
	// methods of the same names.
	CalendarGaps              []pricing.CalendarGap
	Unpriced                  []pricing.UnpricedQuantity
	FoldedNames, FoldedGroups int64
	FirstTokenFallbacks       int64
	// Uncompared is how many repeated calls were read too long after
	// their first copy to compare their values (pricing.Engine.Uncompared).
	Uncompared int64
	// Daily is, when Input.CompareDaily, each database's daily table
	// against its spend logs, in the order of the sources.
	Daily []DailyResult
	// Month is what the run built of Input.Month.
	Month *MonthResult
}

// Close closes the run's engine (pricing.Engine.Close): its spilled runs
// go once the results streamed from them are closed too. The engine's
// own results (Charges) cannot read them after. Closing again does
// nothing.
func (r *Result) Close() error {
	if r == nil || r.Engine == nil {
		return nil
	}
	return r.Engine.Close()
}

// DailyResult is one database's daily comparison: nil Comparison and Err
// when it keeps no daily table.
type DailyResult struct {
	Source     string
	Comparison *ledger.DailyComparison
	Err        error // the comparison failed; the run's figures stand
}

// SourceRows is the row accounting of one source.
type SourceRows struct {
	Name   string
	Format string // the format read (ledger.Reader.Format)
	Rows   pricing.Rows
}

// Run prices every call of in.Sources with a new engine. Duplicate
// detection spans every source and keeps within a fixed memory budget,
// spilling to a temporary file past it. The errors it returns are a
// *ReadError, *DatabaseError or *RejectedError for the input, an
// observer's error as it is, ctx's error, pricing.ErrTokenSum (wrapped),
// or a *NothingPricedError, which comes with the Result, as does the
// error of building Input.Month once the engine is whole.
func Run(ctx context.Context, in Input) (*Result, error) {
	dbs := summers(in.Sources)
	if err := distinct(ctx, dbs); err != nil {
		return nil, err
	}
	var mr *monthRun
	if in.Month != nil {
		var obs []pricing.Observer
		mr, obs = in.Month.start()
		defer mr.close()
		in.Observers = slices.Concat(obs, in.Observers)
	}
	res, err := runDistinct(ctx, &in, dbs)
	if res != nil && in.CompareDaily && ctx.Err() == nil {
		res.Daily = compareDaily(ctx, dbs, in.Options)
	}
	if err == nil && mr != nil {
		err = res.buildMonth(ctx, mr, dbs)
	}
	return res, err
}

// buildMonth builds the run's month from its engine, the engines the
// month's observers feed filled first from the sums no observer saw.
func (r *Result) buildMonth(ctx context.Context, mr *monthRun, dbs []ledger.Summer) error {
	if len(r.PushedDown) > 0 && !keepRows(dbs) {
		if err := mr.fill(ctx, dbs); err != nil {
			return err
		}
	}
	var err error
	r.Month, err = mr.build(r.Engine)
	return err
}

// compareDaily compares each database's daily table with its spend logs.
func compareDaily(ctx context.Context, dbs []ledger.Summer, opts pricing.Options) []DailyResult {
	var out []DailyResult
	for _, s := range dbs {
		db, ok := s.(ledger.DailyComparer)
		if !ok {
			continue
		}
		c, err := db.CompareDaily(ctx, opts.Since, opts.Until)
		if c != nil || err != nil {
			out = append(out, DailyResult{Source: db.Name(), Comparison: c, Err: err})
		}
	}
	return out
}

// runDistinct is Run once the databases are known to be distinct.
func runDistinct(ctx context.Context, in *Input, dbs []ledger.Summer) (*Result, error) {
	var notExact error
	sum, err := in.sumFirst(ctx, dbs)
	if err != nil {
		return nil, err
	}
	if sum {
		res, err := pushDown(ctx, in, dbs)
		switch {
		case errors.Is(err, pricing.ErrNotExact) && keepRows(dbs):
			notExact = err
			if in.OnRowsInstead != nil {
				in.OnRowsInstead(err)
			}
		case !errors.Is(err, errNothingSummed):
			return res, err
		}
	}
	res, err := readRows(ctx, in)
	if res != nil {
		res.NotExact = notExact
	}
	return res, err
}

// observeFailed shows a failed call to the FailedCalls observer.
func (in *Input) observeFailed(c *ledger.Call, pc *pricing.PricedCall) error {
	if in.FailedCalls == nil || pc.Outcome != pricing.Failed {
		return nil
	}
	return in.FailedCalls.Observe(c, pc)
}

// engineOptions returns the engine's options with the run's own duplicate
// set, a table that spills past its memory, which the caller closes: row
// by row every call goes through it, summed (pushDown) the rows a database
// could not sum, where a map would grow with them.
func (in *Input) engineOptions() (pricing.Options, *dedup.Set) {
	seen := dedup.New(dedup.Options{})
	opts := in.Options
	opts.Seen = seen
	return opts, seen
}

// readRows reads every source row by row.
func readRows(ctx context.Context, in *Input) (*Result, error) {
	opts, seen := in.engineOptions()
	defer seen.Close()
	e := pricing.New(in.Catalog, opts)
	done := false
	defer func() {
		if !done {
			e.Close() // the groups it spilled, if any
		}
	}()
	res := &Result{Engine: e}
	r := reader{in: in, e: e}
	observe := pricing.Observers(in.Observers)
	for _, s := range in.Sources {
		e.NextSource()
		before := e.Rows()
		format, err := r.read(ctx, s, func(calls []ledger.Call) error {
			return e.AddBatch(calls, func(c *ledger.Call, pc *pricing.PricedCall) error {
				res.see(pc.At)
				if err := in.observeFailed(c, pc); err != nil {
					return err
				}
				return observe.Observe(c, pc)
			})
		})
		if err != nil {
			return nil, err
		}
		res.Sources = append(res.Sources, SourceRows{Name: s.Name(), Format: format, Rows: e.Rows().Sub(before)})
	}
	if err := e.Err(); errors.Is(err, pricing.ErrTokenSum) || errors.Is(err, pricing.ErrSpill) {
		return nil, err
	} else if err != nil {
		return nil, fmt.Errorf("tell duplicates apart: %w", err)
	}
	done = true
	res.finish(&r)
	if e.Rows().Priced == 0 {
		return res, res.nothingPriced(opts)
	}
	return res, nil
}

// see widens the span of billing instants to at.
func (r *Result) see(at time.Time) {
	if r.First.IsZero() || at.Before(r.First) {
		r.First = at
	}
	if at.After(r.Last) {
		r.Last = at
	}
}

// finish takes from the engine and the reader what the caller tells.
func (r *Result) finish(rd *reader) {
	e := r.Engine
	r.Listed = rd.listed
	r.Unlisted = e.Rows().Rejected - rd.listed
	r.CalendarGaps = e.CalendarGaps()
	r.Unpriced = e.Unpriced()
	r.FoldedNames, r.FoldedGroups = e.Folded()
	r.FirstTokenFallbacks = e.FirstTokenFallbacks()
	r.Uncompared = e.Uncompared()
}

// nothingPriced says what the run read, for a run that priced nothing.
func (r *Result) nothingPriced(opts pricing.Options) *NothingPricedError {
	names := make([]string, 0, len(r.Sources)+len(r.PushedDown))
	for _, s := range slices.Concat(r.Sources, r.PushedDown) {
		names = append(names, s.Name)
	}
	zone := opts.Zone
	if zone == nil {
		zone = time.UTC
	}
	return &NothingPricedError{Rows: r.Engine.Rows(), Sources: names, First: r.First, Last: r.Last,
		Since: opts.Since, Until: opts.Until, Zone: zone, Hosts: r.Engine.UnpricedHosts()}
}

// summers returns the sources that can sum their calls.
func summers(sources []ledger.Source) []ledger.Summer {
	var out []ledger.Summer
	for _, s := range sources {
		if db, ok := s.(ledger.Summer); ok {
			out = append(out, db)
		}
	}
	return out
}

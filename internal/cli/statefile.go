package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/tokenfare/tokenfare/failures"
	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// addStateFlag adds --state to a batch command.
func addStateFlag(fs *pflag.FlagSet, path *string) {
	fs.StringVar(path, "state", "", "state file (as serve keeps it): refresh it from the sources given, each past its watermark, then price from its sums")
}

// stateRun is a batch command's state: open, refreshed from the
// command's sources, ready to fill engines.
type stateRun struct {
	store *state.Store
	cat   *tariffs.Catalog
	path  string
}

// openState opens the state at path and refreshes it from the command's
// sources (--calls, --db, $DATABASE_URL), each past its watermark; with
// none, the state is priced as it is. refresh are the engine options the
// calls are read with: their billing instant (the window and groupings
// are the pricing's, not the refresh's). Under --strict the refresh reads
// as a strict run does (run.Refresh): its first rejected row ends it, naming
// the file and line (a database's request), and the feed's refresh keeps
// nothing; a state the command created is removed then.
func (a *app) openState(ctx context.Context, src *sourceOptions, path string, refresh pricing.Options) (*stateRun, error) {
	cat, err := a.Catalog()
	if err != nil {
		return nil, err
	}
	ropts := pricing.Options{Billing: refresh.Billing, Zone: refresh.Zone}
	a.defaultDB(src)
	var feeds []state.Feed
	if len(src.calls) > 0 || len(src.dbs) > 0 {
		if feeds, err = a.stateFeeds(ctx, src, ropts); err != nil {
			return nil, err
		}
	}
	_, err = os.Stat(path)
	existed := err == nil
	if len(feeds) == 0 && err != nil {
		return nil, usageError(fmt.Errorf("no state at %s, and no calls to read into it: %w", path, unwrapPathError(err)),
			"give --calls FILE or --db URL to fill it, or the path of the state serve keeps")
	}
	store, err := state.Open(path)
	if errors.Is(err, state.ErrLocked) {
		return nil, usageError(err, "stop the tokenfare serve that keeps it (or wait for the other command), or read the sources without --state")
	}
	if err != nil {
		return nil, usageError(err, stateHint(err, "give --state PATH, a state file tokenfare can create or open"))
	}
	before, err := store.Sources()
	if err == nil {
		feeds, err = adoptStoredNames(store, feeds)
	}
	if err != nil {
		_ = store.Close() // the error above is the one reported
		return nil, err
	}
	sources, err := run.Refresh(ctx, store, cat, ropts, feeds, src.strict)
	a.tellRefreshed(path, before, sources)
	if err != nil {
		_ = store.Close() // the refresh's error is the one reported
		dropNew(path, existed, err)
		return nil, runError(err)
	}
	return &stateRun{store: store, cat: cat, path: path}, nil
}

// tellRefreshed tells on stderr what the refresh read of each source
// (since before) and the files it could not read.
func (a *app) tellRefreshed(path string, before, sources []state.Source) {
	for _, s := range sources {
		read, late := s.Rows.Read, s.Late
		for _, b := range before {
			if b.Name == s.Name {
				read, late = read-b.Rows.Read, late-b.Late
			}
		}
		fmt.Fprintf(a.stderr, "state %s: %s: %d row(s) read, newest call billed %s%s\n",
			path, s.Name, read, s.Watermark.Format(time.RFC3339), lateNote(late))
		for _, u := range s.Unread {
			fmt.Fprintf(a.stderr, "warning: state %s: %s: not read (tried again next time): %v\n", path, u.Path, u.Err)
		}
	}
}

// dropNew removes the state file at path that the command created, when
// a strict refresh stopped at a rejected row: a command that fails so
// leaves no state behind, as it leaves one it found as it was.
func dropNew(path string, existed bool, err error) {
	var rej *run.RejectedError
	if !existed && errors.As(err, &rej) {
		_ = os.Remove(path) // at worst an empty state is left, which the next command opens
	}
}

// lateNote says how many calls were logged late, if any.
func lateNote(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d call(s) logged more than an hour late, counted in their own slots)", n)
}

func (s *stateRun) close() error { return s.store.Close() }

// priceState is priceSource with --state: the state refreshed from the
// sources, then its sums priced by a run (internal/run) into an engine of
// opts, which spills its groups as the sources' would when opts.Runs is
// set. tally, when not nil, counts the failed calls by class. The caller
// closes the engine returned, with or without an error; none is left open
// when it returns none.
func (a *app) priceState(ctx context.Context, src *sourceOptions, path string, opts pricing.Options, tally *failures.Tally) (*pricing.Engine, error) {
	res, err := a.runState(ctx, src, path, run.Input{Options: opts, FailedCalls: failedObserver(tally)})
	if res == nil {
		return nil, err
	}
	return res.Engine, err
}

// runState is runSource with --state: the run of in over the state's sums,
// refreshed from the sources first.
func (a *app) runState(ctx context.Context, src *sourceOptions, path string, in run.Input) (_ *run.Result, err error) {
	s, err := a.openState(ctx, src, path, in.Options)
	if err != nil {
		return nil, err
	}
	defer func() {
		// The refresh is committed; a state that cannot be closed is told.
		if cerr := s.close(); cerr != nil && err == nil {
			err = runError(fmt.Errorf("state %s: %w", path, cerr))
		}
	}()
	return s.run(ctx, a, in)
}

// run prices the state's sums by a run of in and tells on stderr what the
// run met: rejected rows, calendar gaps, unpriced quantities.
func (s *stateRun) run(ctx context.Context, a *app, in run.Input) (*run.Result, error) {
	if err := s.warnOffGrain(a.stderr, in.Options); err != nil {
		return nil, err
	}
	in.Catalog, in.Sources = s.cat, []ledger.Source{s.store.Summer()}
	res, err := run.Run(ctx, in)
	if res == nil {
		return nil, notExact(err)
	}
	e := res.Engine
	a.reportRows(e.Rows(), 0)
	a.reportCalendarGaps(res.CalendarGaps)
	a.reportUnpriced(res.Unpriced)
	a.reportUnpricedCalls(e.UnpricedCalls())
	var np *run.NothingPricedError
	if errors.As(err, &np) {
		return res, s.nothingPriced(e, np)
	}
	return res, notExact(err)
}

// notExact is err, told as a figure the state cannot give where it is.
func notExact(err error) error {
	if errors.Is(err, state.ErrNotKept) || errors.Is(err, pricing.ErrNotExact) {
		return usageError(err, "the state cannot give this figure exactly: read the sources without --state")
	}
	return err
}

// warnOffGrain warns of the tariff boundaries, over the state's span,
// that do not fall on its 15-minute grain: the calls of those slots
// cannot be priced exactly from the state (pricing them fails when a
// slot holds calls on both sides).
func (s *stateRun) warnOffGrain(w io.Writer, opts pricing.Options) error {
	first, last, err := s.store.Span()
	if err != nil || first.IsZero() {
		return err
	}
	for _, o := range state.OffGrains(s.cat, first, last.Add(state.Grain), opts.TariffAt) {
		fmt.Fprintf(w, "warning: state %s: %s: a slot with calls on both sides of it cannot be priced from the state (the command stops there)\n", s.path, o)
	}
	return nil
}

// nothingPriced is the findings error of a state that prices no call in
// the window: its calls span the state's, and the hosts no tariff prices
// are not named.
func (s *stateRun) nothingPriced(e *pricing.Engine, np *run.NothingPricedError) error {
	np.First, np.Last, _ = s.store.Span()
	np.Hosts = nil
	return nothingPriced(np, false, e.UnpricedCalls())
}

// stateHint is the hint for a state that does not open: none for a
// damaged one (its error says the way back), else hint.
func stateHint(err error, hint string) string {
	var de *state.DamagedError
	if errors.As(err, &de) {
		return ""
	}
	return hint
}

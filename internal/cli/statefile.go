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
// are the pricing's, not the refresh's).
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
	if src.strict {
		if err := checkRows(ctx, src.calls); err != nil {
			return nil, runError(err)
		}
	}
	if _, err := os.Stat(path); len(feeds) == 0 && err != nil {
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
		store.Close()
		return nil, err
	}
	sources, err := store.Refresh(ctx, cat, ropts, feeds)
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
	if err == nil && src.strict {
		err = rejectedSince(before, sources)
	}
	if err != nil {
		store.Close()
		return nil, runError(err)
	}
	return &stateRun{store: store, cat: cat, path: path}, nil
}

// lateNote says how many calls were logged late, if any.
func lateNote(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d call(s) logged more than an hour late, counted in their own slots)", n)
}

func (s *stateRun) close() { s.store.Close() }

// priceState is priceSource with --state: the state refreshed from the
// sources, then priced into an engine of opts, which spills its groups
// as the sources' would when opts.Runs is set. The caller closes the
// engine returned, with or without an error; none is left open when it
// returns none.
func (a *app) priceState(ctx context.Context, src *sourceOptions, path string, opts pricing.Options, tally *failures.Tally) (*pricing.Engine, error) {
	s, err := a.openState(ctx, src, path, opts)
	if err != nil {
		return nil, err
	}
	defer s.close()
	return s.engine(a, opts, tally)
}

// reportState prices the month from the state: its own engine (as
// priceState), the blend engine of the month builder when it needs calls,
// and --compare's month.
func (a *app) reportState(ctx context.Context, src *sourceOptions, path string, opts pricing.Options, tally *failures.Tally,
	month *pricing.MonthBuilder, prev *previousMonth) (*pricing.Engine, error) {
	s, err := a.openState(ctx, src, path, opts)
	if err != nil {
		return nil, err
	}
	defer s.close()
	e, err := s.engine(a, opts, tally)
	if err != nil {
		return e, err
	}
	err = month.Fill(func(be *pricing.Engine, bo pricing.Options) error { return s.fill(be, bo, nil) })
	if err == nil && prev != nil {
		err = s.fill(prev.e, prev.opts, nil)
	}
	if err != nil {
		e.Close() // the groups it spilled, if any
		return nil, err
	}
	return e, nil
}

// engine prices the state's sums into a new engine of opts and tells on
// stderr what the run would: rejected rows, calendar gaps, unpriced
// quantities. tally, when not nil, counts the failed calls by class.
// An engine that could not write its groups to disk (pricing.ErrSpill)
// fails it, as it fails a run over the sources.
func (s *stateRun) engine(a *app, opts pricing.Options, tally *failures.Tally) (*pricing.Engine, error) {
	if err := s.warnOffGrain(a.stderr, opts); err != nil {
		return nil, err
	}
	e := pricing.New(s.cat, opts)
	err := s.fill(e, opts, tally)
	if err == nil {
		if err = e.Err(); !errors.Is(err, pricing.ErrSpill) {
			err = nil
		}
	}
	if err != nil {
		e.Close() // the groups it spilled, if any
		return nil, err
	}
	a.reportRows(e.Rows(), 0)
	a.reportCalendarGaps(e.CalendarGaps())
	a.reportUnpriced(e.Unpriced())
	a.reportUnpricedCalls(e.UnpricedCalls())
	if e.Rows().Priced == 0 {
		return e, s.nothingPriced(e, opts)
	}
	return e, nil
}

// fill adds the state's sums to e, an engine of opts.
func (s *stateRun) fill(e *pricing.Engine, opts pricing.Options, tally *failures.Tally) error {
	err := s.store.Fill(e, s.cat, opts, tally)
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
// the window.
func (s *stateRun) nothingPriced(e *pricing.Engine, opts pricing.Options) error {
	np := &run.NothingPricedError{Rows: e.Rows(), Sources: []string{"state " + s.path}, Since: opts.Since, Until: opts.Until, Zone: opts.Zone}
	np.First, np.Last, _ = s.store.Span()
	if np.Zone == nil {
		np.Zone = time.UTC
	}
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

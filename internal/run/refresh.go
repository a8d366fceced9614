package run

import (
	"context"
	"errors"
	"time"

	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Refresh reads each feed past its watermark in store, less
// state.Overlap, prices its calls at cat and commits them to the state,
// one transaction per feed. opts are the engine's (billing time, zone);
// their Since, when set, is a floor no refresh reads before. A feed with
// no new call is no error. Under strict a feed's refresh ends at its
// first rejected row (*RejectedError), as any strict run does. On an
// error the feed's refresh is dropped whole, the feeds after it are
// refreshed all the same, and the errors are returned joined; a file a
// feed cannot read is no error of the feed (state.Source.Unread). A
// state file found damaged as it is read is a *state.DamagedError, and
// ends the refresh.
func Refresh(ctx context.Context, store *state.Store, cat *tariffs.Catalog, opts pricing.Options, feeds []state.Feed, strict bool) (_ []state.Source, err error) {
	defer store.Recover(&err)
	var out []state.Source
	var errs []error
	for _, f := range feeds {
		src, err := refreshFeed(ctx, store, cat, opts, f, strict)
		if err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		out = append(out, src)
	}
	return out, errors.Join(errs...)
}

// refreshFeed refreshes one feed in one batch, committed whole or not
// at all.
func refreshFeed(ctx context.Context, store *state.Store, cat *tariffs.Catalog, opts pricing.Options, f state.Feed, strict bool) (state.Source, error) {
	b, err := store.Begin(f.Name)
	if err != nil {
		return state.Source{}, err
	}
	defer b.Release() // a page bbolt panics on: the read ends on the way to Recover
	b.Use(cat, opts.Billing)
	passes, err := plan(b, f, opts)
	if err != nil {
		b.Abort()
		return state.Source{}, err
	}
	var rejected int64
	for _, p := range passes {
		n, err := keep(ctx, b, cat, p, strict)
		if err != nil {
			b.Abort()
			return state.Source{}, err
		}
		rejected += n
	}
	return b.Commit(rejected)
}

// pass is a run of a refresh: sources whose calls were all unread
// (fresh), or sources read again, and the options they are priced with.
type pass struct {
	sources []ledger.Source
	fresh   bool
	opts    pricing.Options
}

// plan returns the passes of the feed's refresh: the sources read again
// first, then those read fresh (a file's new lines). The sources are
// those of the calls billed from the batch's Since, or opts.Since when
// later. The sources read again are priced back to the batch's floor: a
// call logged late, not read before, is counted in its own slot
// (state.Batch.Floor). A fresh pass holds only calls never read: each is
// counted however late.
func plan(b *state.Batch, f state.Feed, opts pricing.Options) ([]pass, error) {
	since := b.Since()
	if opts.Since.After(since) {
		since = opts.Since
	}
	again := opts
	if b.Floor().After(opts.Since) {
		again.Since = b.Floor()
	}
	if f.Files == nil {
		sources, err := open(b, f, since)
		return []pass{{sources: sources, opts: again}}, err
	}
	paths, err := f.Files()
	if err != nil {
		return nil, err
	}
	reread, fresh, err := b.PlanFiles(paths)
	return []pass{{sources: reread, opts: again}, {sources: fresh, fresh: true, opts: opts}}, err
}

// open returns the sources of a feed that is not a feed of files, read
// from since, with what the earlier refreshes read of the day before it
// when the state knows (state.Batch.Known).
func open(b *state.Batch, f state.Feed, since time.Time) ([]ledger.Source, error) {
	if since.IsZero() {
		return f.Open(since, nil)
	}
	k, ok, err := b.Known(since.Add(-24*time.Hour), since)
	if err != nil {
		return nil, err
	}
	if !ok {
		return f.Open(since, nil)
	}
	return f.Open(since, &k)
}

// keep reads the sources of a pass as one run, row by row, every call
// shown to the batch, and returns the rows the run rejected; a run that
// prices no call is no error. Under strict the run ends at the first
// rejected row (*RejectedError).
func keep(ctx context.Context, b *state.Batch, cat *tariffs.Catalog, p pass, strict bool) (int64, error) {
	if len(p.sources) == 0 {
		return 0, nil
	}
	b.StartPass(p.fresh)
	res, err := Run(ctx, Input{Catalog: cat, Options: p.opts, Sources: p.sources, Strict: strict, Observers: []pricing.Observer{b}})
	var np *NothingPricedError
	if err != nil && !errors.As(err, &np) {
		return 0, err
	}
	defer res.Engine.Close()
	return res.Engine.Rows().Rejected, nil
}

package state

import (
	"context"
	"errors"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Feed is one source tokenfare serve reads again and again.
type Feed struct {
	// Name identifies the feed's watermark in the state: keep it stable
	// across restarts (a file's path, a database's name).
	Name string
	// Open returns the sources of one refresh, reading the calls billed at
	// or after since (zero: all): a database bounds its query by it, a
	// folder lists its files anew. known, when not nil, is what the
	// earlier refreshes read of the calls started in the day before since
	// (ledger.Known), which a database weighs to widen its window.
	Open func(since time.Time, known *ledger.Known) ([]ledger.Source, error)
	// Files, when set, lists the feed's files at each refresh (a glob
	// expanded again, a folder listed) and Open is not used: each file is
	// read only past the mark the last refresh left (its offset, and its
	// first bytes to know it again), and not opened at all when its size
	// and modification time have not changed.
	Files func() ([]string, error)
}

// Reader reads the sources of one pass of a refresh as one run at cat
// with opts, showing each call with its pricing to keep (the refresh's
// Batch), and returns how many rows it rejected; a run that prices no
// call is no error. Its error ends the feed's refresh, which keeps
// nothing. internal/run's Keep is the one reader.
type Reader func(ctx context.Context, cat *tariffs.Catalog, opts pricing.Options, sources []ledger.Source, keep pricing.Observer) (rejected int64, err error)

// Refresh reads each feed past its watermark, less Overlap, with read,
// prices its calls at cat and commits them to the state, one transaction
// per feed.
// opts are the engine's (billing time, zone); their Since, when set, is a
// floor no refresh reads before. A feed with no new call is no error. On
// an error the feed's refresh is dropped whole, the feeds after it are
// refreshed all the same, and the errors are returned joined; a file a
// feed cannot read is no error of the feed (Source.Unread).
func (s *Store) Refresh(ctx context.Context, read Reader, cat *tariffs.Catalog, opts pricing.Options, feeds []Feed) (_ []Source, err error) {
	defer s.recoverDamaged(&err)
	var out []Source
	var errs []error
	for _, f := range feeds {
		src, err := s.refresh(ctx, read, cat, opts, f)
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

func (s *Store) refresh(ctx context.Context, read Reader, cat *tariffs.Catalog, opts pricing.Options, f Feed) (Source, error) {
	b, err := s.Begin(f.Name)
	if err != nil {
		return Source{}, err
	}
	defer func() {
		// bbolt panicked on a damaged page: end the batch's read
		// transaction (the file could not be closed with it open), and
		// let Refresh report the damage.
		if r := recover(); r != nil {
			b.tx.Rollback()
			panic(r)
		}
	}()
	b.Use(cat, opts.Billing)
	since := b.Since()
	if opts.Since.After(since) {
		since = opts.Since
	}
	// The engine prices back to the batch's floor: a call logged late,
	// not read before, is counted in its own slot (Batch.Floor). A fresh
	// pass (a file's bytes past its mark) holds only calls never read:
	// each is counted however late.
	fresh := opts
	if b.Floor().After(opts.Since) {
		opts.Since = b.Floor()
	}
	var known *ledger.Known
	if !since.IsZero() && f.Files == nil {
		k, ok, err := b.known(since.Add(-24*time.Hour), since)
		if err != nil {
			b.Abort()
			return Source{}, err
		}
		if ok {
			known = &k
		}
	}
	passes, err := b.open(f, since, known)
	if err != nil {
		b.Abort()
		return Source{}, err
	}
	var rejected int64
	for _, p := range passes {
		if len(p.sources) == 0 {
			continue
		}
		b.fresh = p.fresh
		o := opts
		if p.fresh {
			o = fresh
		}
		n, err := read(ctx, cat, o, p.sources, b)
		if err != nil {
			b.Abort()
			return Source{}, err
		}
		rejected += n
	}
	return b.Commit(rejected)
}

// pass is a run of a refresh: sources whose calls were all unread
// (fresh), or sources read again from their start.
type pass struct {
	sources []ledger.Source
	fresh   bool
}

// open returns the runs of the feed's refresh: the sources read again
// first, then those read fresh (a file's new lines).
func (b *Batch) open(f Feed, since time.Time, known *ledger.Known) ([]pass, error) {
	if f.Files == nil {
		sources, err := f.Open(since, known)
		return []pass{{sources: sources}}, err
	}
	paths, err := f.Files()
	if err != nil {
		return nil, err
	}
	if b.files, err = b.planFiles(f.Name, paths); err != nil {
		return nil, err
	}
	return []pass{{sources: b.files.sources(false)}, {sources: b.files.sources(true), fresh: true}}, nil
}

package state

import (
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// A refresh of the state (internal/run's Refresh) reads each feed in one
// Batch: Begin, the window to read (Since, Floor, Known), the passes of
// a feed of files (PlanFiles, StartPass), the calls observed, then Commit
// or Abort, Release deferred and Store.Recover deferred over it all. The
// state reads no source and prices no call itself.

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

// PlanFiles decides, from the marks the last refresh of the batch's
// source left, what the refresh reads of each of paths (the feed's files
// now): the sources read again from their start (a file rewritten, or
// read whole), and those read fresh (a file's bytes past its mark, none
// of their calls read before). Commit stores the files' new marks.
func (b *Batch) PlanFiles(paths []string) (again, fresh []ledger.Source, err error) {
	if b.files, err = b.planFiles(b.source.Name, paths); err != nil {
		return nil, nil, err
	}
	return b.files.sources(false), b.files.sources(true), nil
}

// StartPass tells the batch what the calls it observes next are: fresh
// (PlanFiles's fresh sources: a copy of a stored call is a duplicate,
// and a call without identity is new however old), or read again (a
// copy of a stored call is a row read again, counted before).
func (b *Batch) StartPass(fresh bool) { b.fresh = fresh }

// Release ends the batch's read of the file, where Commit or Abort has
// not: deferred after Begin, so that a panic of bbolt on a damaged page
// leaves no transaction open (the file could not be closed with one)
// on its way to Store.Recover. It stores and drops nothing.
func (b *Batch) Release() { _ = b.tx.Rollback() } // ErrTxClosed once ended

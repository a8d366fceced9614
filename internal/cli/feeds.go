package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger/postgres"
	"github.com/tokenfare/tokenfare/pricing"
)

// filePathFeed is the name of the feed of a --calls argument (a file, a
// folder or a glob): its cleaned absolute path, so that the same files
// given by another relative name, or from another working folder, are
// the same feed with one watermark, and their calls count once.
func filePathFeed(arg string) (string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", usageError(fmt.Errorf("--calls %s: %w", arg, err), "")
	}
	return abs, nil
}

// fileFeed is the feed named name whose files are those of the --calls
// argument arg, listed again at each refresh.
func fileFeed(name, arg string) state.Feed {
	return state.Feed{Name: name, Files: func() ([]string, error) { return callFiles(arg) }}
}

// adoptStoredNames gives each file feed whose name the state does not
// know the name a tokenfare before this one stored it under: the
// --calls argument as given, relative or not cleaned, which names the
// same path from the working folder of now. The feed then reads on from
// its watermark and its files' marks (stored under the paths its
// argument listed then), and no call is read twice. A state that knows
// the feed's own name keeps it.
func adoptStoredNames(store *state.Store, feeds []state.Feed) ([]state.Feed, error) {
	known, err := store.Sources()
	if err != nil {
		return nil, err
	}
	stored := map[string]bool{}
	for _, s := range known {
		stored[s.Name] = true
	}
	out := make([]state.Feed, len(feeds))
	for i, f := range feeds {
		out[i] = f
		if f.Files == nil || stored[f.Name] {
			continue
		}
		for _, s := range known {
			if storedAs(s.Name, f.Name) {
				out[i] = fileFeed(s.Name, s.Name)
				break
			}
		}
	}
	return out, nil
}

// storedAs reports whether old, a source name in a state, names the file
// feed named name the way a tokenfare before this one named it: the path
// as given, which from the working folder of now is name.
func storedAs(old, name string) bool {
	if strings.Contains(old, "://") {
		return false // a database
	}
	abs, err := filepath.Abs(old)
	return err == nil && abs == name
}

// stateFeeds returns the feeds of the command's sources for a state
// (feeds), refusing what the state cannot read exactly: one database
// given twice by two names (two host names, a primary and its replica),
// as a run refuses it; and --rows with two or more databases, since a
// state tells a call logged in two databases apart only within the day
// and hour of identities it keeps, where --rows tells them apart over
// every row; and --push-down, since a refresh reads only the rows past
// its watermark.
func (a *app) stateFeeds(ctx context.Context, src *sourceOptions, opts pricing.Options) ([]state.Feed, error) {
	if src.pushDown {
		return nil, usageError(errors.New("--push-down with a state: the state reads only the rows past its watermark, row by row, and prices its own sums"),
			"drop --push-down, or drop --state to have the database sum the whole window")
	}
	if src.rows && len(src.dbs) > 1 {
		return nil, usageError(errors.New("--rows with --state and two or more --db: the state tells a call logged in two databases apart only within a day and an hour of its newest call, --rows over every row"),
			"drop --state to find every call logged in two databases, or give one --db (with one, the state reads its rows one by one, as --rows does)")
	}
	feeds, err := a.feeds(src, opts)
	if err != nil || len(src.dbs) < 2 {
		return feeds, err
	}
	dbs, err := a.sources(nil, src.dbs, opts)
	if err != nil {
		return nil, err
	}
	// A database not reached now is no error here: its refresh tells, and
	// serve tries it again at the next.
	if err := run.Distinct(ctx, dbs); errors.Is(err, postgres.ErrSameDatabase) {
		return nil, runError(err)
	}
	return feeds, nil
}

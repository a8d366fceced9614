package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/tokenfare/tokenfare/ledger/postgres"
	"github.com/tokenfare/tokenfare/pricing"
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

func hasDim(dims []pricing.Dim, d pricing.Dim) bool {
	for _, x := range dims {
		if x == d {
			return true
		}
	}
	return false
}

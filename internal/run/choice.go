package run

import (
	"context"

	"github.com/tokenfare/tokenfare/ledger"
)

// Choice is how a run reads its databases where it chooses: summed in
// them (push-down) where one is distributed, its workers summing their
// shards at once; row by row otherwise, which one PostgreSQL sends
// faster than it sums them (docs/scale.md, "Push-down or rows").
type Choice struct {
	// PushDown: the databases sum their calls; false: their rows are read.
	PushDown bool
	// Distributed names the first database spread over servers (Citus)
	// when PushDown.
	Distributed string
}

// sumFirst reports whether the run asks its databases for their sums
// before their rows: only when every source is a database, and then
// always where one keeps no rows (a state); never where an observer
// sees the calls or Rows asks for rows; where PushDown asks for sums or
// a database is distributed otherwise.
func (in *Input) sumFirst(ctx context.Context, dbs []ledger.Summer) (bool, error) {
	switch {
	case len(dbs) == 0 || len(dbs) < len(in.Sources):
		return false, nil
	case !keepRows(dbs):
		return true, nil
	case len(in.Observers) > 0 || in.Rows:
		return false, nil
	case in.PushDown:
		return true, nil
	}
	c, err := choose(ctx, dbs)
	if err != nil {
		return false, err
	}
	if in.OnChoice != nil {
		in.OnChoice(c)
	}
	return c.PushDown, nil
}

// choose sums in the databases where one of them is distributed, and
// reads rows otherwise. A database that cannot tell is taken as one
// server.
func choose(ctx context.Context, dbs []ledger.Summer) (Choice, error) {
	for _, db := range dbs {
		d, ok := db.(ledger.Distributed)
		if !ok {
			continue
		}
		spread, err := d.Distributed(ctx)
		if err != nil {
			return Choice{}, &DatabaseError{Err: err}
		}
		if spread {
			return Choice{PushDown: true, Distributed: db.Name()}, nil
		}
	}
	return Choice{}, nil
}

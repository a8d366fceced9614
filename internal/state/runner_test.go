package state_test

import (
	"context"
	"errors"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/pricing"
)

// init hands internal/run to the package's own tests (export_test.go).
func init() {
	state.Runner.Refresh = run.Refresh
	state.Runner.Run = runEngine
	state.Runner.NothingPriced = func(err error) bool {
		var np *run.NothingPricedError
		return errors.As(err, &np)
	}
}

// runEngine is run.Run of in, its engine returned.
func runEngine(ctx context.Context, in state.RunInput) (*pricing.Engine, error) {
	res, err := run.Run(ctx, run.Input{Catalog: in.Catalog, Options: in.Options, Sources: in.Sources, Observers: in.Observers,
		Rows: in.Rows, OnRejected: in.OnRejected})
	if res == nil {
		return nil, err
	}
	return res.Engine, err
}

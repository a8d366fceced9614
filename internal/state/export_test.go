package state

import (
	"context"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// The package's tests refresh the state and price sources through
// internal/run, which imports the package: they cannot import it, and
// runner_test.go (package state_test, in the same test binary) hands its
// functions over as Runner at init.

// RunInput is what a test asks of one run (run.Input's fields of the
// same names).
type RunInput struct {
	Catalog    *tariffs.Catalog
	Options    pricing.Options
	Sources    []ledger.Source
	Observers  []pricing.Observer
	Rows       bool
	OnRejected func(ledger.Rejection)
}

// Runner is internal/run as the package's tests use it.
var Runner struct {
	// Refresh is run.Refresh.
	Refresh func(ctx context.Context, s *Store, cat *tariffs.Catalog, opts pricing.Options, feeds []Feed, strict bool) ([]Source, error)
	// Run is run.Run, its Result's engine returned (with the error when
	// the run priced no call).
	Run func(ctx context.Context, in RunInput) (*pricing.Engine, error)
	// NothingPriced reports whether err is a run's *run.NothingPricedError.
	NothingPriced func(err error) bool
}

// refresh refreshes s from feeds, priced at cat with opts, as serve does
// (run.Refresh, not strict).
func refresh(s *Store, cat *tariffs.Catalog, opts pricing.Options, feeds []Feed) ([]Source, error) {
	return Runner.Refresh(context.Background(), s, cat, opts, feeds, false)
}

// runEngine prices in's sources in one run and returns its engine.
func runEngine(in RunInput) (*pricing.Engine, error) {
	return Runner.Run(context.Background(), in)
}

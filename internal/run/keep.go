package run

import (
	"context"
	"errors"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Keep returns the reader a state refreshes with (state.Reader): it reads
// the sources of a pass as one run at cat with opts, row by row, every
// call shown to keep (the refresh's batch), and returns the rows the run
// rejected; a run that prices no call is no error. Under strict the run
// ends at the first rejected row (*RejectedError), as any strict run does,
// and the refresh keeps nothing of the feed.
func Keep(strict bool) func(ctx context.Context, cat *tariffs.Catalog, opts pricing.Options, sources []ledger.Source, keep pricing.Observer) (int64, error) {
	return func(ctx context.Context, cat *tariffs.Catalog, opts pricing.Options, sources []ledger.Source, keep pricing.Observer) (int64, error) {
		res, err := Run(ctx, Input{Catalog: cat, Options: opts, Sources: sources, Strict: strict, Observers: []pricing.Observer{keep}})
		var np *NothingPricedError
		if err != nil && !errors.As(err, &np) {
			return 0, err
		}
		defer res.Engine.Close()
		return res.Engine.Rows().Rejected, nil
	}
}

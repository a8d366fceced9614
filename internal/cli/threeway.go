package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/reports"
)

// runThreeWay reconciles the gateway's calls with the tariff and the
// provider's exports, per UTC day, model and key.
func runThreeWay(cmd *cobra.Command, a *app, opts *reconcileOptions, eopts pricing.Options, format reports.Format) error {
	if cmd.Flags().Changed("by") || opts.failOver != "" {
		return usageError(errors.New("--by and --fail-over do not apply with --provider-usage"),
			"a three-way reconciliation is by UTC day, model and key; drop those flags")
	}
	rows, err := readProviderExports(cmd, a, opts.provider)
	if err != nil {
		return err
	}
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	b, err := threeway.New(cat, eopts, rows)
	if err != nil {
		return usageError(fmt.Errorf("read provider usage: %w", err), "see docs/provider-usage.md")
	}
	e, err := a.priceSource(cmd.Context(), &opts.source, eopts, b)
	if err != nil {
		return err
	}
	return reports.ThreeWay(cmd.OutOrStdout(), format, b.Build(e.Rows()))
}

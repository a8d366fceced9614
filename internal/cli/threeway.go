package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/provider"
	"github.com/tokenfare/tokenfare/reports"
)

// runThreeWay reconciles the gateway's calls with the tariff and the
// provider's exports, per UTC day, model and key.
func runThreeWay(cmd *cobra.Command, a *app, opts *reconcileOptions, eopts pricing.Options, format reports.Format) error {
	if cmd.Flags().Changed("by") || opts.failOver != "" {
		return usageError(errors.New("--by and --fail-over do not apply with --provider-usage"),
			"a three-way reconciliation is by UTC day, model and key; drop those flags")
	}
	exports := make([]*provider.Export, 0, len(opts.provider))
	named := map[string]bool{}
	for _, path := range opts.provider {
		// Read twice, an export would count the provider's usage twice.
		key := filepath.Clean(path)
		if named[key] {
			fmt.Fprintf(a.stderr, "note: %s is given more than once; it is read once\n", path)
			continue
		}
		named[key] = true
		x, err := provider.ReadFile(cmd.Context(), path)
		if err != nil {
			return providerError(err)
		}
		exports = append(exports, x)
	}
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	b, err := pricing.NewThreeWay(cat, eopts, exports)
	if err != nil {
		return usageError(fmt.Errorf("read provider usage: %w", err), "see docs/provider-usage.md")
	}
	e, err := a.priceSource(cmd.Context(), &opts.source, eopts, func(c *ledger.Call, pc *pricing.PricedCall) { b.AddCall(c, pc) })
	if err != nil {
		return err
	}
	return reports.ThreeWay(cmd.OutOrStdout(), format, b.Build(e.Rows()))
}

// providerError tells a bad path or bad content (bad usage) from other
// failures.
func providerError(err error) error {
	var pe *provider.Error
	switch {
	case errors.As(err, &pe):
		return usageError(fmt.Errorf("read provider usage %w", err), "see docs/provider-usage.md for the exports tokenfare reads")
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return usageError(fmt.Errorf("read provider usage: %w", err), "check the path given to --provider-usage")
	}
	return fmt.Errorf("read provider usage: %w", err)
}

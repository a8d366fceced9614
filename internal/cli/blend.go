package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
)

type blendOptions struct {
	source sourceOptions
	asOf   string
	window string
	mode   string
	output string
}

func newBlendCmd(a *app) *cobra.Command {
	var opts blendOptions
	cmd := &cobra.Command{
		Use:   "blend --calls FILE",
		Short: "Compute the blended price per model and usage type over a window",
		Long: `Blend prices the calls billed in the window before --as-of (default: the 28 days before
now) and gives, per model and usage type, the blended price per 1M tokens: official cost
divided by tokens. Pricing the window's tokens at the blended prices gives its official
cost to within half a unit of the 9th decimal place per 1M tokens; a blended price always
lies between the lowest (off-peak) and highest (peak) price that applied.

--mode gateway applies one gateway-wide peak share (the share of peak in the window's cost
at off-peak prices) to every time-of-use model instead, as a single flat setting would;
each price shows the share it was worked out from (SHARE USED, peak_share_used) beside
its own tokens' peak share.
Models the catalog prices but with no calls in the window are listed with the reason.`,
		Example: `  tokenfare blend --calls testdata/sample/spendlogs-2026-10.csv --as-of 2026-10-01
  tokenfare blend --calls spendlogs.csv --window 7d --mode gateway -o json
  tokenfare blend --calls spendlogs.csv -o yaml
  tokenfare blend --calls spendlogs.csv -o csv > blended.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBlend(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&opts.asOf, "as-of", "", "end of the window, exclusive (RFC 3339 or date; default now)")
	cmd.Flags().StringVar(&opts.window, "window", "28d", "length of the window: days (28d) or a duration (36h)")
	cmd.Flags().StringVar(&opts.mode, "mode", pricing.ModePerModel.String(), "per-model or gateway")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table, csv, json or yaml")
	completeSource(cmd)
	completeWith(cmd, "mode", pricing.ModePerModel.String(), pricing.ModeGateway.String())
	completeOutput(cmd, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	return cmd
}

func runBlend(cmd *cobra.Command, a *app, opts *blendOptions) error {
	format, err := parseOutput(opts.output, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	if err != nil {
		return err
	}
	mode, err := pricing.ParseBlendMode(opts.mode)
	if err != nil {
		return usageError(fmt.Errorf("unknown --mode %q", opts.mode), "use --mode per-model or --mode gateway")
	}
	window, err := parseWindow(opts.window)
	if err != nil {
		return err
	}
	asOf := a.now().UTC()
	if opts.asOf != "" {
		if asOf, err = parseInstant("as-of", opts.asOf); err != nil {
			return err
		}
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	eopts.Since, eopts.Until = asOf.Add(-window), asOf
	e, err := a.priceSource(cmd.Context(), &opts.source, eopts, nil)
	if err != nil {
		return err
	}
	return reports.Blend(cmd.OutOrStdout(), format, e.BlendWindow(eopts.Since, eopts.Until, mode))
}

package cli

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/reports"
)

type exportOptions struct {
	skuPrice bool
	out      string
	raw      bool
}

func newTariffsExportCmd(a *app) *cobra.Command {
	var opts exportOptions
	cmd := &cobra.Command{
		Use:   "export --focus-sku-price [--out FILE]",
		Short: "Write the catalog as a FOCUS SKU Price dataset (CSV)",
		Long: `Export writes the catalog (--tariffs, --price-list and --tariffs-overlay applied) as the
SKU Price dataset of the FOCUS 1.5 working draft: one row per provider version, model, usage
type, period, prompt-size tier, service tier and region, with the version's effective start and
end (empty end: in force), the unit price in the tariff's currency per 1M tokens (per call or
per tool use), and the time-of-use rule that routes a call to the period in x_ columns
(x_PeriodDefault, x_PeriodWeekdays, x_PeriodWindows, x_TimeZone, x_HolidaysAs, x_WorkdaysAs).
Its SkuPriceId is the one report --focus gives the charges at that price, so the two join.

A text cell that a spreadsheet would run as a formula is written with a ' in front;
--raw-text keeps it as it is. --out writes the file atomically; without it the dataset goes
to stdout. See docs/focus.md.`,
		Example: `  tokenfare tariffs export --focus-sku-price --out sku-prices.csv
  tokenfare tariffs export --focus-sku-price --tariffs my-tariffs/ > sku-prices.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTariffsExport(cmd, a, &opts)
		},
	}
	cmd.Flags().BoolVar(&opts.skuPrice, "focus-sku-price", false, "write the FOCUS SKU Price dataset (the one format export writes)")
	cmd.Flags().StringVar(&opts.out, "out", "", "write to this file instead of stdout")
	cmd.Flags().BoolVar(&opts.raw, "raw-text", false, "write text cells as they are, without the ' that keeps a spreadsheet from running them")
	return cmd
}

func runTariffsExport(cmd *cobra.Command, a *app, opts *exportOptions) error {
	if !opts.skuPrice {
		return usageError(errors.New("no format to export"), "give --focus-sku-price")
	}
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	write := func(w io.Writer) error { return reports.WriteFOCUSSkuPrice(w, cat, focusText(opts.raw)) }
	if opts.out == "" {
		return write(cmd.OutOrStdout())
	}
	f, err := writeAtomic(opts.out, write)
	if err != nil {
		return err
	}
	return f.commit()
}

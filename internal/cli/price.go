package cli

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
)

type priceOptions struct {
	source sourceOptions
	output string
}

func newPriceCmd(a *app) *cobra.Command {
	var opts priceOptions
	cmd := &cobra.Command{
		Use:   "price --calls FILE",
		Short: "Price every logged call at the tariff in force at its billing instant",
		Long: `Price writes one line per call read: the billing instant, the tariff model, what became
of the call (priced, unpriced, retired, failed, duplicate, outside), the tariff version and
period, the tokens of each usage type, the official cost, the spend the gateway recorded, and
the host the call was priced among (empty: the first-party lists; a call of a host no tariff
prices is unpriced with that host named). Rejected rows are listed on stderr and counted in the totals printed there. CSV and the
table add the call's currency; the table rounds money to 6 decimals.`,
		Example: `  tokenfare price --calls testdata/sample/spendlogs-2026-10.csv -o csv > priced.csv
  tokenfare price --calls usage.jsonl --since 2026-09-01 --until 2026-10-01 -o json
  zcat spendlogs.csv.gz | tokenfare price --calls - --billing-time start
  tokenfare price --calls spendlogs.csv --since 2026-10-12 --until 2026-10-13 -o table`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPrice(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	opts.source.addWindowFlags(cmd.Flags())
	cmd.Flags().StringVarP(&opts.output, "output", "o", "csv", "output format: csv, json (one object per line) or table")
	completeSource(cmd)
	completeOutput(cmd, reports.CSV, reports.JSON, reports.Table)
	return cmd
}

func runPrice(cmd *cobra.Command, a *app, opts *priceOptions) error {
	format, err := parseOutput(opts.output, reports.Table, reports.CSV, reports.JSON)
	if err != nil {
		return err
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	cw, err := reports.NewCallWriter(out, format)
	if err != nil {
		return usageError(err, "")
	}
	var werr error
	written := 0
	e, err := a.priceSource(cmd.Context(), &opts.source, eopts, func(c *ledger.Call, pc *pricing.PricedCall) {
		if pc.Outcome == pricing.Outside || werr != nil {
			return
		}
		werr = cw.Write(c, pc)
		written++
	})
	if e == nil || (err != nil && written == 0) { // failed, interrupted, or no call at all: what is buffered is not written
		return err
	}
	if werr != nil {
		return werr
	}
	if ferr := cw.Flush(); ferr != nil {
		return ferr
	}
	if ferr := out.Flush(); ferr != nil {
		return ferr
	}
	rows := e.Rows()
	fmt.Fprintf(a.stderr, "rows: %s\n", reports.RowCounts(rows))
	return err // nothing priced, or nil
}

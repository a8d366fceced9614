package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/reports"
	"github.com/tokenfare/tokenfare/tariffs"
)

type savingsOptions struct {
	source sourceOptions
	by     string
	levers string
	output string
}

func newSavingsCmd(a *app) *cobra.Command {
	var opts savingsOptions
	cmd := &cobra.Command{
		Use:   "savings (--calls FILE | --db URL) (--month M | --since T --until T)",
		Short: "What the same calls would cost off-peak, on the batch or flex tier, or on another host",
		Long: `Savings prices a period's calls again under each lever, at the official tariff in
force at each call's instant, and says what each would save, by key (or --by):

  offpeak  a call billed in a peak period, at the off-peak rates of the same tariff
           version, with the delay to the next off-peak instant (weekends, holidays
           and the provider's time zone counted): under 1 h, 1-3 h, 3-12 h, more
  batch    a call served at the standard tier, at the batch tier's rates where its
           tariff has them: results within 24 h
  flex     the same at the flex tier's rates: slower, and may be refused
  host     the cheapest other host whose list prices the call's model at that
           instant; a call pinned to a region or a data zone never moves

Each lever is shown alone; the combined saving counts each call once, under its
best lever. Unpriced, failed and cache-hit calls are outside every lever and
counted as such. The JSON output is stable (docs/savings.md).`,
		Example: `  tokenfare savings --calls testdata/sample/spendlogs-2026-10.csv --month 2026-10
  tokenfare savings --db "$DATABASE_URL" --month 2026-09 --by team,model --lever offpeak,host -o csv
  tokenfare savings --calls spendlogs.csv --since 2026-10-01 --until 2026-10-08 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSavings(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	opts.source.addWindowFlags(cmd.Flags())
	fs := cmd.Flags()
	fs.StringVar(&opts.by, "by", "key", "groupings, comma-separated: key, team, user, model, group, host, tag, version, day")
	fs.StringVar(&opts.levers, "lever", "", "levers weighed, comma-separated: offpeak, batch, flex, host (default all)")
	fs.StringVarP(&opts.output, "output", "o", "table", "output format: table, csv, json or yaml")
	completeSource(cmd)
	completeWith(cmd, "output", "table", "csv", "json", "yaml")
	completeWith(cmd, "by", "key", "team", "user", "model", "host", "day")
	completeWith(cmd, "lever", "offpeak", "batch", "flex", "host")
	return cmd
}

func runSavings(cmd *cobra.Command, a *app, opts *savingsOptions) error {
	format, err := parseOutput(opts.output, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	if err != nil {
		return err
	}
	eopts, err := opts.source.periodOptions("weigh")
	if err != nil {
		return err
	}
	obs, err := opts.observer(a, eopts)
	if err != nil {
		return err
	}
	e, err := a.priceSource(cmd.Context(), &opts.source, eopts, obs)
	if e != nil {
		defer e.Close()
	}
	if err != nil {
		return err
	}
	return reports.Savings(cmd.OutOrStdout(), format, &reports.SavingsReport{From: eopts.Since, Until: eopts.Until,
		Rows: e.Rows(), Result: obs.Result()})
}

// observer reads --by and --lever into the run's savings observer.
func (o *savingsOptions) observer(a *app, eopts pricing.Options) (*savings.Savings, error) {
	dims, field, err := pricing.ParseDims(o.by)
	if err == nil && field != "" {
		err = errors.New("savings does not group by meta:FIELD")
	}
	if err != nil {
		return nil, usageError(fmt.Errorf("--by: %w", err), "")
	}
	levers, err := savings.ParseLevers(o.levers)
	if err != nil {
		return nil, usageError(fmt.Errorf("--lever: %w", err), "")
	}
	cat, err := a.Catalog()
	if err != nil {
		return nil, err
	}
	obs, err := savings.New(savings.Options{Catalog: cat, Levers: levers, Dims: dims, Zone: eopts.Zone})
	if err != nil {
		return nil, usageError(fmt.Errorf("--by: %w", err), "")
	}
	return obs, nil
}

// weighLevers returns the observer of the workbook's Savings sheet, by
// key, with --savings; nil without. The sheet needs the calls one by one,
// which the state does not keep.
func (o *reportOptions) weighLevers(cat *tariffs.Catalog, eopts pricing.Options) (*savings.Savings, error) {
	switch {
	case !o.savings:
		return nil, nil
	case o.xlsx == "":
		return nil, usageError(errors.New("--savings adds a sheet to the workbook"), "give --xlsx FILE too")
	case o.state != "":
		return nil, usageError(errors.New("--savings reads the calls one by one, and the state keeps their sums"), "drop --state, or --savings")
	}
	return savings.New(savings.Options{Catalog: cat, Dims: []pricing.Dim{pricing.DimKey}, Zone: eopts.Zone})
}

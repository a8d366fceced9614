package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/internal/numtext"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
)

type reconcileOptions struct {
	source   sourceOptions
	by       string
	output   string
	failOver string
	provider []string // provider usage and cost exports: a three-way reconciliation
	state    string
	budget   int // buckets held before groups spill to disk (hidden, for tests); 0: the default
}

func newReconcileCmd(a *app) *cobra.Command {
	var opts reconcileOptions
	cmd := &cobra.Command{
		Use:   "reconcile --calls FILE",
		Short: "Compare the gateway's recorded spend with the official cost and explain the gap",
		Long: `Reconcile prices every call at the tariff in force at its billing instant and compares
the official cost with the spend the gateway recorded, in total and by the groupings of
--by: model, group (the gateway's public model name), key, team, user, day, hour, period,
version. Gap is official minus recorded; ratio is recorded / official.

For each model it explains the gap where it can: recorded at a flat price equal to an
older version's or one period's rates, cache reads recorded at the input price, zero spend
on priced calls, unpriced or retired models, copies of one request id that disagree,
failed calls that carry spend. With --db, LiteLLM's daily user table is compared with the
spend logs per UTC day, key and model: requests, tokens and spend counted but not logged.

Every row read is accounted for: read = priced + unpriced + retired + failed + duplicate
+ rejected + outside. With --fail-over PCT the exit code is 1 when |gap| exceeds PCT
percent of the official cost.

With --provider-usage (repeatable) it reconciles three ways, per UTC day,
model and key: the gateway's log, the tariff, and the provider's own usage
and cost exports (OpenAI usage and costs pages, Anthropic usage and cost
reports, DeepSeek's usage export; docs/provider-usage.md).

With --state PATH it reads each source only past its watermark into the
state file serve keeps (docs/serve.md), then prices the window from the
state's sums: the same figures as reading every row, to the last digit.
Without --calls or --db it prices the state as it is. What the state
cannot give exactly (--by meta:FIELD, a tariff boundary inside a
15-minute slot with calls on both sides) is an error naming it.`,
		Example: `  tokenfare reconcile --calls testdata/sample/spendlogs-2026-10.csv
  tokenfare reconcile --calls spendlogs.csv --by model,day --tz Asia/Shanghai -o csv
  tokenfare reconcile --calls spendlogs.csv -o json --fail-over 5%
  tokenfare reconcile --calls 'exports/spendlogs-2026-10-*.csv' --month 2026-10 --tz Asia/Shanghai
  tokenfare reconcile --calls spendlogs.csv --by key -o yaml
  tokenfare reconcile --calls spendlogs.csv --provider-usage usage.json --provider-usage costs.json
  tokenfare reconcile --db "$DATABASE_URL" --month 2026-10 -o json   # daily_tables: counted but not logged
  tokenfare reconcile --db "$DATABASE_URL" --state state.db --month 2026-10 --by model,team`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReconcile(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	opts.source.addWindowFlags(cmd.Flags())
	cmd.Flags().StringVar(&opts.by, "by", "model", "groupings, comma-separated: model, group, key, team, user, day, hour, period, version, host")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table, csv, json or yaml")
	completeSource(cmd)
	completeOutput(cmd, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	cmd.RegisterFlagCompletionFunc("by", completeDims)
	cmd.Flags().StringVar(&opts.failOver, "fail-over", "", "exit 1 when |gap| exceeds this percent of the official cost")
	cmd.Flags().StringArrayVar(&opts.provider, "provider-usage", nil, "provider usage or cost export, format detected from content (repeatable): reconcile three ways")
	addStateFlag(cmd.Flags(), &opts.state)
	cmd.Flags().IntVar(&opts.budget, "group-budget", 0, "buckets held before groups spill to disk")
	cmd.Flags().MarkHidden("group-budget")
	cmd.MarkFlagFilename("state", "db")
	return cmd
}

func runReconcile(cmd *cobra.Command, a *app, opts *reconcileOptions) error {
	format, err := parseOutput(opts.output, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	if err != nil {
		return err
	}
	var failOver decimal.Decimal
	if opts.failOver != "" {
		if failOver, err = numtext.Decimal(strings.TrimSuffix(opts.failOver, "%")); err != nil || failOver.IsNegative() {
			return usageError(fmt.Errorf("--fail-over %q is not a percentage", opts.failOver), "write e.g. --fail-over 5 or --fail-over 5% for 5%")
		}
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	if len(opts.provider) > 0 {
		if opts.state != "" {
			return usageError(errors.New("--provider-usage reads the calls one by one, and the state keeps their sums"), "drop --state, or --provider-usage")
		}
		return runThreeWay(cmd, a, opts, eopts, format)
	}
	if eopts.Dims, eopts.MetaField, err = pricing.ParseDims(opts.by); err != nil {
		return usageError(fmt.Errorf("--by: %w", err), "")
	}
	tally := tallied(&opts.source)
	opts.source.compareDaily = true
	// The groups spill to disk past the budget, from the sources or the
	// state's sums alike.
	eopts.Runs, eopts.MaxGroups, eopts.Outputs = tempRuns, opts.budget, pricing.OutputGroups
	var e *pricing.Engine
	if opts.state != "" {
		e, err = a.priceState(cmd.Context(), &opts.source, opts.state, eopts, tally)
	} else {
		e, err = a.priceSource(cmd.Context(), &opts.source, eopts)
	}
	if e != nil {
		// Its spilled runs, on the paths that end before the reconciliation
		// holds them: a folder it cannot remove is swept by a later run once
		// this process is gone (internal/spillfs). Closing twice is nothing.
		defer func() { _ = e.Close() }()
	}
	if err != nil {
		return err
	}
	rec := e.Reconcile()
	defer func() { _ = rec.Close() }() // the runs its groups stream from, if they do
	_ = e.Close()                      // the reconciliation holds what it reads
	rec.Failed = failedSplit(tally, rec.Rows)
	rec.Daily = opts.source.daily
	if len(rec.Currencies) > 1 {
		fmt.Fprintf(a.stderr, "warning: totals add up amounts in different currencies (%s); read them by model\n", strings.Join(rec.Currencies, "+"))
	}
	if err := reports.Reconciliation(cmd.OutOrStdout(), format, rec); err != nil {
		return err
	}
	return checkFailOver(rec, strings.TrimSuffix(opts.failOver, "%"), failOver)
}

// checkFailOver turns drift beyond the threshold into findings.
func checkFailOver(rec *pricing.Reconciliation, flag string, pct decimal.Decimal) error {
	if flag == "" {
		return nil
	}
	t := rec.Totals
	if t.Gap.Abs().Shift(2).GreaterThan(t.Official.Mul(pct)) {
		return findingsError(fmt.Errorf("gap %s is more than %s%% of the official cost %s", t.Gap, flag, t.Official))
	}
	return nil
}

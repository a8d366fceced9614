package cli

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/pricing"
)

type reconcileOptions struct {
	source   sourceOptions
	by       string
	output   string
	failOver string
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
on priced calls, unpriced or retired models, duplicates, failed calls that carry spend.

Every row read is accounted for: read = priced + unpriced + retired + failed + duplicate
+ rejected + outside. With --fail-over PCT the exit code is 1 when |gap| exceeds PCT
percent of the official cost.`,
		Example: `  tokenfare reconcile --calls testdata/sample/spendlogs-2026-10.csv
  tokenfare reconcile --calls spendlogs.csv --by model,day --tz Asia/Shanghai -o csv
  tokenfare reconcile --calls spendlogs.csv -o json --fail-over 5%
  tokenfare reconcile --calls 'exports/spendlogs-2026-10-*.csv' --month 2026-10 --tz Asia/Shanghai`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReconcile(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	opts.source.addWindowFlags(cmd.Flags())
	cmd.Flags().StringVar(&opts.by, "by", "model", "groupings, comma-separated: model, group, key, team, user, day, hour, period, version")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table, csv or json")
	completeSource(cmd)
	completeWith(cmd, "output", "table", "csv", "json")
	cmd.RegisterFlagCompletionFunc("by", completeDims)
	cmd.Flags().StringVar(&opts.failOver, "fail-over", "", "exit 1 when |gap| exceeds this percent of the official cost")
	return cmd
}

func runReconcile(cmd *cobra.Command, a *app, opts *reconcileOptions) error {
	if err := checkOutput(opts.output, "table", "csv", "json"); err != nil {
		return err
	}
	var failOver decimal.Decimal
	if opts.failOver != "" {
		var err error
		if failOver, err = decimal.NewFromString(strings.TrimSuffix(opts.failOver, "%")); err != nil || failOver.IsNegative() {
			return usageError(fmt.Errorf("--fail-over %q is not a percentage", opts.failOver), "write e.g. --fail-over 5 or --fail-over 5% for 5%")
		}
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	if eopts.Dims, err = pricing.ParseDims(opts.by); err != nil {
		return usageError(fmt.Errorf("--by: %w", err), "")
	}
	e, err := a.priceSource(cmd.Context(), &opts.source, eopts, nil)
	if err != nil {
		return err
	}
	rec := e.Reconcile()
	if strings.Contains(rec.Currency, "+") {
		fmt.Fprintf(a.stderr, "warning: totals add up amounts in different currencies (%s); read them by model\n", rec.Currency)
	}
	out := cmd.OutOrStdout()
	switch opts.output {
	case "json":
		err = writeJSON(out, rec)
	case "csv":
		err = writeReconcileCSV(out, rec)
	default:
		err = writeReconcileTable(out, rec)
	}
	if err != nil {
		return err
	}
	return checkFailOver(rec, strings.TrimSuffix(opts.failOver, "%"), failOver)
}

// checkFailOver turns drift beyond the threshold into findings.
func checkFailOver(rec *pricing.Reconciliation, flag string, pct decimal.Decimal) error {
	if flag == "" {
		return nil
	}
	official := decimal.RequireFromString(rec.Totals.Official)
	gap := decimal.RequireFromString(rec.Totals.Gap).Abs()
	if gap.Shift(2).GreaterThan(official.Mul(pct)) {
		return findingsError(fmt.Errorf("gap %s is more than %s%% of the official cost %s", rec.Totals.Gap, flag, rec.Totals.Official))
	}
	return nil
}

func groupColumns(rec *pricing.Reconciliation) []string {
	cols := append([]string{}, rec.By...)
	for _, g := range rec.Groups {
		if _, ok := g.Keys["key_alias"]; ok {
			return append(cols, "key_alias")
		}
	}
	return cols
}

func writeReconcileCSV(out io.Writer, rec *pricing.Reconciliation) error {
	w := csv.NewWriter(out)
	cols := groupColumns(rec)
	w.Write(append(cols, "calls", "priced_calls", "input", "cache_read", "cache_write", "output", "reasoning", "official", "recorded", "gap", "ratio"))
	for _, g := range rec.Groups {
		row := make([]string, 0, len(cols)+11)
		for _, c := range cols {
			row = append(row, g.Keys[c])
		}
		i := func(n int64) string { return strconv.FormatInt(n, 10) }
		row = append(row, i(g.Calls), i(g.PricedCalls), i(g.Tokens.Input), i(g.Tokens.CacheRead), i(g.Tokens.CacheWrite),
			i(g.Tokens.Output), i(g.Tokens.Reasoning), g.Official, g.Recorded, g.Gap, g.Ratio)
		w.Write(row)
	}
	w.Flush()
	return w.Error()
}

func writeReconcileTable(out io.Writer, rec *pricing.Reconciliation) error {
	w := &errWriter{w: out}
	t := rec.Totals
	r := rec.Rows
	w.printf("rows      read %d: priced %d, unpriced %d, retired %d, failed %d, duplicate %d, rejected %d, outside %d\n",
		r.Read, r.Priced, r.Unpriced, r.Retired, r.Failed, r.Duplicate, r.Rejected, r.Outside)
	w.printf("official  %s %s\nrecorded  %s %s\ngap       %s (official − recorded); recorded/official = %s\n\n",
		money(t.Official), rec.Currency, money(t.Recorded), rec.Currency, money(t.Gap), orDash(t.Ratio))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	cols := groupColumns(rec)
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = strings.ToUpper(c)
	}
	fmt.Fprintf(tw, "%s\tCALLS\tOFFICIAL\tRECORDED\tGAP\tRATIO\t\n", strings.Join(header, "\t"))
	for _, g := range rec.Groups {
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = orDash(g.Keys[c])
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t\n", strings.Join(vals, "\t"), g.Calls, money(g.Official), money(g.Recorded), money(g.Gap), orDash(g.Ratio))
	}
	tw.Flush()
	if len(rec.Explanations) > 0 {
		w.printf("\nexplanations (amount = part of the gap)\n")
		xs := append([]pricing.Explanation{}, rec.Explanations...)
		sort.SliceStable(xs, func(i, j int) bool {
			return decimal.RequireFromString(xs[i].Amount).Abs().GreaterThan(decimal.RequireFromString(xs[j].Amount).Abs())
		})
		for _, x := range xs {
			w.printf("  %-18s %-20s %12s  %s\n", x.Kind, x.Model, money(x.Amount), x.Detail)
		}
		w.printf("  explained %s of a gap of %s\n", money(t.Explained), money(t.Gap))
	}
	return w.err
}

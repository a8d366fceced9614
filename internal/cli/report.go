package cli

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/internal/atomicfile"
	"github.com/tokenfare/tokenfare/internal/budgets"
	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/yamlin"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/reports"
)

type reportOptions struct {
	source   sourceOptions
	xlsx     string
	focus    string
	focusRaw bool             // text cells of the FOCUS file as they are, for tools
	provider []string         // provider usage and cost exports: the workbook's Provider usage sheet
	budgets  string           // budgets file: the workbook's Budget sheet
	compare  string           // the month to compare with: the workbook's Month over month sheet
	state    string           // the state file to refresh and price from
	savings  bool             // weigh the levers: the workbook's Savings sheet
	weigh    *savings.Savings // the Savings sheet's observer, with --savings
	budget   int              // buckets held before groups spill to disk (hidden, for tests); 0: the default

	focusVersion reports.FOCUSVersion
}

func newReportCmd(a *app) *cobra.Command {
	var opts reportOptions
	cmd := &cobra.Command{
		Use:   "report --calls FILE --month YYYY-MM --xlsx FILE [--focus FILE] [--provider-usage FILE]...",
		Short: "Write the monthly FinOps workbook (XLSX) and a FOCUS cost export",
		Long: `Report prices the calls of one calendar month (in --tz) at the official tariffs and writes:

  --xlsx FILE    a workbook for FinOps: Summary (totals, the data's first and last
                 billing instant and whether the month is partial, a line per provider,
                 row accounting, tariff versions and sources), By model, By provider,
                 By key and By team (dearest first), Daily (with a chart), Peak share
                 (with a chart), Blended prices (the 28 days before the month's end,
                 priced at the tariff in force at its end as blend does, beside the rates
                 the gateway recorded at), Discrepancies and Tariffs; with --budgets a
                 Budget sheet, with --compare a Month over month sheet, with
                 --savings a Savings sheet (what each lever would save, by key;
                 tokenfare savings) and its total in the Summary.
  --focus FILE   the month's official cost as a FOCUS CSV for FinOps tools: one row per
                 day, key, model, tariff version, period and usage type (.gz compresses),
                 in FOCUS 1.2, or 1.3 with --focus-version 1.3 (ServiceProviderName,
                 HostProviderName, and the AI keys of the 1.5 draft in SkuPriceDetails),
                 or 1.4 with --focus-version 1.4 (1.3 without ProviderName and
                 PublisherName, which 1.4 removes).
                 A text cell that a spreadsheet would run as a formula (starting with
                 = + - @, tab or CR) is written with a ' in front; --focus-raw-text keeps
                 it as it is, for FOCUS tools that load the file as data.

With --state PATH each source is read only past its watermark into the state file
serve keeps (docs/serve.md), and the month is priced from the state's sums: the
same workbook and FOCUS file as reading every row (not with --provider-usage, which
or --savings, which read the calls one by one).

Calls billed outside the month are counted as outside. Money cells hold the exact amount
rounded to 15 significant digits; the Summary also gives the totals as exact text. Files
are written atomically: a failed run leaves no partial file.`,
		Example: `  tokenfare report --calls testdata/sample/spendlogs-2026-10.csv --month 2026-10 --xlsx october.xlsx
  tokenfare report --calls spendlogs.csv --month 2026-10 --tz Asia/Shanghai --xlsx oct.xlsx --focus oct-focus.csv.gz
  tokenfare report --calls spendlogs.csv --month 2026-10 --focus oct-focus.csv --focus-version 1.4
  tokenfare report --calls 'spend-2026-*.csv' --month 2026-10 --compare 2026-09 --budgets budgets.yaml --xlsx oct.xlsx
  tokenfare report --calls spendlogs.csv --month 2026-10 --xlsx oct.xlsx --savings
  tokenfare report --db "$DATABASE_URL" --state state.db --month 2026-10 --xlsx oct.xlsx`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReport(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&opts.source.month, "month", "", "calendar month to report, e.g. 2026-10, in --tz (required)")
	cmd.Flags().StringVar(&opts.xlsx, "xlsx", "", "write the workbook to this file")
	cmd.Flags().StringVar(&opts.focus, "focus", "", "write the FOCUS CSV to this file (.gz compresses)")
	cmd.Flags().Var(&opts.focusVersion, "focus-version", "FOCUS version of the --focus file: 1.2, 1.3 (adds ServiceProviderName, HostProviderName and AI keys in SkuPriceDetails) or 1.4 (1.3 without ProviderName and PublisherName)")
	cmd.Flags().BoolVar(&opts.focusRaw, "focus-raw-text", false, "write text cells of the FOCUS file as they are, without the ' that keeps a spreadsheet from running them")
	cmd.Flags().StringArrayVar(&opts.provider, "provider-usage", nil, "provider usage or cost export, format detected from content (repeatable): adds the Provider usage sheet")
	cmd.Flags().StringVar(&opts.budgets, "budgets", "", "budgets file (YAML: monthly amounts per team, key or tag, docs/workbook.md): adds the Budget sheet")
	cmd.Flags().StringVar(&opts.compare, "compare", "", "an earlier month read from the same sources, e.g. 2026-09: adds the Month over month sheet")
	cmd.Flags().BoolVar(&opts.savings, "savings", false, "weigh the levers (offpeak, batch, flex, host) by key: adds the Savings sheet (reads the calls one by one)")
	addStateFlag(cmd.Flags(), &opts.state)
	cmd.Flags().IntVar(&opts.budget, "group-budget", 0, "buckets held before groups spill to disk")
	cmd.Flags().MarkHidden("group-budget")
	cmd.MarkFlagFilename("state", "db")
	completeSource(cmd)
	completeWith(cmd, "focus-version", reports.FOCUS12.String(), reports.FOCUS13.String(), reports.FOCUS14.String())
	return cmd
}

func runReport(cmd *cobra.Command, a *app, opts *reportOptions) error {
	if err := opts.check(cmd); err != nil {
		return err
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	month, err := opts.month(cmd, a, eopts)
	if err != nil {
		return err
	}
	res, err := opts.run(cmd.Context(), a, month)
	if res != nil {
		defer func() { _ = res.Close() }() // the runs the FOCUS file's charges are read from, if any
	}
	if err != nil {
		return err
	}
	m := res.Month
	m.Month.Reconciliation.Failed = failedSplit(opts.source.tally, m.Month.Reconciliation.Rows)
	if err := opts.write(a, res); err != nil {
		return err
	}
	if err := writeReportLine(cmd.OutOrStdout(), m.Month, opts); err != nil {
		return err
	}
	return reports.DailyLines(cmd.OutOrStdout(), opts.source.daily)
}

// check refuses flags that write nothing, or that shape nothing given.
func (o *reportOptions) check(cmd *cobra.Command) error {
	if o.xlsx == "" && o.focus == "" {
		return usageError(errors.New("nothing to write"), "give --xlsx FILE, --focus FILE or both")
	}
	if o.focus == "" && (cmd.Flags().Changed("focus-version") || o.focusRaw) {
		return usageError(errors.New("--focus-version and --focus-raw-text shape the --focus file, and none is given"), "give --focus FILE too")
	}
	if o.source.month == "" {
		return usageError(errors.New("--month is required"), "write e.g. --month 2026-10")
	}
	return nil
}

// month prepares the month the run builds (run.Month) from --budgets,
// --provider-usage and --compare.
func (o *reportOptions) month(cmd *cobra.Command, a *app, eopts pricing.Options) (*run.Month, error) {
	cat, err := a.Catalog()
	if err != nil {
		return nil, err
	}
	plan, err := readBudgets(o.budgets)
	if err != nil {
		return nil, err
	}
	rows, err := o.providerRows(cmd, a)
	if err != nil {
		return nil, err
	}
	month, err := run.NewMonth(cat, eopts, plan, rows)
	if err != nil {
		return nil, usageError(fmt.Errorf("read provider usage: %w", err), "see docs/provider-usage.md")
	}
	if o.weigh, err = o.weighLevers(cat, eopts); err != nil {
		return nil, err
	}
	if o.compare == "" {
		return month, nil
	}
	from, until, err := parseMonth(o.compare, eopts.Zone)
	if err != nil {
		return nil, usageError(fmt.Errorf("--compare: %w", err), "write e.g. --compare 2026-09")
	}
	if from.Equal(eopts.Since) {
		return nil, usageError(fmt.Errorf("--compare %s is the month reported", o.compare), "give an earlier month")
	}
	month.Compare(from, until)
	return month, nil
}

// providerRows reads --provider-usage; nil without it.
func (o *reportOptions) providerRows(cmd *cobra.Command, a *app) ([]threeway.Row, error) {
	if len(o.provider) > 0 && o.state != "" {
		return nil, usageError(errors.New("--provider-usage reads the calls one by one, and the state keeps their sums"), "drop --state, or --provider-usage")
	}
	if len(o.provider) == 0 {
		return nil, nil
	}
	if o.xlsx == "" {
		return nil, usageError(errors.New("--provider-usage adds a sheet to the workbook"), "give --xlsx FILE too")
	}
	return readProviderExports(cmd, a, o.provider)
}

// run prices the month from the sources or the state.
func (o *reportOptions) run(ctx context.Context, a *app, month *run.Month) (*run.Result, error) {
	tallied(&o.source)
	o.source.compareDaily = true
	// The groups spill to disk past the budget, from the sources or the
	// state's sums alike, keeping what the month and the FOCUS file need.
	in := run.Input{Options: month.Options(), Month: month}
	in.Options.Runs, in.Options.MaxGroups, in.Options.Outputs = tempRuns, o.budget, pricing.OutputGroups
	if o.focus != "" {
		in.Options.Outputs |= pricing.OutputCharges
	}
	if o.weigh != nil {
		in.Observers = append(in.Observers, o.weigh)
	}
	if o.state != "" {
		in.FailedCalls = failedObserver(o.source.tally)
		return a.runState(ctx, &o.source, o.state, in)
	}
	return a.runSource(ctx, &o.source, in)
}

// write writes the workbook and the FOCUS file asked for, both or none:
// each replaces its target only once both are complete.
func (o *reportOptions) write(a *app, res *run.Result) error {
	var files []*atomicfile.File
	defer func() {
		for _, f := range files {
			f.Discard()
		}
	}()
	if o.xlsx != "" {
		f, err := writeAtomic(o.xlsx, func(w io.Writer) error { return o.workbook(w, a, res.Month) })
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	if o.focus != "" {
		charges, m := res.Engine.Charges(), res.Month.Month
		f, err := writeAtomic(o.focus, func(w io.Writer) error {
			return writeMaybeGzip(w, o.focus, charges.All(), m.From, m.Until, reports.FOCUSFormat{Version: o.focusVersion, Text: focusText(o.focusRaw)})
		})
		if cerr := charges.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	for _, f := range files {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	files = nil
	return nil
}

// workbook writes the workbook of the month to w, telling on stderr when
// the month compared with holds no call.
func (o *reportOptions) workbook(w io.Writer, a *app, m *run.MonthResult) error {
	x := reports.Extras{ThreeWay: m.ThreeWay, Budgets: m.Budgets, Change: m.Change}
	if o.weigh != nil {
		x.Savings = o.weigh.Result()
	}
	if m.Change != nil && m.Change.Previous.Calls == 0 {
		fmt.Fprintf(a.stderr, "note: --compare %s: the sources hold no call of that month\n", o.compare)
	}
	return reports.WriteWorkbook(w, m.Month, o.provenance(a), x)
}

// provenance says where the workbook's figures come from.
func (o *reportOptions) provenance(a *app) reports.Provenance {
	prov := reports.Provenance{Produced: a.now().UTC(), Program: "tokenfare " + buildVersion(),
		Sources: o.source.calls, Tariffs: "embedded catalog"}
	if o.state != "" {
		prov.Sources = append(slices.Clone(prov.Sources), "state "+o.state)
	}
	if a.tariffs != "" {
		prov.Tariffs = a.tariffs
	}
	if len(a.lists) > 0 {
		prov.Tariffs += ", price lists " + strings.Join(a.lists, ", ")
	}
	if len(a.overlays) > 0 {
		prov.Tariffs += ", overlaid with " + strings.Join(a.overlays, ", ")
	}
	return prov
}

// readBudgets reads --budgets; nil without it.
func readBudgets(path string) (*pricing.BudgetPlan, error) {
	if path == "" {
		return nil, nil
	}
	data, err := yamlin.ReadFile(path)
	if err != nil {
		return nil, usageError(fmt.Errorf("read budgets: %w", unwrapPathError(err)), "check the path given to --budgets")
	}
	plan, err := budgets.Parse(path, data)
	if err != nil {
		return nil, usageError(err, "see docs/workbook.md, \"Budgets\", for the file's format")
	}
	return plan, nil
}

// focusText is the FOCUS text mode --focus-raw-text asks for.
func focusText(raw bool) reports.FOCUSText {
	if raw {
		return reports.FOCUSRaw
	}
	return reports.FOCUSSheetSafe
}

func writeMaybeGzip(w io.Writer, name string, charges iter.Seq2[pricing.Charge, error], from, until time.Time, text reports.FOCUSFormat) error {
	if !strings.HasSuffix(name, ".gz") {
		return reports.WriteFOCUS(w, charges, from, until, text)
	}
	// The fastest level: a FOCUS file compresses well anyway, and the
	// report should not cost much more than reading the calls.
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if err := reports.WriteFOCUS(zw, charges, from, until, text); err != nil {
		return err
	}
	return zw.Close()
}

// writeReportLine writes the line that says what the report wrote.
func writeReportLine(out io.Writer, m *pricing.Month, opts *reportOptions) error {
	var wrote []string
	for _, f := range []string{opts.xlsx, opts.focus} {
		if f != "" {
			wrote = append(wrote, f)
		}
	}
	return reports.MonthLine(out, opts.source.month, m, wrote)
}

// writeAtomic writes a file through write into a temporary file beside
// path and completes it (atomicfile.File.Close), so that a failure leaves
// the target untouched; Commit then replaces the target.
func writeAtomic(path string, write func(io.Writer) error) (*atomicfile.File, error) {
	f, err := createAtomic(path)
	if err != nil {
		return nil, err
	}
	if err := write(f); err != nil {
		f.Discard()
		return nil, fmt.Errorf("write %s: %w", path, unwrapPathError(err))
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return f, nil
}

// createAtomic opens the file that will replace path, as bad usage when
// its folder cannot take it.
func createAtomic(path string) (*atomicfile.File, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, usageError(fmt.Errorf("write %s: %w", path, unwrapPathError(err)), "check that the folder exists and is writable")
	}
	return f, nil
}

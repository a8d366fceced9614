package cli

import (
	"compress/gzip"
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
	"github.com/tokenfare/tokenfare/internal/yamlin"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/dedup"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/reports"
	"github.com/tokenfare/tokenfare/tariffs"
)

type reportOptions struct {
	source   sourceOptions
	xlsx     string
	focus    string
	focusRaw bool     // text cells of the FOCUS file as they are, for tools
	provider []string // provider usage and cost exports: the workbook's Provider usage sheet
	budgets  string   // budgets file: the workbook's Budget sheet
	compare  string   // the month to compare with: the workbook's Month over month sheet
	state    string   // the state file to refresh and price from
	budget   int      // buckets held before groups spill to disk (hidden, for tests); 0: the default

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
                 Budget sheet, with --compare a Month over month sheet.
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
reads the calls one by one).

Calls billed outside the month are counted as outside. Money cells hold the exact amount
rounded to 15 significant digits; the Summary also gives the totals as exact text. Files
are written atomically: a failed run leaves no partial file.`,
		Example: `  tokenfare report --calls testdata/sample/spendlogs-2026-10.csv --month 2026-10 --xlsx october.xlsx
  tokenfare report --calls spendlogs.csv --month 2026-10 --tz Asia/Shanghai --xlsx oct.xlsx --focus oct-focus.csv.gz
  tokenfare report --calls spendlogs.csv --month 2026-10 --focus oct-focus.csv --focus-version 1.4
  tokenfare report --calls 'spend-2026-*.csv' --month 2026-10 --compare 2026-09 --budgets budgets.yaml --xlsx oct.xlsx
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
	addStateFlag(cmd.Flags(), &opts.state)
	cmd.Flags().IntVar(&opts.budget, "group-budget", 0, "buckets held before groups spill to disk")
	cmd.Flags().MarkHidden("group-budget")
	cmd.MarkFlagFilename("state", "db")
	completeSource(cmd)
	completeWith(cmd, "focus-version", reports.FOCUS12.String(), reports.FOCUS13.String(), reports.FOCUS14.String())
	return cmd
}

func runReport(cmd *cobra.Command, a *app, opts *reportOptions) error {
	if opts.xlsx == "" && opts.focus == "" {
		return usageError(errors.New("nothing to write"), "give --xlsx FILE, --focus FILE or both")
	}
	if opts.focus == "" && (cmd.Flags().Changed("focus-version") || opts.focusRaw) {
		return usageError(errors.New("--focus-version and --focus-raw-text shape the --focus file, and none is given"), "give --focus FILE too")
	}
	if opts.source.month == "" {
		return usageError(errors.New("--month is required"), "write e.g. --month 2026-10")
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	from, until := eopts.Since, eopts.Until
	plan, err := readBudgets(opts.budgets)
	if err != nil {
		return err
	}
	month := pricing.NewMonthBuilder(cat, eopts)
	eopts = month.Options()
	if plan != nil && plan.HasTags() {
		// Budgets by tag: the month's sums are kept apart by tags too.
		eopts.Dims = append(slices.Clone(eopts.Dims), pricing.DimTag)
	}
	var observers []pricing.Observer
	if month.NeedsCalls() {
		observers = append(observers, month)
	}
	var three *threeway.Builder
	if len(opts.provider) > 0 && opts.state != "" {
		return usageError(errors.New("--provider-usage reads the calls one by one, and the state keeps their sums"), "drop --state, or --provider-usage")
	}
	if len(opts.provider) > 0 {
		if opts.xlsx == "" {
			return usageError(errors.New("--provider-usage adds a sheet to the workbook"), "give --xlsx FILE too")
		}
		rows, err := readProviderExports(cmd, a, opts.provider)
		if err != nil {
			return err
		}
		if three, err = threeway.New(cat, eopts, rows); err != nil {
			return usageError(fmt.Errorf("read provider usage: %w", err), "see docs/provider-usage.md")
		}
		// The same pass over the calls feeds the three-way reconciliation.
		observers = append(observers, three)
	}
	tally := tallied(&opts.source)
	opts.source.compareDaily = true
	prev, err := opts.previous(cat, eopts)
	if err != nil {
		return err
	}
	if prev != nil {
		defer prev.close()
		observers = append(observers, prev)
	}
	// The groups spill to disk past the budget, from the sources or the
	// state's sums alike, keeping what the month and the FOCUS file need.
	eopts.Runs, eopts.MaxGroups, eopts.Outputs = tempRuns, opts.budget, pricing.OutputGroups
	if opts.focus != "" {
		eopts.Outputs |= pricing.OutputCharges
	}
	var e *pricing.Engine
	if opts.state != "" {
		e, err = a.reportState(cmd.Context(), &opts.source, opts.state, eopts, tally, month, prev)
	} else {
		e, err = a.priceSource(cmd.Context(), &opts.source, eopts, observers...)
	}
	if e != nil {
		defer e.Close()
	}
	if err != nil {
		return err
	}
	var tw *threeway.Reconciliation
	if three != nil {
		tw = three.Build(e.Rows())
	}
	m, err := month.Build(e)
	if err != nil {
		return err
	}
	m.Reconciliation.Failed = failedSplit(tally, m.Reconciliation.Rows)
	var files []*atomicfile.File
	defer func() {
		for _, f := range files {
			f.Discard()
		}
	}()
	if opts.xlsx != "" {
		prov := reports.Provenance{Produced: a.now().UTC(), Program: "tokenfare " + buildVersion(),
			Sources: opts.source.calls, Tariffs: "embedded catalog"}
		if opts.state != "" {
			prov.Sources = append(slices.Clone(prov.Sources), "state "+opts.state)
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
		x := reports.Extras{ThreeWay: tw}
		if plan != nil {
			x.Budgets = m.Budgets(plan)
		}
		if prev != nil {
			x.Change = m.CompareMonths(prev.e, prev.from, prev.until)
			if x.Change.Previous.Calls == 0 {
				fmt.Fprintf(a.stderr, "note: --compare %s: the sources hold no call of that month\n", opts.compare)
			}
		}
		f, err := writeAtomic(opts.xlsx, func(w io.Writer) error { return reports.WriteWorkbook(w, m, prov, x) })
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	if opts.focus != "" {
		charges := e.Charges()
		f, err := writeAtomic(opts.focus, func(w io.Writer) error {
			return writeMaybeGzip(w, opts.focus, charges, from, until, reports.FOCUSFormat{Version: opts.focusVersion, Text: focusText(opts.focusRaw)})
		})
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	// Both files are complete: only now do they replace what was there.
	for _, f := range files {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	files = nil
	if err := writeReportLine(cmd.OutOrStdout(), m, opts); err != nil {
		return err
	}
	return reports.DailyLines(cmd.OutOrStdout(), opts.source.daily)
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

// previousMonth prices the calls of --compare's month, fed the calls the
// report's own engine found outside its month, with a duplicate set of
// its own (the report's engine does not look outside its month for them).
type previousMonth struct {
	e           *pricing.Engine
	opts        pricing.Options // e's
	seen        *dedup.Set
	from, until time.Time
}

// previous returns the engine of --compare's month; nil without it.
func (o *reportOptions) previous(cat *tariffs.Catalog, month pricing.Options) (*previousMonth, error) {
	if o.compare == "" {
		return nil, nil
	}
	from, until, err := parseMonth(o.compare, month.Zone)
	if err != nil {
		return nil, usageError(fmt.Errorf("--compare: %w", err), "write e.g. --compare 2026-09")
	}
	if from.Equal(month.Since) {
		return nil, usageError(fmt.Errorf("--compare %s is the month reported", o.compare), "give an earlier month")
	}
	seen := dedup.New(dedup.Options{})
	opts := pricing.Options{Billing: month.Billing, Since: from, Until: until, Zone: month.Zone, Seen: seen,
		Dims: []pricing.Dim{pricing.DimModel, pricing.DimTeam}}
	return &previousMonth{e: pricing.New(cat, opts), opts: opts, seen: seen, from: from, until: until}, nil
}

// Observe prices into the previous month's engine every call outside the
// reported month; an error of its duplicate set stops the run.
func (p *previousMonth) Observe(c *ledger.Call, pc *pricing.PricedCall) error {
	if pc.Outcome == pricing.Outside {
		p.e.AddPriced(c)
	}
	return p.e.Err()
}

func (p *previousMonth) close() { p.seen.Close() }

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

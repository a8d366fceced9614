package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/gateway/litellm"
	"github.com/tokenfare/tokenfare/internal/atomicfile"
	"github.com/tokenfare/tokenfare/internal/numtext"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
	"github.com/tokenfare/tokenfare/tariffs"
)

type blendOptions struct {
	source     sourceOptions
	asOf       string
	window     string
	month      string
	tariffAt   string
	historical bool
	mode       string
	output     string
	write      string
	dryRun     bool
	check      bool
	tolerance  string
	offPeak    bool
	allModels  bool
	state      string
}

func newBlendCmd(a *app) *cobra.Command {
	var opts blendOptions
	cmd := &cobra.Command{
		Use:   "blend --calls FILE",
		Short: "Compute the blended price per model and usage type over a window",
		Long: `Blend prices the calls billed in the window before --as-of (default: the 28 days before
now) and gives, per model and usage type, the blended price per 1M tokens: cost divided
by tokens. Every call is priced at the tariff in force at --tariff-at (default: --as-of),
as if that version had applied at the call's own instant, so the blend is the window's
usage mix at the tariff the gateway will be charged from then on; --tariff-at may be a
future instant, to blend a published change before it takes effect. --historical prices
each call at the version in force at its own instant instead (exact in total over the
window). The output names the version(s) used, and a warning on stderr names each known
version that takes effect after that tariff for a model with calls (tokenfare tariffs next).

Pricing the window's tokens at the blended prices gives its cost to within half a unit of
the 9th decimal place per 1M tokens; a blended price always lies between the lowest
(off-peak) and highest (peak) price that applied.

--mode gateway applies one gateway-wide peak share (the share of peak in the window's cost
at off-peak prices) to every time-of-use model instead, as a single flat setting would;
each price shows the share it was worked out from (SHARE USED, peak_share_used) beside
its own tokens' peak share.

Only models with calls in the window are listed; a line on stderr (models_without_calls in
JSON and YAML) says how many models of the catalog had none. --all-models lists them too,
each with its reason.

--write FILE writes the blended prices, per token, into a LiteLLM config.yaml in place
(see docs/ci.md): every entry of a tariff model gets the same prices, every other byte
stays, the file is replaced atomically and only if it did not change meanwhile.
--dry-run prints the unified diff instead; --check writes nothing and exits 1 when a price
in the file is off the blend by more than --tolerance. An entry with an off_peak_pricing
block is refused unless --off-peak-pricing, which writes the block from the tariff.

--state PATH reads each source only past its watermark into the state file serve
keeps (docs/serve.md) and blends from the state's sums: a daily blend reads one
day of rows, not 28, and gives the same prices to the last digit.`,
		Example: `  tokenfare blend --calls testdata/sample/spendlogs-2026-10.csv --as-of 2026-11-01
  tokenfare blend --calls spendlogs.csv --window 7d --mode gateway -o json
  tokenfare blend --calls testdata/sample/spendlogs-2026-10.csv --as-of 2026-11-01 --all-models -o json
  tokenfare blend --calls spendlogs.csv -o csv > blended.csv
  tokenfare blend --calls 'exports/*.csv' --month 2026-10 --tz Asia/Shanghai
  tokenfare blend --calls spendlogs.csv --tariff-at 2026-12-01 -o yaml
  tokenfare blend --calls spendlogs.csv --write litellm.yaml --dry-run
  tokenfare blend --calls spendlogs.csv --write litellm.yaml --check --tolerance 1%
  tokenfare blend --db "$DATABASE_URL" --state state.db --write litellm.yaml --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBlend(cmd, a, &opts)
		},
	}
	f := cmd.Flags()
	opts.source.addFlags(f)
	f.StringVar(&opts.asOf, "as-of", "", "end of the window, exclusive (RFC 3339, or a date: midnight in --tz; default now)")
	f.StringVar(&opts.window, "window", "28d", "length of the window: days (28d) or a duration (36h)")
	f.StringVar(&opts.month, "month", "", "blend over this month of --tz, e.g. 2026-10: the window is the whole month, instead of --as-of and --window")
	f.StringVar(&opts.tariffAt, "tariff-at", "", "price every call at the tariff in force at this instant (default the window's end; may be in the future)")
	f.BoolVar(&opts.historical, "historical", false, "price each call at the version in force at its own instant")
	f.StringVar(&opts.mode, "mode", pricing.ModePerModel.String(), "per-model or gateway")
	f.StringVarP(&opts.output, "output", "o", "table", "output format: table, csv, json or yaml")
	f.StringVar(&opts.write, "write", "", "LiteLLM config.yaml to write the blended prices into")
	f.BoolVar(&opts.dryRun, "dry-run", false, "with --write: print the unified diff, write nothing")
	f.BoolVar(&opts.check, "check", false, "with --write: write nothing, exit 1 when a price is off by more than --tolerance")
	f.StringVar(&opts.tolerance, "tolerance", "0.5%", "with --check: relative difference allowed, in percent (0.5% or 0.5)")
	f.BoolVar(&opts.offPeak, "off-peak-pricing", false, "with --write: write time-of-use models as peak prices plus an off_peak_pricing block from the tariff")
	f.BoolVar(&opts.allModels, "all-models", false, "list every model the catalog prices, those without calls in the window too")
	addStateFlag(f, &opts.state)
	cmd.MarkFlagFilename("write", "yaml", "yml")
	cmd.MarkFlagFilename("state", "db")
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
	// Checked here rather than with cobra's flag groups, whose errors come
	// after the command has started and would not exit as bad usage.
	if opts.tariffAt != "" && opts.historical {
		return usageError(errors.New("--tariff-at and --historical exclude each other"), "--historical prices each call at its own version; drop one")
	}
	if opts.dryRun && opts.check {
		return usageError(errors.New("--dry-run and --check exclude each other"), "--dry-run shows the diff, --check only compares: pick one")
	}
	if opts.write == "" && (opts.dryRun || opts.check || opts.offPeak) {
		return usageError(errors.New("--dry-run, --check and --off-peak-pricing go with --write FILE"), "add --write config.yaml")
	}
	if opts.write != "" && cmd.Flags().Changed("output") {
		return usageError(errors.New("-o does not apply with --write: the changes are listed as file:line text"), "drop -o, or run blend without --write for the report")
	}
	if opts.write != "" && opts.allModels {
		return usageError(errors.New("--all-models does not apply with --write: the changes are listed, not the blend"), "drop --all-models, or run blend without --write for the report")
	}
	if !opts.check && cmd.Flags().Changed("tolerance") {
		return usageError(errors.New("--tolerance goes with --check"), "add --check to compare the file with the blend")
	}
	tol, err := parseTolerance(opts.tolerance)
	if err != nil {
		return err
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	if eopts.Since, eopts.Until, err = opts.windowBounds(cmd, a.now(), eopts.Zone); err != nil {
		return err
	}
	opts.source.asOfHint = opts.month == ""
	tariffAt := eopts.Until
	if opts.tariffAt != "" {
		if tariffAt, err = parseInstantIn("tariff-at", opts.tariffAt, eopts.Zone); err != nil {
			return err
		}
	}
	if !opts.historical {
		eopts.TariffAt = tariffAt
	}
	w := &configWrite{path: opts.write, dryRun: opts.dryRun, check: opts.check, tolerance: tol, offPeak: opts.offPeak, at: tariffAt}
	if opts.write != "" {
		// Read (and parse) the config first: a config that does not parse
		// stops the run before the calls are read.
		if err := w.read(cmd); err != nil {
			return err
		}
	}
	var e *pricing.Engine
	if opts.state != "" {
		e, err = a.priceState(cmd.Context(), &opts.source, opts.state, eopts, nil)
	} else {
		e, err = a.priceSource(cmd.Context(), &opts.source, eopts)
	}
	if err != nil {
		return err
	}
	bl := e.BlendWindow(eopts.Since, eopts.Until, mode)
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	warnNextVersions(cmd.ErrOrStderr(), cat, bl)
	if opts.write == "" {
		return writeBlend(cmd, format, bl, opts.allModels)
	}
	return w.run(cmd, cat, bl)
}

// writeBlend writes the blend's models with calls in the window, or all
// of them, and says on stderr how many it left out.
func writeBlend(cmd *cobra.Command, format reports.Format, bl *pricing.Blend, all bool) error {
	if !all {
		bl = bl.WithCalls()
	}
	if err := reports.Blend(cmd.OutOrStdout(), format, bl); err != nil {
		return err
	}
	if bl.WithoutCalls > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: %d model(s) of the catalog had no calls in the window and are not listed; --all-models lists them\n", bl.WithoutCalls)
	}
	return nil
}

// parseTolerance reads a relative tolerance given in percent, with or
// without the sign ("0.5%" or "0.5"), as --fail-over reads its percentage,
// and returns it as a fraction (0.005). Were a bare number a fraction,
// "--tolerance 0.5" would pass prices 50% off.
func parseTolerance(s string) (decimal.Decimal, error) {
	d, err := numtext.Decimal(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	if err != nil || d.IsNegative() {
		return decimal.Zero, usageError(fmt.Errorf("--tolerance %q is not a percentage", s), "write e.g. --tolerance 0.5% (or 0.5) for 0.5%")
	}
	return d.Shift(-2), nil
}

// configWrite is a --write run: the config as read and what to do with it.
type configWrite struct {
	path      string
	dryRun    bool
	check     bool
	tolerance decimal.Decimal
	offPeak   bool
	at        time.Time
	cfg       *litellm.Config
	old       []byte
}

func (w *configWrite) read(cmd *cobra.Command) error {
	cfg, old, err := litellm.ReadFile(cmd.Context(), w.path)
	if err != nil {
		var pe *litellm.ParseError
		if errors.As(err, &pe) {
			return usageError(fmt.Errorf("read config: %w", err), "fix the YAML at that line; nothing was written")
		}
		return usageError(fmt.Errorf("read config: %w", err), "")
	}
	w.cfg, w.old = cfg, old
	return nil
}

func (w *configWrite) run(cmd *cobra.Command, cat *tariffs.Catalog, bl *pricing.Blend) error {
	out := cmd.OutOrStdout()
	stderr := cmd.ErrOrStderr()
	u, err := w.cfg.Update(litellm.UpdateOptions{Catalog: cat, Prices: bl.Rates(cat), Unpriced: bl.Unblended(cat), OffPeakPricing: w.offPeak, At: w.at})
	if err != nil {
		return usageError(fmt.Errorf("write %s:\n%w", w.path, err), "nothing was written")
	}
	fmt.Fprintf(stderr, "%s\n", blendSource(bl))
	for _, s := range u.Skipped {
		fmt.Fprintf(stderr, "%s:%d: %s: left alone: %s\n", w.path, s.Line, s.ModelName, s.Reason)
	}
	switch {
	case w.dryRun:
		return reports.ConfigDiff(out, w.path, w.old, u.Data)
	case w.check:
		return w.stale(out, u)
	}
	if len(u.Changes) == 0 {
		fmt.Fprintf(stderr, "%s is up to date\n", w.path)
		return nil
	}
	if err := litellm.WriteFile(w.path, w.old, u.Data); err != nil {
		if errors.Is(err, litellm.ErrChanged) || errors.Is(err, atomicfile.ErrUnsynced) {
			return usageError(fmt.Errorf("write %s: %w", w.path, err), "")
		}
		return usageError(fmt.Errorf("write %s: %w", w.path, err), "nothing was written")
	}
	if err := reports.ConfigChanges(out, w.path, u.Changes); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d value(s) to %s\n", len(u.Changes), w.path)
	return nil
}

// blendSource names the tariff the blend priced calls at.
func blendSource(bl *pricing.Blend) string {
	var vs []string
	for _, m := range bl.Models {
		if len(m.Prices) > 0 {
			vs = append(vs, m.Model+" "+strings.Join(m.Versions, ", "))
		}
	}
	at := "each call at its own version (historical)"
	if !bl.TariffAt.IsZero() {
		at = "tariff in force at " + bl.TariffAt.Format(time.RFC3339)
	}
	return fmt.Sprintf("blend of %s to %s, %s: %s", bl.From.Format(time.RFC3339), bl.Until.Format(time.RFC3339), at, strings.Join(vs, "; "))
}

// stale lists every value of the config off the blend by more than the
// tolerance (relative to the blend), and exits 1 when there is one.
func (w *configWrite) stale(out io.Writer, u *litellm.Update) error {
	stale := u.Stale(w.tolerance)
	if err := reports.ConfigCheck(out, w.path, stale, w.tolerance); err != nil {
		return err
	}
	if len(stale) > 0 {
		return findingsError(fmt.Errorf("%s: %d price(s) missing, unreadable to LiteLLM or off the blend by more than %s%%", w.path, len(stale), w.tolerance.Shift(2)))
	}
	return nil
}

// windowBounds returns the window blended: --month, or the --window
// before --as-of (default now), starting no earlier than 1970.
func (o *blendOptions) windowBounds(cmd *cobra.Command, now time.Time, loc *time.Location) (from, until time.Time, err error) {
	if o.month != "" {
		if cmd.Flags().Changed("as-of") || cmd.Flags().Changed("window") {
			return from, until, usageError(errors.New("--month is given with --as-of or --window"), "give either --month or --as-of/--window")
		}
		return parseMonth(o.month, loc)
	}
	window, err := parseWindow(o.window)
	if err != nil {
		return from, until, err
	}
	until = now.UTC()
	if o.asOf != "" {
		if until, err = parseInstantIn("as-of", o.asOf, loc); err != nil {
			return from, until, err
		}
	}
	from = minInstant
	if until.Sub(minInstant) > window {
		from = until.Add(-window)
	}
	return from, until, nil
}

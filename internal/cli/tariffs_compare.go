package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/reports"
	"github.com/tokenfare/tokenfare/tariffs/drift"
)

type compareOptions struct {
	files  []string
	at     string
	tz     string
	output string
	scope  string
}

func newTariffsCompareCmd(a *app) *cobra.Command {
	var opts compareOptions
	cmd := &cobra.Command{
		Use:   "compare FILE...",
		Short: "Compare the catalog with LiteLLM's price table, genai-prices or models.dev",
		Long: `Compare puts the catalog (or the --tariffs folder) beside other price databases:
LiteLLM's model_prices_and_context_window.json (prices per token, off_peak_pricing
blocks), genai-prices provider files (prices/providers/*.yml) and models.dev's api.json
(providers and their models, prices per 1M tokens); the format is told by content. It maps names,
converts prices to USD per 1M tokens, and lists every model and usage type whose
price differs at --at (default now), models one side lacks (for providers both cover),
and time-of-use rules that differ over the week from --at and on every holiday or
make-up workday either side names. It lists too the names the other database gives a
catalog model that the catalog does not know (dated snapshot ids, host routes).

An entry it cannot read (a price it cannot make sense of, tiers by another measure than
prompt tokens) is skipped and named on stderr; the rest of the file is compared. A file it
cannot read at all is named on stderr, the others are compared, and the run exits 2.
Entries that state no price per token are not compared. --scope catalog reports only the
catalog's own models (their prices, time-of-use rules and unknown names), not the models
only one side has, so that a CI job is green when the catalog is right.

Exit 1 when it finds any difference, 0 when none, 2 when a file could not be read.`,
		Example: `  tokenfare tariffs compare model_prices_and_context_window.json
  tokenfare tariffs compare model_prices_and_context_window.json --scope catalog
  tokenfare tariffs compare genai-prices/prices/providers/deepseek.yml --at 2026-10-12T02:00:00Z -o json
  tokenfare tariffs compare api.json --scope catalog
  tokenfare tariffs compare model_prices_and_context_window.json -o csv > drift.csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			return runTariffsCompare(cmd.Context(), a, cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.at, "at", "", "instant to compare prices at (RFC 3339, or a date: midnight in --tz; default now)")
	cmd.Flags().StringVar(&opts.tz, "tz", "UTC", "IANA time zone a bare --at date is read in")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table, csv, json or yaml")
	cmd.Flags().StringVar(&opts.scope, "scope", "all", "all: every difference; catalog: only the catalog's own models")
	completeWith(cmd, "scope", "all", "catalog")
	completeOutput(cmd, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	return cmd
}

func runTariffsCompare(ctx context.Context, a *app, out io.Writer, opts compareOptions) error {
	format, err := parseOutput(opts.output, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	if err != nil {
		return err
	}
	at := a.now().UTC()
	if opts.at != "" {
		if at, err = parseInstantTZ("at", opts.at, opts.tz); err != nil {
			return err
		}
	}
	scope, err := drift.ParseScope(opts.scope)
	if err != nil {
		return usageError(err, "give --scope all or --scope catalog")
	}
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	var dbs []*drift.Database
	var unread []error
	for _, name := range opts.files {
		db, err := readPriceDB(ctx, name)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "Error: %v\n", err)
			unread = append(unread, err)
			continue
		}
		a.reportSkipped(db)
		dbs = append(dbs, db)
	}
	if len(unread) == len(opts.files) {
		return unread[0] // nothing to compare: the one error says it
	}
	found := drift.Compare(cat, dbs, at, scope)
	if err := reports.Drift(out, format, at, dbs, found); err != nil {
		return err
	}
	if len(unread) > 0 {
		return usageError(fmt.Errorf("%d of %d file(s) could not be read (named above); the others were compared", len(unread), len(opts.files)),
			"give LiteLLM's model_prices_and_context_window.json, genai-prices provider files or models.dev's api.json")
	}
	if n := len(found); n > 0 {
		return findingsError(fmt.Errorf("%d difference(s) between the catalog and %d file(s)", n, len(dbs)))
	}
	return nil
}

// reportSkipped names on stderr each entry of db that could not be read.
func (a *app) reportSkipped(db *drift.Database) {
	for _, s := range db.Skipped {
		fmt.Fprintf(a.stderr, "skipped %s:%d: %q: %s\n", db.File, s.Line, s.Name, s.Reason)
	}
	if n := len(db.Skipped); n > 0 {
		fmt.Fprintf(a.stderr, "%s: %d of %d entries skipped (they cannot be read); the rest are compared\n", db.File, n, db.Read)
	}
}

func readPriceDB(ctx context.Context, name string) (*drift.Database, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, usageError(fmt.Errorf("read %s: %w", name, unwrapPathError(err)), "give LiteLLM's model_prices_and_context_window.json, genai-prices provider files or models.dev's api.json")
	}
	defer func() { _ = f.Close() }() // read only: closing it loses nothing
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, usageError(fmt.Errorf("read %s: is a folder, not a price file", name), "give the files themselves, e.g. genai-prices/providers/*.yml")
	}
	db, err := drift.Read(ctx, name, f)
	if err != nil {
		return nil, usageError(err, "")
	}
	return db, nil
}

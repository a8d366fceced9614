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
}

func newTariffsCompareCmd(a *app) *cobra.Command {
	var opts compareOptions
	cmd := &cobra.Command{
		Use:   "compare FILE...",
		Short: "Compare the catalog with LiteLLM's price table or genai-prices files",
		Long: `Compare puts the catalog (or the --tariffs folder) beside other price databases:
LiteLLM's model_prices_and_context_window.json (prices per token, off_peak_pricing
blocks) and genai-prices provider files (prices/providers/*.yml). It maps names,
converts prices to USD per 1M tokens, and lists every model and usage type whose
price differs at --at (default now), models one side lacks (for providers both cover),
and time-of-use rules that differ over the week from --at and on every holiday or
make-up workday either side names. Exit 1 when it finds any difference, 0 when none.`,
		Example: `  tokenfare tariffs compare model_prices_and_context_window.json
  tokenfare tariffs compare genai-prices/prices/providers/deepseek.yml --at 2026-10-12T02:00:00Z -o json
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
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	var dbs []*drift.Database
	for _, name := range opts.files {
		db, err := readPriceDB(ctx, name)
		if err != nil {
			return err
		}
		dbs = append(dbs, db)
	}
	found := drift.Compare(cat, dbs, at)
	if err := reports.Drift(out, format, at, dbs, found); err != nil {
		return err
	}
	if n := len(found); n > 0 {
		return findingsError(fmt.Errorf("%d difference(s) between the catalog and %d file(s)", n, len(dbs)))
	}
	return nil
}

func readPriceDB(ctx context.Context, name string) (*drift.Database, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, usageError(fmt.Errorf("read %s: %w", name, unwrapPathError(err)), "give LiteLLM's model_prices_and_context_window.json or genai-prices provider files")
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, usageError(fmt.Errorf("read %s: is a folder, not a price file", name), "give the files themselves, e.g. genai-prices/providers/*.yml")
	}
	db, err := drift.Read(ctx, name, f)
	if err != nil {
		return nil, usageError(err, "")
	}
	return db, nil
}

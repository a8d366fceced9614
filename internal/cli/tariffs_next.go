package cli

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/reports"
)

type nextOptions struct {
	after  string
	until  string
	output string
}

func newTariffsNextCmd(a *app) *cobra.Command {
	var opts nextOptions
	cmd := &cobra.Command{
		Use:   "next",
		Short: "List the tariff versions that take effect next, with their effective instants",
		Long: `Next lists, for each provider of the catalog (--tariffs, --tariffs-overlay, --price-list
apply), the first version that takes effect after --after (default now), with its effective
instant, the models it prices or retires and its file:line. A version is in force from its
effective instant on, so one effective at --after itself is not listed.

--until bounds the search (inclusive): a scheduled job asks whether a version took effect
since its last run with --after LAST --until NOW, and blends only then (see docs/ci.md).
-o json gives {after, until, versions: [...]}; versions is empty when none is known.`,
		Example: `  tokenfare tariffs next
  tokenfare tariffs next --after 2026-04-20 -o json
  tokenfare tariffs next --after 2026-04-24T13:00:00Z --until 2026-04-24T16:00:00Z -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTariffsNext(cmd, a, &opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.after, "after", "", "list versions taking effect after this instant (RFC 3339 or a date, UTC; default now)")
	f.StringVar(&opts.until, "until", "", "and no later than this instant, inclusive (RFC 3339 or a date, UTC)")
	f.StringVarP(&opts.output, "output", "o", "table", "output format: table, csv, json or yaml")
	completeOutput(cmd, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	return cmd
}

func runTariffsNext(cmd *cobra.Command, a *app, opts *nextOptions) error {
	format, err := parseOutput(opts.output, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	if err != nil {
		return err
	}
	n := &reports.Next{After: a.now().UTC()}
	if opts.after != "" {
		if n.After, err = parseInstantIn("after", opts.after, time.UTC); err != nil {
			return err
		}
	}
	if opts.until != "" {
		if n.Until, err = parseInstantIn("until", opts.until, time.UTC); err != nil {
			return err
		}
		if n.Until.Before(n.After) {
			return usageError(errors.New("--until is before --after"), "give --after LAST --until NOW, in that order")
		}
	}
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	n.Upcoming = cat.Next(n.After, n.Until)
	return reports.TariffsNext(cmd.OutOrStdout(), format, n)
}

package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/tokenfare/tokenfare/reports"
)

type showOptions struct {
	model    string
	at       string
	tz       string
	output   string
	calendar bool
}

func newTariffsShowCmd(a *app) *cobra.Command {
	var opts showOptions
	cmd := &cobra.Command{
		Use:   "show MODEL",
		Short: "Show a model's versions, periods, calendar and the rates in force",
		Long: `Show prints what a model costs: its provider, time zone and billing instant, every
version with the model's status in it, and for the version in force at --at (default now)
the periods with their local windows and the rates per period. It prints --at on the
tariff's local clock and, when that local day is a holiday or a make-up workday, the
calendar's name for it and the weekday whose periods apply. --calendar lists the whole
holiday calendar too. MODEL is a tariff model id or any name a gateway logs it under.`,
		Example: `  tokenfare tariffs show deepseek-flash
  tokenfare tariffs show deepseek-flash --at 2026-10-01T02:00:00Z --calendar
  tokenfare tariffs show deepseek/deepseek-v4-pro --at 2026-09-01T02:00:00Z -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.model = args[0]
			return runTariffsShow(a, cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.at, "at", "", "instant to show the rates of (RFC 3339, or a date: midnight in --tz; default now)")
	cmd.Flags().StringVar(&opts.tz, "tz", "UTC", "IANA time zone a bare --at date is read in")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table or json")
	cmd.Flags().BoolVar(&opts.calendar, "calendar", false, "list every holiday and make-up workday of the calendar")
	completeWith(cmd, "output", "table", "json")
	cmd.ValidArgsFunction = completeModels(a)
	return cmd
}

func runTariffsShow(a *app, out io.Writer, opts showOptions) error {
	cat, err := a.Catalog()
	if err != nil {
		return err
	}
	m, ok := cat.Model(opts.model), true
	if m == nil {
		m, ok = cat.Resolve(opts.model)
	}
	if !ok {
		return usageError(fmt.Errorf("no tariff model is named %q", opts.model), "tokenfare tariffs list")
	}
	at := a.now().UTC()
	if opts.at != "" {
		if at, err = parseInstantTZ("at", opts.at, opts.tz); err != nil {
			return err
		}
	}
	format, err := parseOutput(opts.output, reports.Table, reports.JSON)
	if err != nil {
		return err
	}
	return reports.Tariff(out, format, m, at, opts.calendar)
}

package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/gateway/cliproxy"
	"github.com/tokenfare/tokenfare/gateway/litellm"
	"github.com/tokenfare/tokenfare/reports"
)

type checkOptions struct {
	config          string
	at              string
	output          string
	strict          bool
	maxCooldown     time.Duration
	minAllowedFails int
}

func newCheckCmd(a *app) *cobra.Command {
	var opts checkOptions
	cmd := &cobra.Command{
		Use:   "check --config FILE",
		Short: "Check a LiteLLM or CLIProxyAPI config against the tariffs and for costly gateway settings",
		Long: `Check reads a gateway config (LiteLLM's config.yaml, or CLIProxyAPI's, told apart by its
keys) and reports one finding per problem, with the entry's model_name, file:line, field,
value and bound. For CI: exit 0 clean, 1 findings, 2 unreadable config.

LiteLLM, against the tariff versions in force at --at (default now):
  price-bounds        a price outside [lowest, highest] of its usage type
  zero-price          a price of 0 on a metered model
  no-custom-price     a time-of-use model with no custom price (the built-in table decides)
  inconsistent-price  entries of one tariff model carrying different prices for one key
  off-peak-block      an off_peak_pricing block that does not match the tariff
  price-format        a price PyYAML reads as a string (3e-7 has no dot: write 3.0e-7)
  health-check        background health checks on a metered deployment (each probe is paid)
  cooldown            cooldown_time above --max-cooldown or allowed_fails below
                      --min-allowed-fails for a group with one deployment and no fallback
  untariffed          an entry whose model no tariff prices (a warning unless --strict)
CLIProxyAPI:
  single-key-cooling  a provider with one API key and cooling on`,
		Example: `  tokenfare check --config litellm.yaml
  tokenfare check --config litellm.yaml --at 2026-12-01 -o json
  tokenfare check --config cliproxy.yaml --strict`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCheck(cmd, a, &opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.config, "config", "", "gateway config to check (LiteLLM or CLIProxyAPI config.yaml)")
	f.StringVar(&opts.at, "at", "", "instant whose tariffs prices are held against (RFC 3339 or date; default now)")
	f.StringVarP(&opts.output, "output", "o", "table", "output format: table or json")
	f.BoolVar(&opts.strict, "strict", false, "entries of models with no tariff are findings, not warnings")
	f.DurationVar(&opts.maxCooldown, "max-cooldown", 15*time.Second, "longest router cooldown_time for a lone deployment")
	f.IntVar(&opts.minAllowedFails, "min-allowed-fails", 3, "fewest router allowed_fails for a lone deployment")
	cmd.MarkFlagFilename("config", "yaml", "yml")
	completeOutput(cmd, reports.Table, reports.JSON)
	return cmd
}

func runCheck(cmd *cobra.Command, a *app, opts *checkOptions) error {
	format, err := parseOutput(opts.output, reports.Table, reports.JSON)
	if err != nil {
		return err
	}
	if opts.config == "" {
		return usageError(errors.New("--config FILE is required"), "tokenfare check --config litellm.yaml")
	}
	at := a.now().UTC()
	if opts.at != "" {
		if at, err = parseInstantIn("at", opts.at, time.UTC); err != nil {
			return err
		}
	}
	data, err := os.ReadFile(opts.config)
	if err != nil {
		return usageError(fmt.Errorf("read config: %w", err), "")
	}
	res := &reports.Check{File: opts.config, At: at}
	if cliproxy.Detect(data) {
		res.Gateway = "cliproxy"
		if res.Findings, err = cliproxy.Check(opts.config, data); err != nil {
			return usageError(fmt.Errorf("read config: %w", err), "")
		}
	} else {
		res.Gateway = "litellm"
		cfg, err := litellm.Parse(opts.config, data)
		if err != nil {
			return usageError(fmt.Errorf("read config: %w", err), "fix the YAML at that line")
		}
		cat, err := a.Catalog()
		if err != nil {
			return err
		}
		res.Findings = cfg.Check(litellm.CheckOptions{Catalog: cat, At: at, MaxCooldown: opts.maxCooldown,
			MinAllowedFails: opts.minAllowedFails, Strict: opts.strict})
	}
	if err := reports.Findings(cmd.OutOrStdout(), format, res); err != nil {
		return err
	}
	if problems, _ := res.Counts(); problems > 0 {
		return findingsError(errors.New(""))
	}
	return nil
}

package cli

import (
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/spf13/cobra"
	"github.com/tokenfare/tokenfare/gateway"
	"github.com/tokenfare/tokenfare/gateway/cliproxy"
	"github.com/tokenfare/tokenfare/gateway/litellm"
	"github.com/tokenfare/tokenfare/internal/yamlin"
	"github.com/tokenfare/tokenfare/reports"
)

type checkOptions struct {
	config          string
	at              string
	output          string
	strict          bool
	maxCooldown     time.Duration
	minAllowedFails int
	minRateRetries  int
	private         []string
	privateDomains  []string
	poolKeys        int
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
  health-check        background health checks on a metered deployment (each probe is paid): priced by a
                      tariff, by the config itself, or served by a host a tariff prices
  cooldown            cooldown_time above --max-cooldown or allowed_fails below
                      --min-allowed-fails for a group with one deployment and no fallback
  rate-limit-retry    a group whose 429s get fewer than --min-rate-limit-retries retries
  private-fallback    a fallback of any kind, at any hop, from a --private group to a public one
  private-alias       an alias between a public name and a --private group
  private-address     a --private deployment not on a private address or --private-domain host
  untariffed          an entry whose model no tariff prices (a warning unless --strict)
Router settings are read where LiteLLM reads them (router_settings, litellm_settings, a
deployment's litellm_params or model_info), so moving a key does not pass a rule.
CLIProxyAPI:
  single-key-cooling  a provider with fewer than --pool-keys API keys and cooling on
  global-cooling-off  disable-cooling: true globally while a provider holds --pool-keys keys or more
Either gateway:
  accept              a # tokenfare:accept comment naming no rule or no reason, or accepting nothing

A comment in the config accepts a rule for one line or one entry, with a reason:
"# tokenfare:accept health-check probes are free on our contract" after a value covers
its line; alone on a line, the next line and, when that opens a block (a model_list
entry), the whole block. An accepted finding is listed as accepted and does not fail the
check; a comment naming no rule or no reason is a finding, one accepting nothing a warning
(rule accept). See docs/ci.md.`,
		Example: `  tokenfare check --config litellm.yaml
  tokenfare check --config litellm.yaml --at 2026-12-01 -o json
  tokenfare check --config cliproxy.yaml --strict
  tokenfare check --config litellm.yaml --private 'private/*' --private-domain corp.internal`,
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
	f.IntVar(&opts.minRateRetries, "min-rate-limit-retries", 1, "fewest retries a model group gives a rate-limit error (429)")
	f.StringArrayVar(&opts.private, "private", []string{"private/*"}, "glob of the private model groups, * also matching \"/\" (repeatable)")
	f.StringArrayVar(&opts.privateDomains, "private-domain", nil, "DNS domain whose hosts are private addresses (repeatable)")
	f.IntVar(&opts.poolKeys, "pool-keys", 2, "CLIProxyAPI: fewest API keys that make a provider's cooldown its key rotation")
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
	for _, p := range opts.private {
		if _, err := path.Match(p, ""); err != nil {
			return usageError(fmt.Errorf("--private %q is not a glob: %w", p, err), "tokenfare check --config litellm.yaml --private 'private/*'")
		}
	}
	if opts.poolKeys < 2 {
		return usageError(fmt.Errorf("--pool-keys %d: a pool holds two keys or more", opts.poolKeys), "")
	}
	at := a.now().UTC()
	if opts.at != "" {
		if at, err = parseInstantIn("at", opts.at, time.UTC); err != nil {
			return err
		}
	}
	data, err := yamlin.ReadFile(opts.config)
	if err != nil {
		return usageError(fmt.Errorf("read config: %w", err), "")
	}
	res := &reports.Check{File: opts.config, At: at}
	rules := litellm.Rules()
	if cliproxy.Detect(data) {
		res.Gateway, rules = "cliproxy", cliproxy.Rules()
		if res.Findings, err = cliproxy.Check(opts.config, data, cliproxy.Options{PoolKeys: opts.poolKeys}); err != nil {
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
			MinAllowedFails: opts.minAllowedFails, Strict: opts.strict, MinRateLimitRetries: opts.minRateRetries,
			Private: opts.private, PrivateDomains: opts.privateDomains})
	}
	res.Findings = gateway.Accept(opts.config, data, res.Findings, rules)
	if err := reports.Findings(cmd.OutOrStdout(), format, res); err != nil {
		return err
	}
	if problems, _ := res.Counts(); problems > 0 {
		return findingsError(errors.New(""))
	}
	return nil
}

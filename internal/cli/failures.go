package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/failures"
	"github.com/tokenfare/tokenfare/gateway/cliproxy"
	"github.com/tokenfare/tokenfare/gateway/litellm"
	"github.com/tokenfare/tokenfare/internal/yamlin"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
)

type failuresOptions struct {
	source    sourceOptions
	config    string
	accessLog []string
	logTZ     string
	fastMs    int
	fast      time.Duration // --fast, the older spelling of --fast-ms
	output    string
}

func newFailuresCmd(a *app) *cobra.Command {
	var opts failuresOptions
	cmd := &cobra.Command{
		Use:   "failures (--calls FILE | --db URL | --access-log LOG)",
		Short: "Tell failed calls apart: reached the provider, or refused by the gateway itself",
		Long: `Failures classifies every failed call: upstream (a provider answered with an error; it may
be billed), gateway (the gateway refused it without calling a provider: a cooldown, no
credential or deployment left, a budget or rate limit set in the gateway) or unknown. It
shows them by gateway, provider, model group and key, with the spend recorded on them and,
where the tariff says the provider bills failed calls, their official cost.

It finds the episodes: runs of gateway refusals for one provider or model group that
follow an upstream failure there within the gateway's rest (CLIProxyAPI: one minute;
LiteLLM: cooldown_time). With --config (the LiteLLM or CLIProxyAPI config that
tokenfare check reads) each episode says how many keys or deployments serve it.

CLIProxyAPI writes no usage record for a request it refuses itself: give its log
(main.log, or the server's standard error) with --access-log to count those refusals.
Latency is evidence: a failed request line below --fast-ms (100) is the gateway's own
refusal, one at or above it reached the provider (upstream, by latency), so the request
lines alone tell the episodes, with usage statistics off (CLIProxyAPI's default) and no
warn-level line. They cannot tell which provider rested: with --config, the config's only
provider that holds one key with cooling on is named. The log's wall times carry no zone:
--log-tz (default --tz) says which.

Each provider or model group with episodes gets one fix, in check's words: one key,
disable-cooling: true on that provider's block (never globally); two or more, leave the
cooldown (it is the rotation). Each cause gets its own advice (410 retired model, 429
quota, 401/403 credential, 5xx), LiteLLM's "No deployments available" is split by cause,
and each hour with refusals shows their share of its requests.`,
		Example: `  tokenfare failures --calls usage-queue.jsonl --access-log main.log --config cliproxy.yaml
  tokenfare failures --access-log 'logs/main*.log' --log-tz Asia/Shanghai --config cliproxy.yaml
  tokenfare failures --access-log main.log --fast-ms 50 -o json
  tokenfare failures --calls spendlogs.json --config litellm.yaml -o json
  tokenfare failures --db "$DATABASE_URL" --month 2026-10 --tz Asia/Shanghai`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runFailures(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	opts.source.addWindowFlags(cmd.Flags())
	cmd.Flags().StringVar(&opts.config, "config", "", "the gateway's config (LiteLLM or CLIProxyAPI, as tokenfare check reads it): how many keys or deployments serve each episode")
	cmd.Flags().StringArrayVar(&opts.accessLog, "access-log", nil, "CLIProxyAPI log with its request lines (repeatable, globs): the refusals no usage record shows")
	cmd.Flags().StringVar(&opts.logTZ, "log-tz", "", "IANA time zone of the access log's wall times (default --tz)")
	cmd.Flags().IntVar(&opts.fastMs, "fast-ms", int(failures.DefaultFast.Milliseconds()),
		"milliseconds below which a failed request line nothing else tells was refused by the gateway; at or above, it reached the provider (upstream, by latency)")
	cmd.Flags().DurationVar(&opts.fast, "fast", 0, "the same threshold as a duration")
	_ = cmd.Flags().MarkDeprecated("fast", "use --fast-ms")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table, csv or json")
	completeSource(cmd)
	completeOutput(cmd, reports.Table, reports.CSV, reports.JSON)
	return cmd
}

func runFailures(cmd *cobra.Command, a *app, opts *failuresOptions) error {
	format, err := parseOutput(opts.output, reports.Table, reports.CSV, reports.JSON)
	if err != nil {
		return err
	}
	fast, err := opts.fastThreshold(cmd)
	if err != nil {
		return err
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	fopts := failures.Options{Fast: fast, Since: eopts.Since, Until: eopts.Until}
	if opts.config != "" {
		if fopts.Config, err = readFailureConfig(opts.config); err != nil {
			return err
		}
	}
	if fopts.Zone, err = loadZone(opts.zone()); err != nil {
		return err
	}
	a.defaultDB(&opts.source)
	records := len(opts.source.calls) > 0 || len(opts.source.dbs) > 0 || len(opts.accessLog) == 0
	// Without records the access lines are decided as they are read.
	fopts.AccessOnly = !records
	an := failures.New(fopts)
	if err := a.readAccessLogs(cmd, opts, an); err != nil {
		return err
	}
	var rows pricing.Rows
	if records {
		// Rows one by one: the analyzer sees every call.
		e, err := a.priceSource(cmd.Context(), &opts.source, eopts, an)
		var xe *exitError
		if errors.As(err, &xe) && xe.code == exitFindings && e != nil && (e.Rows().Failed > 0 || len(opts.accessLog) > 0) {
			err = nil // nothing priced, but failures to show
		}
		if err != nil {
			return err
		}
		rows = e.Rows()
	}
	return reports.Failures(cmd.OutOrStdout(), format, &reports.FailureReport{Rows: rows, Result: an.Result()})
}

// zone is --log-tz, else --tz: where the access log's wall times, and
// the dates of episodes, are read.
func (o *failuresOptions) zone() string {
	if o.logTZ != "" {
		return o.logTZ
	}
	return o.source.tz
}

// fastThreshold is --fast-ms, or --fast when given.
func (o *failuresOptions) fastThreshold(cmd *cobra.Command) (time.Duration, error) {
	if cmd.Flags().Changed("fast") {
		if o.fast <= 0 {
			return 0, usageError(fmt.Errorf("--fast %s: a latency is above zero", o.fast), "write e.g. --fast-ms 100")
		}
		return o.fast, nil
	}
	if o.fastMs <= 0 {
		return 0, usageError(fmt.Errorf("--fast-ms %d: a latency is above zero", o.fastMs), "write e.g. --fast-ms 100")
	}
	return time.Duration(o.fastMs) * time.Millisecond, nil
}

// readAccessLogs gives the analyzer the request lines of every
// --access-log file, reporting each rejected line on stderr.
func (a *app) readAccessLogs(cmd *cobra.Command, opts *failuresOptions, an *failures.Analyzer) error {
	if len(opts.accessLog) == 0 {
		return nil
	}
	loc, err := loadZone(opts.zone())
	if err != nil {
		return err
	}
	defer func() {
		if n := an.Late(); n > 0 {
			fmt.Fprintf(a.stderr, "warning: %d access line(s) logged more than %s before a line read earlier: counted, but an episode they belong to may be missed; give the logs oldest first\n", n, failures.Lag)
		}
	}()
	for _, arg := range opts.accessLog {
		paths, err := filepath.Glob(arg)
		if err != nil || len(paths) == 0 {
			return usageError(fmt.Errorf("--access-log %s: no such file", arg), "")
		}
		for _, p := range paths {
			f, err := os.Open(p)
			if err != nil {
				return usageError(fmt.Errorf("--access-log: %w", err), "")
			}
			rows, err := ledger.ReadAccessLog(cmd.Context(), p, f, loc, func(l *ledger.AccessLine) error {
				an.AddAccess(l)
				return nil
			})
			_ = f.Close() // read only: closing it loses nothing
			for _, r := range rows.Rejected {
				fmt.Fprintf(a.stderr, "rejected: %s: %s\n", r.Where(), r.Reason)
			}
			if err != nil {
				return err
			}
			if opts.source.strict && len(rows.Rejected) > 0 {
				r := rows.Rejected[0]
				return usageError(fmt.Errorf("read access log: %s: %s", r.Where(), r.Reason), "fix the line, or drop --strict to count rejected lines and go on")
			}
			fmt.Fprintf(a.stderr, "%s: cliproxy-access-log: %d request line(s), %d upstream failure line(s), %d other log line(s), %d rejected\n",
				p, rows.Requests, rows.Upstream, rows.Other, len(rows.Rejected))
		}
	}
	return nil
}

// readFailureConfig summarises a gateway config for episodes, with the
// loaders tokenfare check uses.
func readFailureConfig(file string) (*failures.Config, error) {
	data, err := yamlin.ReadFile(file)
	if err != nil {
		return nil, usageError(fmt.Errorf("read config: %w", err), "")
	}
	if cliproxy.Detect(data) {
		pools, rest, err := cliproxy.Pools(file, data)
		if err != nil {
			return nil, usageError(fmt.Errorf("read config: %w", err), "")
		}
		cfg := &failures.Config{File: file, Gateway: ledger.CLIProxy, Cooldown: rest, Rule: cliproxy.RuleSingleKeyCooling}
		for _, p := range pools {
			cfg.Pools = append(cfg.Pools, failures.Pool{Name: p.Name, Keys: p.Keys, Cooling: p.Cooling, Line: p.Line, Field: p.Field,
				CoolingField: p.CoolingField})
		}
		return cfg, nil
	}
	c, err := litellm.Parse(file, data)
	if err != nil {
		return nil, usageError(fmt.Errorf("read config: %w", err), "fix the YAML at that line")
	}
	if len(c.Entries) == 0 {
		return nil, usageError(errors.New("read config: "+file+" is neither a CLIProxyAPI config nor a LiteLLM one with a model_list"), "")
	}
	cfg := &failures.Config{File: file, Gateway: ledger.LiteLLM, Rule: litellm.RuleCooldown}
	cfg.Cooldown, _ = c.CooldownTime()
	cfg.AllowedFails, cfg.AllowedFailsSet = c.AllowedFails()
	for _, g := range c.Groups() {
		cfg.Pools = append(cfg.Pools, failures.Pool{Name: g.Name, Keys: g.Deployments, Cooling: g.Cooling, Line: g.Line, Field: "model_list"})
	}
	return cfg, nil
}

// tallied has the run count its failed calls by class, and returns the
// tally.
func tallied(src *sourceOptions) *failures.Tally {
	src.tally = &failures.Tally{}
	return src.tally
}

// failedObserver is t as a run's observer of failed calls; nil for none
// (a nil *Tally in the interface would not be nil).
func failedObserver(t *failures.Tally) pricing.Observer {
	if t == nil {
		return nil
	}
	return t
}

// failedSplit is the run's failed calls by class, for the reports.
func failedSplit(t *failures.Tally, rows pricing.Rows) *pricing.FailedSplit {
	u, g, k := t.Split(rows.Failed)
	return &pricing.FailedSplit{Upstream: u, Gateway: g, Unknown: k}
}

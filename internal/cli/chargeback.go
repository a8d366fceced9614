package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
)

type chargebackOptions struct {
	source  sourceOptions
	by      string
	key     string
	team    string
	user    string
	exclude []string // keys left out, by alias or hash
	output  string
	budget  int // buckets held before groups spill to disk (hidden, for tests); 0: the default
}

func newChargebackCmd(a *app) *cobra.Command {
	var opts chargebackOptions
	cmd := &cobra.Command{
		Use:   "chargeback (--calls FILE | --db URL) (--month M | --since T --until T)",
		Short: "Per key, team or user: official cost, recorded spend, peak share and who a blend subsidises",
		Long: `Chargeback prices a period's calls at the official tariff and splits them by key (its
alias when known, else its hash), team, user or model (--by). For each it shows calls,
tokens by usage type, the official cost, the spend the gateway recorded and the
difference, its peak share (the share of its tokens billed in the dearest period)
against the gateway's, what it would be charged at the gateway's blended prices and the
subsidy that implies (at blended − official: positive pays for others, negative is paid
for), and its reasoning-token share of output (high where reasoning was meant to be off).

Months and bare dates are read in --tz. The blend is always the whole gateway's: --key,
--team and --user only choose the lines shown (each implies grouping by it); a filter
that matches no line is a finding (exit 1). --exclude-key leaves a key's calls out of
the lines, the gateway line and the blend, and sums them on a line of their own.`,
		Example: `  tokenfare chargeback --calls testdata/sample/spendlogs-2026-10.csv --month 2026-10
  tokenfare chargeback --db "$DATABASE_URL" --month 2026-09 --tz Asia/Shanghai --by team -o csv
  tokenfare chargeback --db postgres://ro@far-away/litellm --month 2026-09 --push-down   # sums cross the link, not rows
  tokenfare chargeback --db postgres://ro@eu/litellm --db postgres://ro@us/litellm --since 2026-09-01 --until 2026-09-15 --key search-prod -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runChargeback(cmd, a, &opts)
		},
	}
	opts.source.addFlags(cmd.Flags())
	opts.source.addWindowFlags(cmd.Flags())
	fs := cmd.Flags()
	fs.StringVar(&opts.by, "by", "key", "groupings, comma-separated: key, team, user, model, host, tag, meta:FIELD, day")
	fs.StringVar(&opts.key, "key", "", "only the key with this alias or hash")
	fs.StringVar(&opts.team, "team", "", "only this team")
	fs.StringVar(&opts.user, "user", "", "only this user")
	fs.StringArrayVar(&opts.exclude, "exclude-key", nil, "leave out the calls of the key with this alias or hash, e.g. a customer's own (BYOK) or a test key (repeatable)")
	fs.StringVarP(&opts.output, "output", "o", "table", "output format: table, csv, json or yaml")
	fs.IntVar(&opts.budget, "group-budget", 0, "buckets held before groups spill to disk")
	fs.MarkHidden("group-budget")
	completeSource(cmd)
	completeWith(cmd, "output", "table", "csv", "json", "yaml")
	completeWith(cmd, "by", "key", "team", "user", "model", "day")
	return cmd
}

func runChargeback(cmd *cobra.Command, a *app, opts *chargebackOptions) error {
	format, err := parseOutput(opts.output, reports.Table, reports.CSV, reports.JSON, reports.YAML)
	if err != nil {
		return err
	}
	eopts, err := opts.source.periodOptions("charge back")
	if err != nil {
		return err
	}
	if eopts.Dims, eopts.MetaField, err = opts.dims(); err != nil {
		return err
	}
	// The calls of the keys left out are kept apart as they are read, so
	// that the lines, the gateway line and the blend can spill without them.
	found := map[string]bool{}
	if len(opts.exclude) > 0 {
		eopts.Apart = func(key, alias string) bool {
			name, ok := opts.excluded(key, alias)
			if ok {
				found[name] = true
			}
			return ok
		}
	}
	eopts.Runs, eopts.MaxGroups, eopts.Outputs = tempRuns, opts.budget, pricing.OutputGroups|pricing.OutputChargeback
	e, err := a.priceSource(cmd.Context(), &opts.source, eopts)
	if e != nil {
		// Its spilled runs, on the paths that end before the chargeback
		// holds them: a folder it cannot remove is swept by a later run once
		// this process is gone (internal/spillfs). Closing twice is nothing.
		defer func() { _ = e.Close() }()
	}
	if err != nil {
		return err
	}
	cb, err := chargeback(e, opts, eopts, found)
	if err != nil {
		return err
	}
	defer func() { _ = cb.Close() }() // the runs its lines stream from, if they do
	_ = e.Close()                     // the chargeback holds what it reads
	return reports.Chargeback(cmd.OutOrStdout(), format, cb)
}

// chargeback is the chargeback of e's period, with the line of the keys
// left out; a filter that matches no line is a finding.
func chargeback(e *pricing.Engine, opts *chargebackOptions, eopts pricing.Options, found map[string]bool) (*pricing.Chargeback, error) {
	var excluded *pricing.Engine
	if len(opts.exclude) > 0 {
		excluded = e.TakeApart()
		if missing := missingNames(opts.exclude, found); len(missing) > 0 {
			return nil, findingsError(fmt.Errorf("--exclude-key %s: no key of the period has that alias or hash", strings.Join(missing, ", ")))
		}
	}
	cb, err := e.Chargeback(eopts.Since, eopts.Until, opts.keep)
	if err != nil {
		return nil, err
	}
	if excluded != nil {
		l := excluded.Line()
		cb.Excluded = &l
	}
	if cb.Len() == 0 && opts.filtered() {
		_ = cb.Close() // no line: nothing streams
		n, err := countGroups(e.Reconcile())
		if err != nil {
			return nil, err
		}
		return nil, &exitError{code: exitFindings, err: fmt.Errorf("no line matches %s among the %d line(s) of the period", opts.filters(), n),
			hint: "check the spelling; tokenfare chargeback without the filter lists them"}
	}
	return cb, nil
}

// countGroups counts a reconciliation's groups, listed or streamed, and
// closes it.
func countGroups(rec *pricing.Reconciliation) (int, error) {
	defer func() { _ = rec.Close() }() // read only: closing it loses nothing
	n := 0
	for _, err := range rec.Groups() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// excluded matches a call of a key --exclude-key names, by its hash or
// the alias the call was logged with.
func (o *chargebackOptions) excluded(key, alias string) (string, bool) {
	for _, x := range o.exclude {
		if x == key || (alias != "" && x == alias) {
			return x, true
		}
	}
	return "", false
}

// missingNames returns the names of want not in got.
func missingNames(want []string, got map[string]bool) []string {
	var out []string
	for _, w := range want {
		if !got[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// filtered reports whether --key, --team or --user choose the lines.
func (o *chargebackOptions) filtered() bool { return o.key != "" || o.team != "" || o.user != "" }

// filters names the filters given, e.g. `--key "search-cn-prd"`.
func (o *chargebackOptions) filters() string {
	var out []string
	for _, f := range []struct{ flag, v string }{{"--key", o.key}, {"--team", o.team}, {"--user", o.user}} {
		if f.v != "" {
			out = append(out, fmt.Sprintf("%s %q", f.flag, f.v))
		}
	}
	return strings.Join(out, " ")
}

// dims reads --by, adding the dimensions the filters need, and the
// field of meta:FIELD.
func (o *chargebackOptions) dims() ([]pricing.Dim, string, error) {
	dims, field, err := pricing.ParseDims(o.by)
	if err != nil {
		return nil, "", usageError(fmt.Errorf("--by: %w", err), "")
	}
	for _, d := range dims {
		switch d {
		case pricing.DimKey, pricing.DimTeam, pricing.DimUser, pricing.DimModel, pricing.DimHost, pricing.DimTag, pricing.DimMeta, pricing.DimDay:
		default:
			return nil, "", usageError(fmt.Errorf("--by: chargeback groups by key, team, user, model, host, tag, meta:FIELD and day, not %s", d), "")
		}
	}
	for _, f := range []struct {
		on bool
		d  pricing.Dim
	}{{o.key != "", pricing.DimKey}, {o.team != "", pricing.DimTeam}, {o.user != "", pricing.DimUser}} {
		if f.on && !hasDim(dims, f.d) {
			dims = append(dims, f.d)
		}
	}
	return dims, field, nil
}

// keep applies --key, --team and --user.
func (o *chargebackOptions) keep(l *pricing.ChargebackLine) bool {
	return (o.key == "" || l.Key.Key == o.key || l.KeyAlias == o.key) &&
		(o.team == "" || l.Key.Team == o.team) && (o.user == "" || l.Key.User == o.user)
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tokenfare/tokenfare/failures"
	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/postgres"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
	"github.com/tokenfare/tokenfare/tariffs"
)

// sourceOptions are the flags every command that reads calls shares.
type sourceOptions struct {
	calls []string
	dbs   []string
	rows  bool
	// pushDown asks the databases to sum where the run would read rows.
	pushDown bool
	strict   bool
	billing  string
	tz       string
	since    string
	until    string
	month    string
	// asOfHint says the window comes from --as-of and --window (blend),
	// for the advice given when no call falls in it.
	asOfHint bool
	// tally, when set, counts the run's failed calls by class, summed in
	// the database or not.
	tally *failures.Tally
	// compareDaily asks the run to compare each database's daily table
	// with its spend logs; daily holds what it found.
	compareDaily bool
	daily        []*ledger.DailyComparison
}

func (o *sourceOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.calls, "calls", nil, "file of logged calls; repeat it or give a glob ('logs/*.csv') for several; format detected from each file's content (.gz read as is; - for stdin)")
	fs.StringArrayVar(&o.dbs, "db", nil, "LiteLLM's PostgreSQL URL, read-only (repeatable: databases are merged; default $DATABASE_URL)")
	fs.BoolVar(&o.rows, "rows", false, "read database rows one by one, even from a distributed database (Citus) that sums faster (finds calls logged in two databases)")
	fs.BoolVar(&o.pushDown, "push-down", false, "have the database sum the calls per group even where reading its rows is faster (one PostgreSQL); rows where the sums cannot be exact")
	fs.BoolVar(&o.strict, "strict", false, "fail at the first rejected row (exit 2) instead of counting it")
	fs.StringVar(&o.billing, "billing-time", "", "instant that bills a call, overriding each tariff: start, first_token or end (a call without that instant is billed at its start)")
	fs.StringVar(&o.tz, "tz", "UTC", "IANA time zone that bare dates and --month are read in (and days and hours are grouped in)")
}

func (o *sourceOptions) addWindowFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.since, "since", "", "price calls billed at or after this instant (RFC 3339, or a date: midnight in --tz)")
	fs.StringVar(&o.until, "until", "", "price calls billed before this instant (RFC 3339, or a date: midnight in --tz)")
	fs.StringVar(&o.month, "month", "", "price the calls billed in this month of --tz, e.g. 2026-10 (= --since 2026-10-01 --until 2026-11-01)")
}

// periodOptions is engineOptions for a command that needs a whole
// period, --month or both --since and --until; what names the command's
// work in the error ("no period to weigh").
func (o *sourceOptions) periodOptions(what string) (pricing.Options, error) {
	eopts, err := o.engineOptions()
	if err == nil && (eopts.Since.IsZero() || eopts.Until.IsZero()) {
		err = usageError(errors.New("no period to "+what), "give --month 2026-09, or --since and --until")
	}
	return eopts, err
}

// engineOptions turns the source flags into pricing options.
func (o *sourceOptions) engineOptions() (pricing.Options, error) {
	var opts pricing.Options
	if o.billing != "" {
		b, err := tariffs.ParseBillingTime(o.billing)
		if err != nil {
			return opts, usageError(fmt.Errorf("--billing-time: %w", err), "")
		}
		opts.Billing = &b
	}
	var err error
	if opts.Zone, err = loadZone(o.tz); err != nil {
		return opts, err
	}
	if o.month != "" {
		if o.since != "" || o.until != "" {
			return opts, usageError(errors.New("--month is given with --since or --until"), "give either --month or --since/--until")
		}
		opts.Since, opts.Until, err = parseMonth(o.month, opts.Zone)
		return opts, err
	}
	if o.since != "" {
		if opts.Since, err = parseInstantIn("since", o.since, opts.Zone); err != nil {
			return opts, err
		}
	}
	if o.until != "" {
		if opts.Until, err = parseInstantIn("until", o.until, opts.Zone); err != nil {
			return opts, err
		}
	}
	if !opts.Since.IsZero() && !opts.Until.IsZero() && !opts.Since.Before(opts.Until) {
		return opts, usageError(fmt.Errorf("--since %s is not before --until %s", o.since, o.until), "")
	}
	return opts, nil
}

// priceSource prices every call of the sources (internal/run) and tells on
// stderr the rejected rows, each file's accounting and notes. observers
// see every call with its pricing (for per-call output); an observer's
// error ends the run and is returned as it is. A run that prices no call
// returns the engine and a findings error saying why.
func (a *app) priceSource(ctx context.Context, src *sourceOptions, opts pricing.Options, observers ...pricing.Observer) (*pricing.Engine, error) {
	res, err := a.runSource(ctx, src, run.Input{Options: opts, Observers: observers})
	if res == nil {
		return nil, err
	}
	return res.Engine, err
}

// runSource is priceSource of a run's input (its options, observers and
// month): it returns the run's result, with the engine to close.
func (a *app) runSource(ctx context.Context, src *sourceOptions, in run.Input) (*run.Result, error) {
	cat, err := a.Catalog()
	if err != nil {
		return nil, err
	}
	a.defaultDB(src)
	// A run has its files read without the holders (key and alias, team,
	// user) its engine does not read, unless an observer might: up to four
	// columns a row fewer to intern. The failed calls' tally reads their
	// failures alone.
	lopts := ledger.Options{SkipHolders: ledger.AllHolders &^ in.Options.HoldersRead()}
	if len(in.Observers) > 0 || in.Month != nil && in.Month.Observes() {
		lopts.SkipHolders = 0
	}
	sources, err := a.sourcesWith(src.calls, src.dbs, in.Options, lopts)
	if err != nil {
		return nil, err
	}
	if src.rows && src.pushDown {
		return nil, usageError(errors.New("--rows and --push-down are given together"), "give one: --rows reads rows, --push-down sums in the database")
	}
	in.Catalog, in.Sources, in.Strict, in.Rows, in.PushDown = cat, sources, src.strict, src.rows, src.pushDown
	in.OnChoice = a.noteChoice
	in.FailedCalls, in.Progress, in.CompareDaily = failedObserver(src.tally), a.progress, src.compareDaily
	in.OnRejected = func(rej ledger.Rejection) { fmt.Fprintf(a.stderr, "rejected: %v\n", rej) }
	in.OnRowsInstead = func(why error) {
		fmt.Fprintf(a.stderr, "note: summing in the database is not exact here (%v); reading rows instead\n", why)
	}
	res, err := run.Run(ctx, in)
	if res == nil {
		return nil, runError(err)
	}
	a.reportRun(res)
	src.daily = a.dailyOf(res.Daily)
	var np *run.NothingPricedError
	if errors.As(err, &np) {
		return res, nothingPriced(np, src.asOfHint, res.Engine.UnpricedCalls())
	}
	return res, err
}

// noteChoice tells on stderr how the run chose to read the databases.
func (a *app) noteChoice(c run.Choice) {
	if c.PushDown {
		fmt.Fprintf(a.stderr, "note: summing in the database: %s is distributed (Citus), its workers sum at once (--rows reads rows)\n", c.Distributed)
		return
	}
	fmt.Fprintln(a.stderr, "note: reading the database's rows: one PostgreSQL sends them faster than it sums them (--push-down sums there)")
}

// dailyOf returns the daily comparisons a run made, telling on stderr
// those that failed: the run's figures stand without them.
func (a *app) dailyOf(rs []run.DailyResult) []*ledger.DailyComparison {
	var out []*ledger.DailyComparison
	for _, r := range rs {
		if r.Err != nil {
			fmt.Fprintf(a.stderr, "warning: %s: the daily table was not compared with the spend logs: %v\n", r.Source, r.Err)
			continue
		}
		out = append(out, r.Comparison)
	}
	return out
}

// runError gives a failed run's error its exit code and hint.
func runError(err error) error {
	var (
		re  *run.ReadError
		de  *run.DatabaseError
		rej *run.RejectedError
	)
	switch {
	case errors.As(err, &rej): // first: a refresh's reader ends with it (a *run.ReadError)
		return usageError(fmt.Errorf("read calls: %v", rej.Rejection), "fix the row, or drop --strict to count rejected rows and go on")
	case errors.As(err, &re):
		return sourceError(re.Err)
	case errors.As(err, &de):
		return dbError(de.Err)
	case errors.Is(err, pricing.ErrTokenSum):
		return usageError(err, "the input holds implausible token counts; check the rows near the one named")
	}
	return err
}

// reportRun tells on stderr what a run met: rejected rows, each file's
// accounting, and notes on what was priced.
func (a *app) reportRun(res *run.Result) {
	a.reportRows(res.Engine.Rows(), res.Unlisted)
	if len(res.PushedDown) > 0 {
		// Summed in the database: no per-file lines, and the notes on
		// unpriced quantities and first-token times are row mode's.
		a.reportFolded(res)
		a.reportCalendarGaps(res.CalendarGaps)
		a.reportUnpricedCalls(res.Engine.UnpricedCalls())
		return
	}
	a.reportSources(res.Sources)
	a.reportFolded(res)
	a.reportCalendarGaps(res.CalendarGaps)
	a.reportUnpriced(res.Unpriced)
	a.reportUnpricedCalls(res.Engine.UnpricedCalls())
	if n := res.Uncompared; n > 0 {
		fmt.Fprintf(a.stderr, "note: %d repeated call(s) were read too long after their first copy to compare their model, tokens and spend with it; each counts once, as its first copy\n", n)
	}
	if n := res.FirstTokenFallbacks; n > 0 {
		fmt.Fprintf(a.stderr, "note: %d call(s) billed at the first token have no first-token time; they are billed at their start\n", n)
	}
}

// reportUnpriced notes on stderr the quantities priced calls carry that
// their tariffs do not price (docs/tariffs.md "Unpriced quantities"), in
// one line: they are never taken as free without a word.
func (a *app) reportUnpriced(us []pricing.UnpricedQuantity) {
	if len(us) == 0 {
		return
	}
	parts := make([]string, 0, len(us))
	for i := range us {
		u := &us[i]
		unit := "calls"
		if u.Kind == pricing.UnpricedUsage {
			unit = "tokens"
			if !u.Usage.IsToken() {
				unit = "uses"
			}
		}
		parts = append(parts, fmt.Sprintf("%s %s %d %s", u.Model, u.What(), u.Quantity, unit))
	}
	const most = 6
	more := ""
	if len(parts) > most {
		more = fmt.Sprintf(" and %d more", len(parts)-most)
		parts = parts[:most]
	}
	fmt.Fprintf(a.stderr, "note: quantities the tariffs do not price (not in the official cost; a tier or region is priced at the standard rates): %s%s\n",
		strings.Join(parts, "; "), more)
}

// reportUnpricedCalls notes on stderr, a line each, the models whose calls
// have no price: the calls, the spend recorded, why, and what would price
// them, whatever the output (a CSV names none of it).
func (a *app) reportUnpricedCalls(us []pricing.UnpricedCalls) {
	const most = 10
	for i := range us {
		if i == most {
			fmt.Fprintf(a.stderr, "note: %d more model(s) without a price: reconcile -o json lists them all (unpriced)\n", len(us)-most)
			return
		}
		u := &us[i]
		fmt.Fprintf(a.stderr, "note: no price (%s): %s\n  try: %s\n", u.Cause, u.Detail(), u.Hint())
	}
}

// reportFolded notes on stderr the calls beyond the engine's budget of
// names or groups (docs/scale.md): still counted and priced, under
// "(other ...)" groups.
func (a *app) reportFolded(res *run.Result) {
	names, groups := res.FoldedNames, res.FoldedGroups
	if names > 0 {
		fmt.Fprintf(a.stderr, "note: more than %d distinct model names: %d call(s) of the names beyond are priced under their tariff model, or grouped as %q\n",
			pricing.DefaultMaxNames, names, pricing.OtherNames)
	}
	if groups > 0 {
		fmt.Fprintf(a.stderr, "note: more than %d groups: %d call(s) beyond are grouped as %q, %q, %q or %q, their model, version and period kept\n",
			pricing.DefaultMaxGroups, groups, pricing.OtherKeys, pricing.OtherTeams, pricing.OtherUsers, pricing.OtherGroups)
	}
}

// sources expands the --calls arguments in order: a glob to the files it
// matches (sorted), "-" to stdin; then the --db databases. Every file must
// exist and be a file before any is read, so that a typo in the last one
// costs no output. A file named twice is read once.
func (a *app) sources(args, dbs []string, opts pricing.Options) ([]ledger.Source, error) {
	return a.sourcesWith(args, dbs, opts, ledger.Options{})
}

// sourcesWith is sources with the files read with lopts.
func (a *app) sourcesWith(args, dbs []string, opts pricing.Options, lopts ledger.Options) ([]ledger.Source, error) {
	if len(args) == 0 && len(dbs) == 0 {
		return nil, usageError(errors.New("no calls to read"), "give --calls FILE (a LiteLLM spend log export, CLIProxyAPI usage, or canonical CSV/JSONL) or --db URL (LiteLLM's PostgreSQL)")
	}
	var out []ledger.Source
	named := map[string]bool{}
	for _, arg := range args {
		if arg == "-" {
			if named["-"] {
				return nil, usageError(errors.New("--calls - (stdin) is given twice"), "stdin can be read once")
			}
			named["-"] = true
			out = append(out, ledger.StreamSource("stdin", a.stdin, lopts))
			continue
		}
		paths := []string{arg}
		if strings.ContainsAny(arg, "*?[") {
			var err error
			if paths, err = filepath.Glob(arg); err != nil {
				return nil, usageError(fmt.Errorf("--calls %q is not a valid pattern: %w", arg, err), "")
			}
			if len(paths) == 0 {
				return nil, usageError(fmt.Errorf("--calls %q matches no file", arg), "check the pattern; quote it so that tokenfare, not the shell, expands it")
			}
		}
		for _, p := range paths {
			if !a.firstNaming(named, p) {
				continue
			}
			if err := checkFile(p); err != nil {
				return nil, err
			}
			out = append(out, ledger.FileSource(p, lopts))
		}
	}
	for _, url := range dbs {
		src, err := openDB(url, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, nil
}

// checkFile refuses a --calls path that is missing or not a file.
func checkFile(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return usageError(fmt.Errorf("read calls %s: %w", path, err), "check the path given to --calls")
	case st.IsDir():
		return usageError(fmt.Errorf("read calls %s: is a directory, not a file of calls", path),
			fmt.Sprintf("give the files in it, e.g. --calls '%s'", filepath.Join(path, "*.csv")))
	}
	return nil
}

// sourceError sorts a failure to read calls: a database's by its kind,
// a file's with readError.
func sourceError(err error) error {
	var pe *postgres.Error
	if errors.As(err, &pe) || errors.Is(err, postgres.ErrBadURL) {
		return dbError(err)
	}
	return readError(err)
}

// readError tells what kind of failure reading calls met: an I/O failure
// is reported as such, bad content or a bad path as bad input.
func readError(err error) error {
	var ie *ledger.InputError
	switch {
	case errors.Is(err, ledger.ErrRead), !errors.As(err, &ie):
		return fmt.Errorf("read calls: %w", err)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, ledger.ErrNotAFile), errors.Is(err, fs.ErrPermission):
		return usageError(fmt.Errorf("read calls %w", err), "check the path given to --calls")
	}
	return usageError(fmt.Errorf("read calls %w", err), "see docs/calls.md for the formats tokenfare reads")
}

// reportRows notes on stderr how many rows were rejected, and how many of
// those were not listed.
func (a *app) reportRows(rows pricing.Rows, unlisted int64) {
	if n := unlisted; n > 0 {
		fmt.Fprintf(a.stderr, "rejected: %d more row(s) not listed\n", n)
	}
	if rows.Rejected > 0 {
		fmt.Fprintf(a.stderr, "%d of %d row(s) rejected; they are counted in rows.rejected\n", rows.Rejected, rows.Read)
	}
}

// reportCalendarGaps warns on stderr about the calls priced on local days
// their provider's calendar does not know for certain, by provider and
// kind: how many, and the first and last of those days.
func (a *app) reportCalendarGaps(gaps []pricing.CalendarGap) {
	type key struct {
		p   *tariffs.Provider
		day tariffs.Coverage
	}
	var order []key
	sum := map[key]*pricing.CalendarGap{}
	for _, g := range gaps {
		k := key{g.Model.Provider, g.Day}
		if s := sum[k]; s != nil {
			s.Calls += g.Calls
			s.First, s.Last = min(s.First, g.First), max(s.Last, g.Last)
			continue
		}
		c := g
		sum[k], order = &c, append(order, k)
	}
	for _, k := range order {
		g, cal := sum[k], &k.p.Calendar
		days := g.First.String()
		if g.Last != g.First {
			days += " to " + g.Last.String()
		}
		why := fmt.Sprintf("past the years its holiday calendar covers (%d to %d)", cal.FirstYear, cal.LastYear)
		if k.day == tariffs.Provisional {
			why = "unlisted days of a provisional year of its holiday calendar"
		}
		fmt.Fprintf(a.stderr, "warning: %d call(s) of %s on local day(s) %s, %s: priced as ordinary days; a holiday or make-up workday there would change their price (%s)\n",
			g.Calls, k.p.Name, days, why, k.p.File)
	}
}

// reportSources gives each file's row accounting on stderr when there are
// several.
func (a *app) reportSources(sources []run.SourceRows) {
	if len(sources) < 2 {
		return
	}
	for _, s := range sources {
		fmt.Fprintf(a.stderr, "calls %s (%s): %s\n", s.Name, s.Format, reports.RowCounts(s.Rows))
	}
}

// nothingPriced explains a run that priced no call, with what to pass;
// unpriced are its calls left without a price, by model and cause.
func nothingPriced(np *run.NothingPricedError, asOfHint bool, unpriced []pricing.UnpricedCalls) error {
	names := np.Sources[:min(3, len(np.Sources))]
	if n := len(np.Sources) - len(names); n > 0 {
		names = append(names[:len(names):len(names)], fmt.Sprintf("%d more file(s)", n))
	}
	from := strings.Join(names, ", ")
	rows, calls := np.Rows, np.Calls()
	span := fmt.Sprintf("the calls are billed from %s to %s", np.First.Format(time.RFC3339), np.Last.Format(time.RFC3339))
	var msg, hint string
	switch np.Reason() {
	case run.NoCalls:
		msg = fmt.Sprintf("nothing priced: %s holds no calls (a header without rows, or empty)", from)
		hint = "export the calls again, with their rows"
	case run.AllRejected:
		msg = fmt.Sprintf("nothing priced: every one of the %d row(s) read from %s was rejected (listed above)", rows.Read, from)
		hint = "see docs/calls.md for the columns and values tokenfare reads"
	case run.AllOutside:
		msg = fmt.Sprintf("nothing priced: none of the %d call(s) read from %s is billed in the window %s; %s",
			calls, from, window(np), span)
		hint = windowHint(np, asOfHint)
	default:
		hits := ""
		if rows.CacheHit > 0 {
			hits = fmt.Sprintf(", %d are cache hits", rows.CacheHit)
		}
		msg = fmt.Sprintf("nothing priced: of the %d call(s) read from %s, %d have no tariff%s, %d a retired model, %d failed, %d are duplicates%s, %d outside the window %s; %s",
			calls, from, rows.Unpriced, hostsText(np.Hosts), rows.Retired, rows.Failed, rows.Duplicate, hits, rows.Outside, window(np), span)
		hint = unpricedHint(np.Hosts, unpriced)
	}
	return &exitError{code: exitFindings, err: errors.New(msg), hint: hint}
}

// modelHint says what would price the most calls left without a price.
func modelHint(us []pricing.UnpricedCalls) string {
	const list = "`tokenfare tariffs list` shows the models priced; --tariffs adds your own"
	if len(us) == 0 {
		return list
	}
	top := &us[0]
	for i := range us {
		if us[i].Calls > top.Calls {
			top = &us[i]
		}
	}
	return fmt.Sprintf("for %s (%s, %d call(s)): %s; %s", top.Model, top.Cause, top.Calls, top.Hint(), list)
}

// hostsText names the hosts no tariff prices with their calls:
// " (hosts without a tariff: mycorp 2, groq 1)"; "" for none.
func hostsText(hosts []pricing.HostCalls) string {
	if len(hosts) == 0 {
		return ""
	}
	parts := make([]string, len(hosts))
	for i, h := range hosts {
		parts[i] = fmt.Sprintf("%s %d", h.Host, h.Calls)
	}
	return " (hosts without a tariff: " + strings.Join(parts, ", ") + ")"
}

// unpricedHint tells what prices unpriced calls: for calls of hosts no
// tariff prices, a tariff file naming those hosts; else what would price
// the model with the most unpriced calls.
func unpricedHint(hosts []pricing.HostCalls, us []pricing.UnpricedCalls) string {
	var named []string
	for _, h := range hosts {
		if h.Host != tariffs.UnknownHost {
			named = append(named, h.Host)
		}
	}
	switch {
	case len(named) > 0:
		return fmt.Sprintf("no tariff prices the hosts the calls name, and no other host's price is taken for them: a tariff file with hosts: [%s], given with --tariffs-overlay, prices them (docs/tariffs.md); `tokenfare tariffs list` shows the hosts and models priced",
			strings.Join(named, ", "))
	case len(hosts) > 0:
		return "the calls name no host a tariff could take (CLIProxyAPI v6 exports name no provider; a vendor/model name comes from an openai-compatibility entry): v7 usage-queue records name the entry"
	}
	return modelHint(us)
}

// window names the window of billing instants priced.
func window(np *run.NothingPricedError) string {
	at := func(t time.Time, open string) string {
		if t.IsZero() {
			return open
		}
		return t.Format(time.RFC3339)
	}
	return "[" + at(np.Since, "any time") + ", " + at(np.Until, "no end") + ")"
}

// windowHint tells which flags would take the calls read.
func windowHint(np *run.NothingPricedError, asOfHint bool) string {
	loc := np.Zone
	first, last := np.First.In(loc), np.Last.In(loc)
	next := time.Date(last.Year(), last.Month(), last.Day()+1, 0, 0, 0, 0, loc).Format(time.DateOnly)
	if asOfHint {
		return fmt.Sprintf("pass --as-of %s (the day after the last call) to blend the window before it", next)
	}
	if first.Year() == last.Year() && first.Month() == last.Month() {
		return fmt.Sprintf("pass --month %s, or --since %s --until %s", first.Format("2006-01"), first.Format(time.DateOnly), next)
	}
	return fmt.Sprintf("pass --since %s --until %s, or leave both out", first.Format(time.DateOnly), next)
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/internal/metrics"
	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/serve"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/internal/yamlin"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/postgres"
	"github.com/tokenfare/tokenfare/ledger/usagequeue"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/tariffs"
)

type serveOptions struct {
	source   sourceOptions
	state    string
	listen   string
	interval time.Duration
	topKeys  int
	config   string
	budgets  string
	once     bool
	queue    queueOptions
}

// queueOptions are serve's flags for a CLIProxyAPI usage queue polled
// directly.
type queueOptions struct {
	url, keyFile, records string
	every                 time.Duration
}

func newServeCmd(a *app) *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve --calls FILE|DIR | --db URL | --cliproxy-url URL",
		Short: "Read the calls as they are logged and expose the official cost as Prometheus metrics",
		Long: `Serve reads the sources every --interval, each only past its watermark (a database: the
newest call read, less an hour for rows logged late; a file: the bytes read, an unchanged
file not opened), keeps what it read in a state file (--state), and serves /metrics
(Prometheus text format) and /healthz on --listen. A restart reads on from the state: no
call is missed or counted twice, and rows the gateway later deletes stay counted. The state
holds integer token sums per 15 minutes, model, host, key alias and team, so a tariff change
re-prices the history: SIGHUP, or a change to a --tariffs file, reads the tariffs again.

--cliproxy-url pops CLIProxyAPI's usage queue into a JSON Lines file, synced before the
records are counted from it.

SIGTERM or SIGINT stops it: the refresh under way is dropped (the next start reads it
again), the state is closed and the server drains. Metrics and their labels: docs/serve.md.`,
		Example: `  tokenfare serve --db "$DATABASE_URL" --state /var/lib/tokenfare/state.db --config litellm/config.yaml
  tokenfare serve --calls exports/ --listen 127.0.0.1:9464 --interval 5m
  tokenfare serve --cliproxy-url http://127.0.0.1:8317 --cliproxy-key-file /etc/tokenfare/cpa-key`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd, a, &opts)
		},
	}
	f := cmd.Flags()
	opts.source.addFlags(f)
	f.StringVar(&opts.state, "state", "", "state file (default tokenfare/state.db in the user's config folder)")
	f.StringVar(&opts.listen, "listen", "127.0.0.1:9464", "address to serve /metrics and /healthz on")
	f.DurationVar(&opts.interval, "interval", time.Minute, "time between refreshes")
	f.IntVar(&opts.topKeys, "top-keys", metrics.DefaultTopKeys, "key aliases named in the metrics, by official cost; the others are \"other\"")
	f.StringVar(&opts.config, "config", "", "LiteLLM config.yaml whose prices are held against the blend of the last 28 days (tokenfare_config_price_off_ratio)")
	f.BoolVar(&opts.once, "once", false, "refresh the state once and exit, serving nothing (a cron job, or a timed refresh)")
	f.StringVar(&opts.budgets, "budgets", "", "budgets file (docs/workbook.md): spend, remainder and month-end forecast per team and key (tokenfare_budget_*)")
	f.StringVar(&opts.queue.url, "cliproxy-url", "", "CLIProxyAPI's base URL: pop its usage queue (GET /v0/management/usage-queue) into --cliproxy-records and count them")
	f.StringVar(&opts.queue.keyFile, "cliproxy-key-file", "", "file holding CLIProxyAPI's management key (with --cliproxy-url)")
	f.StringVar(&opts.queue.records, "cliproxy-records", "", "JSON Lines file the popped records are appended to, synced before they are counted (default cliproxy-usage-queue.jsonl beside the state)")
	f.DurationVar(&opts.queue.every, "cliproxy-every", 10*time.Second, "time between pops of the usage queue (it keeps a record 60 s by default)")
	cmd.MarkFlagFilename("state", "db")
	cmd.MarkFlagFilename("budgets", "yaml", "yml")
	cmd.MarkFlagFilename("config", "yaml", "yml")
	completeSource(cmd)
	return cmd
}

func runServe(cmd *cobra.Command, a *app, opts *serveOptions) (err error) {
	if err := opts.check(); err != nil {
		return err
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	cfg, err := a.serveConfig(cmd, opts, eopts)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := cfg.Store.Close(); cerr != nil && err == nil {
			err = runError(fmt.Errorf("state: %w", cerr))
		}
	}()
	if opts.once {
		return serve.New(cfg).Once(cmd.Context())
	}
	if cfg.Metrics.Budgets, err = readBudgets(opts.budgets); err != nil {
		return err
	}
	return runDaemon(cmd.Context(), serve.New(cfg))
}

// check refuses the flags serve cannot run with.
func (opts *serveOptions) check() error {
	if opts.interval <= 0 || opts.topKeys <= 0 {
		return usageError(errors.New("--interval and --top-keys must be positive"), "")
	}
	if opts.source.strict {
		return usageError(errors.New("--strict does not apply to serve: a refresh counts rejected rows and goes on"),
			`alert on tokenfare_calls_total{outcome="rejected"}, or check the files with reconcile --strict`)
	}
	return nil
}

// serveConfig returns the daemon's config of the flags, its state open
// (the caller closes it): the catalog, the usage queue's collector, the
// feeds of the sources, and the refresh of the state from them.
func (a *app) serveConfig(cmd *cobra.Command, opts *serveOptions, eopts pricing.Options) (serve.Config, error) {
	cat, err := a.Catalog()
	if err != nil {
		return serve.Config{}, err
	}
	path, err := statePath(opts.state)
	if err != nil {
		return serve.Config{}, err
	}
	collector, err := opts.queue.collector(path, a.stderr)
	if err != nil {
		return serve.Config{}, err
	}
	store, feeds, err := a.serveState(cmd.Context(), path, opts, eopts, collector)
	if err != nil {
		return serve.Config{}, err
	}
	log := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
	return serve.Config{Listen: opts.listen, Interval: opts.interval, StatePath: path, Store: store, Log: log, Now: a.now,
		Metrics: serveMetrics(store, opts.topKeys, eopts.Billing, log),
		Refresh: func(ctx context.Context, cat *tariffs.Catalog) ([]state.Source, error) {
			return run.Refresh(ctx, store, cat, eopts, feeds, false)
		},
		Catalog: cat, LoadCatalog: a.loadCatalog, TariffStamp: a.tariffStamp, GatewayConfig: gatewayConfig(opts.config),
		Queue: collector, QueueEvery: opts.queue.every}, nil
}

// serveMetrics returns the options of serve's metrics over store: the
// figures the run prices from the state (the 28 days' blend, at the
// billing instant the calls are read with, and the month's saving)
// handed to them as functions.
func serveMetrics(store *state.Store, topKeys int, billing *tariffs.BillingTime, log *slog.Logger) metrics.Options {
	return metrics.Options{TopKeys: topKeys, Log: log,
		Blend: func(cat *tariffs.Catalog, from, until, tariffAt time.Time) (map[*tariffs.Model]*tariffs.Rates, error) {
			return run.StateBlend(store, cat, from, until, tariffAt, billing)
		},
		MonthSaving: func(cat *tariffs.Catalog, now time.Time) (map[savings.Lever]decimal.Decimal, error) {
			return run.StateSaving(store, cat, now)
		}}
}

// serveState returns the feeds of serve's sources and the state at
// path, open, under the names it stored them by.
func (a *app) serveState(ctx context.Context, path string, opts *serveOptions, eopts pricing.Options, collector *usagequeue.Collector) (*state.Store, []state.Feed, error) {
	feeds, err := a.serveFeeds(ctx, opts, eopts, collector)
	if err != nil {
		return nil, nil, err
	}
	store, err := state.Open(path)
	if err != nil {
		return nil, nil, usageError(err, stateHint(err, "give --state PATH, a file no other tokenfare serve holds"))
	}
	if feeds, err = adoptStoredNames(store, feeds); err != nil {
		_ = store.Close() // the error above is the one reported
		return nil, nil, err
	}
	return store, feeds, nil
}

// serveFeeds returns the state feeds of serve's sources: the usage
// queue's file, then each --calls and --db (LiteLLM's database by
// default when the queue is not polled).
func (a *app) serveFeeds(ctx context.Context, opts *serveOptions, eopts pricing.Options, collector *usagequeue.Collector) ([]state.Feed, error) {
	var feeds []state.Feed
	if collector != nil {
		file := collector.File
		feeds = append(feeds, state.Feed{Name: file, Files: func() ([]string, error) { return []string{file}, nil }})
	} else {
		a.defaultDB(&opts.source)
	}
	if len(opts.source.calls)+len(opts.source.dbs) > 0 || collector == nil {
		more, err := a.stateFeeds(ctx, &opts.source, eopts)
		if err != nil {
			return nil, err
		}
		feeds = append(feeds, more...)
	}
	return feeds, nil
}

// runDaemon runs d until ctx ends, each SIGHUP a reload. A listen that
// fails is bad usage.
func runDaemon(ctx context.Context, d *serve.Daemon) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-hup:
				d.Reload("SIGHUP")
			case <-done:
				return
			}
		}
	}()
	err := d.Run(ctx)
	if le := (*serve.ListenError)(nil); errors.As(err, &le) {
		return usageError(fmt.Errorf("--listen: %w", le.Err), "")
	}
	return err
}

// gatewayConfig returns the reader of the LiteLLM config at path for
// serve's metrics, nil without --config. The file is read again when
// its size or modification time changes.
func gatewayConfig(path string) func(context.Context) (*metrics.GatewayConfig, error) {
	if path == "" {
		return nil
	}
	var last *metrics.GatewayConfig
	var stamp string
	return func(context.Context) (*metrics.GatewayConfig, error) {
		s := fileStamp(path)
		if last != nil && s == stamp {
			return last, nil
		}
		data, err := yamlin.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read config: %w", err)
		}
		last, stamp = &metrics.GatewayConfig{File: path, Data: data}, s
		return last, nil
	}
}

// fileStamp tells a file by its size and modification time ("" when
// it cannot be read).
func fileStamp(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d %d", st.Size(), st.ModTime().UnixNano())
}

// tariffStamp tells the tariff files given (--tariffs, --tariffs-overlay)
// by their names, sizes and modification times: it changes when one of
// them does. The embedded catalog never changes.
func (a *app) tariffStamp() string {
	var b strings.Builder
	for _, path := range append([]string{a.tariffs}, a.overlays...) {
		if path == "" {
			continue
		}
		files, err := tariffs.Files(path)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", path, err)
			continue
		}
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				fmt.Fprintf(&b, "%s: %v\n", f, err)
				continue
			}
			fmt.Fprintf(&b, "%s %d %d\n", f, st.Size(), st.ModTime().UnixNano())
		}
	}
	return b.String()
}

// feeds makes one state feed per --calls argument (a glob is expanded at
// each refresh, so new daily files are read) and per --db. A file feed
// is named by its absolute path (filePathFeed), a database by its URL
// without the password: a source given twice, or two ways, is one feed.
func (a *app) feeds(src *sourceOptions, opts pricing.Options) ([]state.Feed, error) {
	var out []state.Feed
	named := map[string]bool{}
	for _, arg := range src.calls {
		if arg == "-" {
			return nil, usageError(errors.New("serve cannot read stdin again at each refresh"), "give --calls FILE or a glob")
		}
		if st, err := os.Stat(arg); err != nil || !st.IsDir() {
			if _, err := a.sources([]string{arg}, nil, opts); err != nil {
				return nil, err
			}
		}
		name, err := filePathFeed(arg)
		if err != nil {
			return nil, err
		}
		if a.firstNaming(named, name) {
			out = append(out, fileFeed(name, name))
		}
	}
	for _, url := range src.dbs {
		first, err := a.sources(nil, []string{url}, opts)
		if err != nil {
			return nil, err
		}
		if named[first[0].Name()] {
			fmt.Fprintf(a.stderr, "note: %s is given more than once; it is read once\n", first[0].Name())
			continue
		}
		named[first[0].Name()] = true
		out = append(out, state.Feed{Name: first[0].Name(), Open: func(since time.Time, known *ledger.Known) ([]ledger.Source, error) {
			o := opts
			o.Since = since
			sources, err := a.sources(nil, []string{url}, o)
			for _, s := range sources {
				if db, ok := s.(*postgres.Source); ok {
					db.Know(known)
				}
			}
			return sources, err
		}})
	}
	if len(out) == 0 {
		return nil, usageError(errors.New("no calls to read"), "give --calls FILE or --db URL (LiteLLM's PostgreSQL)")
	}
	return out, nil
}

// collector returns the collector of the usage queue, or nil without
// --cliproxy-url. The records file defaults to one beside the state.
func (q *queueOptions) collector(statePath string, stderr io.Writer) (*usagequeue.Collector, error) {
	if q.url == "" {
		if q.keyFile != "" {
			return nil, usageError(errors.New("--cliproxy-key-file without --cliproxy-url"), "give CLIProxyAPI's base URL too")
		}
		return nil, nil
	}
	if q.every <= 0 {
		return nil, usageError(errors.New("--cliproxy-every must be positive"), "")
	}
	if q.keyFile == "" {
		return nil, usageError(errors.New("--cliproxy-url needs --cliproxy-key-file"), "write CLIProxyAPI's management key in a file only you can read")
	}
	key, err := os.ReadFile(q.keyFile)
	if err != nil {
		return nil, usageError(fmt.Errorf("--cliproxy-key-file: %w", err), "")
	}
	if strings.TrimSpace(string(key)) == "" {
		return nil, usageError(fmt.Errorf("--cliproxy-key-file %s is empty", q.keyFile), "write CLIProxyAPI's management key in it")
	}
	warnOpenKeyFile(stderr, q.keyFile)
	records := q.records
	if records == "" {
		records = filepath.Join(filepath.Dir(statePath), "cliproxy-usage-queue.jsonl")
	}
	// The file's path names its feed in the state: the same however the
	// state or the file is named next time.
	if records, err = filepath.Abs(records); err != nil {
		return nil, usageError(fmt.Errorf("--cliproxy-records: %w", err), "")
	}
	return &usagequeue.Collector{URL: q.url, Key: strings.TrimSpace(string(key)), File: records,
		Client: &http.Client{Timeout: 30 * time.Second}}, nil
}

// warnOpenKeyFile warns, as ssh does of a private key, when the file
// holding the management key may be read by others than its owner.
// Windows keeps no such bits.
func warnOpenKeyFile(stderr io.Writer, path string) {
	st, err := os.Stat(path)
	if err != nil || runtime.GOOS == "windows" || st.Mode().Perm()&0o077 == 0 {
		return
	}
	fmt.Fprintf(stderr, "warning: --cliproxy-key-file %s may be read by others (mode %04o): the management key it holds pops the usage queue and changes CLIProxyAPI's settings; chmod 600 %s\n",
		path, st.Mode().Perm(), path)
}

// callFiles lists the files of a --calls argument at a refresh: the
// files of a folder (not those whose names start with a dot), the files
// a glob matches (none is no error: the folder waits for its first
// export), or the file named.
func callFiles(arg string) ([]string, error) {
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		entries, err := os.ReadDir(arg)
		if err != nil {
			return nil, fmt.Errorf("read calls %s: %w", arg, err)
		}
		var out []string
		for _, e := range entries {
			if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				out = append(out, filepath.Join(arg, e.Name()))
			}
		}
		return out, nil
	}
	if strings.ContainsAny(arg, "*?[") {
		return filepath.Glob(arg)
	}
	return []string{arg}, nil
}

// statePath is --state, else tokenfare/state.db in the user's config
// folder (made when missing).
func statePath(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", usageError(fmt.Errorf("no folder for the state: %w", err), "give --state PATH")
	}
	dir = filepath.Join(dir, "tokenfare")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", usageError(fmt.Errorf("state folder: %w", err), "give --state PATH")
	}
	return filepath.Join(dir, "state.db"), nil
}

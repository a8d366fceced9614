package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/internal/metrics"
	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/postgres"
	"github.com/tokenfare/tokenfare/ledger/usagequeue"
	"github.com/tokenfare/tokenfare/pricing"
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

func runServe(cmd *cobra.Command, a *app, opts *serveOptions) error {
	if opts.interval <= 0 || opts.topKeys <= 0 {
		return usageError(errors.New("--interval and --top-keys must be positive"), "")
	}
	if opts.source.strict {
		return usageError(errors.New("--strict does not apply to serve: a refresh counts rejected rows and goes on"),
			`alert on tokenfare_calls_total{outcome="rejected"}, or check the files with reconcile --strict`)
	}
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	if _, err := a.Catalog(); err != nil {
		return err
	}
	path, err := statePath(opts.state)
	if err != nil {
		return err
	}
	collector, err := opts.queue.collector(path, a.stderr)
	if err != nil {
		return err
	}
	var feeds []state.Feed
	if collector != nil {
		file := collector.File
		feeds = append(feeds, state.Feed{Name: file, Files: func() ([]string, error) { return []string{file}, nil }})
	}
	if collector == nil {
		a.defaultDB(&opts.source)
	}
	if len(opts.source.calls)+len(opts.source.dbs) > 0 || collector == nil {
		more, err := a.stateFeeds(cmd.Context(), &opts.source, eopts)
		if err != nil {
			return err
		}
		feeds = append(feeds, more...)
	}
	store, err := state.Open(path)
	if err != nil {
		return usageError(err, stateHint(err, "give --state PATH, a file no other tokenfare serve holds"))
	}
	defer store.Close()
	if feeds, err = adoptStoredNames(store, feeds); err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
	if opts.once {
		if collector != nil {
			collect(cmd.Context(), log, collector)
		}
		cat, _ := a.Catalog()
		sources, err := store.Refresh(cmd.Context(), run.Keep(false), cat, eopts, feeds)
		logRefreshed(log, sources)
		(&offGrainLog{}).log(log, store, cat, sources)
		if collector != nil && collector.Held() > 0 && err == nil {
			// A process that ends cannot hold them for the next pop.
			err = fmt.Errorf("%d records popped from the usage queue could not be written to %s and are lost with this process: free its disk; serve without --once holds them until it can",
				collector.Held(), collector.File)
		}
		return err
	}
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return usageError(fmt.Errorf("--listen: %w", err), "")
	}
	mopts := metrics.Options{TopKeys: opts.topKeys, Config: opts.config, Billing: eopts.Billing, Log: log}
	if mopts.Budgets, err = readBudgets(opts.budgets); err != nil {
		return err
	}
	col := metrics.New(mopts)
	col.Watch(store)
	reg := prometheus.NewRegistry()
	reg.MustRegister(col)
	var healthy atomic.Bool
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		// One metric that cannot be made never fails the exposition: the
		// others are served, and the error logged.
		ErrorHandling: promhttp.ContinueOnError, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelError)}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if collector != nil && collector.Held() > 0 {
			http.Error(w, fmt.Sprintf("%d records popped from the usage queue are held in memory: %s cannot be written",
				collector.Held(), collector.File), http.StatusServiceUnavailable)
			return
		}
		if !healthy.Load() {
			http.Error(w, "the last refresh failed", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	limits := defaultHTTPLimits()
	srv := newHTTPServer(mux, limits)
	go srv.Serve(newLimitListener(ln, limits.conns))
	if collector != nil {
		go func() {
			for {
				collect(cmd.Context(), log, collector)
				select {
				case <-cmd.Context().Done():
					return
				case <-time.After(opts.queue.every):
				}
			}
		}()
	}
	log.Info("serving", "metrics", "http://"+ln.Addr().String()+"/metrics", "state", path)
	ctx := cmd.Context()
	cat, _ := a.Catalog()
	stamp := a.tariffStamp()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	offGrain, memory := &offGrainLog{}, newMemoryReturn()
	for {
		healthy.Store(a.refresh(ctx, log, store, col, feeds, eopts, cat, offGrain, memory))
		select {
		case <-ctx.Done():
			log.Info("stopping")
			shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return srv.Shutdown(shut)
		case <-hup:
			stamp = a.tariffStamp()
			cat = a.reloadCatalog(log, cat, "SIGHUP")
		case <-time.After(opts.interval):
			if s := a.tariffStamp(); s != stamp {
				stamp = s
				cat = a.reloadCatalog(log, cat, "tariff files changed")
			}
		}
	}
}

// reloadCatalog reads the catalog again and returns it, or, when it has
// errors, logs them (each with its file and line) and returns old.
func (a *app) reloadCatalog(log *slog.Logger, old *tariffs.Catalog, why string) *tariffs.Catalog {
	cat, ps, err := a.loadCatalog()
	if err != nil {
		log.Error("tariffs not reloaded: the catalog in use is kept", "why", why, "error", err.Error())
		return old
	}
	for _, p := range ps {
		log.Warn("tariffs", "warning", p.Error())
	}
	log.Info("tariffs reloaded", "why", why)
	return cat
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

// refresh reads every feed past its watermark, prices at cat and updates
// the metrics; it logs what it read and reports whether all went well.
func (a *app) refresh(ctx context.Context, log *slog.Logger, store *state.Store, col *metrics.Collector, feeds []state.Feed, opts pricing.Options,
	cat *tariffs.Catalog, offGrain *offGrainLog, memory *memoryReturn) bool {
	sources, err := store.Refresh(ctx, run.Keep(false), cat, opts, feeds)
	defer memory.after(sources)
	logRefreshed(log, sources)
	offGrain.log(log, store, cat, sources)
	if ctx.Err() != nil {
		return false
	}
	if err != nil {
		// The feeds that were read are committed: their figures are
		// published all the same.
		log.Error("refresh", "error", err.Error())
	}
	if uerr := col.Update(store, cat, a.now()); errors.Is(uerr, metrics.ErrNoDrift) {
		log.Warn("metrics: the configured prices have no series", "error", uerr.Error())
	} else if uerr != nil {
		log.Error("metrics", "error", uerr.Error())
		return false
	}
	return err == nil
}

// logRefreshed logs what a refresh read of each source, and each file it
// could not read.
func logRefreshed(log *slog.Logger, sources []state.Source) {
	for _, s := range sources {
		log.Info("refreshed", "source", s.Name, "watermark", s.Watermark, "read", s.Rows.Read, "priced", s.Rows.Priced, "late", s.Late)
		for _, u := range s.Unread {
			log.Warn("calls not read: the file is tried again at the next refresh", "source", s.Name, "file", u.Path, "error", u.Err.Error())
		}
	}
}

// returnAfterRows is how many rows one refresh reads before serve gives
// the operating system back the memory it used at once.
const returnAfterRows = 1_000_000

// memoryReturn gives the operating system back, at once, the memory a
// large refresh used (the first sync of a big database, the metrics'
// first pricing of its state): the runtime would return it over many
// minutes, and a long-running serve would hold its peak meanwhile. A
// refresh of a few rows costs no forced collection.
type memoryReturn struct {
	read map[string]int64 // the rows read so far, by source
	free func()
}

func newMemoryReturn() *memoryReturn {
	return &memoryReturn{read: map[string]int64{}, free: debug.FreeOSMemory}
}

// after counts the rows a refresh read and returns the memory past
// returnAfterRows.
func (m *memoryReturn) after(sources []state.Source) {
	var n int64
	for _, s := range sources {
		n += s.Rows.Read - m.read[s.Name]
		m.read[s.Name] = s.Rows.Read
	}
	if n >= returnAfterRows {
		m.free()
	}
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

// collect pops the usage queue into its file, logging what it wrote.
func collect(ctx context.Context, log *slog.Logger, c *usagequeue.Collector) {
	n, err := c.Collect(ctx)
	if n > 0 {
		log.Info("collected", "records", n, "file", c.File)
	}
	if err != nil && ctx.Err() == nil {
		log.Error("collect", "error", err.Error(), "written", n)
	}
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

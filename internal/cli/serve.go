package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/tokenfare/tokenfare/internal/metrics"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
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
}

func newServeCmd(a *app) *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve --calls FILE | --db URL",
		Short: "Read the calls as they are logged and expose the official cost as Prometheus metrics",
		Long: `Serve reads the sources every --interval, each only past its watermark (the newest call
read, less an hour for rows logged late), keeps what it read in a state file (--state), and
serves /metrics (Prometheus text format) and /healthz on --listen. A restart reads on from
the state: no call is missed or counted twice, and rows the gateway later deletes stay
counted. The state holds integer token sums per 15 minutes, model, host, key alias and
team, so a tariff change re-prices the history at the next start.

SIGTERM or SIGINT stops it: the refresh under way is dropped (the next start reads it
again), the state is closed and the server drains. Metrics and their labels: docs/serve.md.`,
		Example: `  tokenfare serve --db "$DATABASE_URL" --state /var/lib/tokenfare/state.db --config litellm/config.yaml
  tokenfare serve --calls 'exports/*.csv' --listen 127.0.0.1:9464 --interval 5m`,
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
	eopts, err := opts.source.engineOptions()
	if err != nil {
		return err
	}
	if _, err := a.Catalog(); err != nil {
		return err
	}
	a.defaultDB(&opts.source)
	feeds, err := a.feeds(&opts.source, eopts)
	if err != nil {
		return err
	}
	path, err := statePath(opts.state)
	if err != nil {
		return err
	}
	store, err := state.Open(path)
	if err != nil {
		return usageError(err, "give --state PATH, a file no other tokenfare serve holds")
	}
	defer store.Close()
	log := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
	if opts.once {
		cat, _ := a.Catalog()
		sources, err := store.Refresh(cmd.Context(), cat, eopts, feeds)
		for _, s := range sources {
			log.Info("refreshed", "source", s.Name, "watermark", s.Watermark, "read", s.Rows.Read, "priced", s.Rows.Priced, "late", s.Late)
		}
		logOffGrain(log, store, cat, map[state.OffGrain]bool{})
		return err
	}
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return usageError(fmt.Errorf("--listen: %w", err), "")
	}
	mopts := metrics.Options{TopKeys: opts.topKeys, Config: opts.config}
	if mopts.Budgets, err = readBudgets(opts.budgets); err != nil {
		return err
	}
	col := metrics.New(mopts)
	reg := prometheus.NewRegistry()
	reg.MustRegister(col)
	var healthy atomic.Bool
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if !healthy.Load() {
			http.Error(w, "the last refresh failed", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	log.Info("serving", "metrics", "http://"+ln.Addr().String()+"/metrics", "state", path)
	ctx := cmd.Context()
	offGrain := map[state.OffGrain]bool{} // logged once each
	for {
		healthy.Store(a.refresh(ctx, log, store, col, feeds, eopts, offGrain))
		select {
		case <-ctx.Done():
			log.Info("stopping")
			shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return srv.Shutdown(shut)
		case <-time.After(opts.interval):
		}
	}
}

// refresh reads every feed past its watermark and updates the metrics; it
// logs what it read and reports whether all went well.
func (a *app) refresh(ctx context.Context, log *slog.Logger, store *state.Store, col *metrics.Collector, feeds []state.Feed, opts pricing.Options,
	offGrain map[state.OffGrain]bool) bool {
	cat, _ := a.Catalog() // loaded once, before the first refresh
	sources, err := store.Refresh(ctx, cat, opts, feeds)
	for _, s := range sources {
		log.Info("refreshed", "source", s.Name, "watermark", s.Watermark, "read", s.Rows.Read, "priced", s.Rows.Priced, "late", s.Late)
	}
	logOffGrain(log, store, cat, offGrain)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("refresh", "error", err.Error())
		}
		return false
	}
	if err := col.Update(store, cat, a.now()); err != nil {
		log.Error("metrics", "error", err.Error())
		return false
	}
	return true
}

// feeds makes one state feed per --calls argument (a glob is expanded at
// each refresh, so new daily files are read) and per --db.
func (a *app) feeds(src *sourceOptions, opts pricing.Options) ([]state.Feed, error) {
	var out []state.Feed
	for _, arg := range src.calls {
		if arg == "-" {
			return nil, usageError(errors.New("serve cannot read stdin again at each refresh"), "give --calls FILE or a glob")
		}
		if _, err := a.sources([]string{arg}, nil, opts); err != nil {
			return nil, err
		}
		out = append(out, state.Feed{Name: arg, Open: func(since time.Time) ([]ledger.Source, error) {
			o := opts
			o.Since = since
			return a.sources([]string{arg}, nil, o)
		}})
	}
	for _, url := range src.dbs {
		first, err := a.sources(nil, []string{url}, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, state.Feed{Name: first[0].Name(), Open: func(since time.Time) ([]ledger.Source, error) {
			o := opts
			o.Since = since
			return a.sources(nil, []string{url}, o)
		}})
	}
	if len(out) == 0 {
		return nil, usageError(errors.New("no calls to read"), "give --calls FILE or --db URL (LiteLLM's PostgreSQL)")
	}
	return out, nil
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

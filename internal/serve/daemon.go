package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tokenfare/tokenfare/internal/metrics"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger/usagequeue"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Config is what a Daemon is made of. Store, Log and every function
// but GatewayConfig must be set; Metrics may be zero (the defaults),
// Queue and GatewayConfig nil (none).
type Config struct {
	Listen    string        // the address /metrics and /healthz are served on
	Interval  time.Duration // the time between refreshes
	StatePath string        // the state's file, named in the "serving" log line
	Store     *state.Store  // the state, open; the metrics read it
	Log       *slog.Logger  // where every line goes (serve's stderr, as JSON)
	Now       func() time.Time
	// Metrics shape the metrics; Run makes its collector of them.
	Metrics metrics.Options

	// Refresh reads every feed past its watermark into Store, pricing at
	// cat, and returns what it read of each source: the feeds it read
	// are committed even when it returns an error.
	Refresh func(ctx context.Context, cat *tariffs.Catalog) ([]state.Source, error)
	// Catalog is the catalog at start; LoadCatalog reads it anew, with
	// its warnings, and TariffStamp tells the tariff files apart: a
	// change reads the catalog again.
	Catalog     *tariffs.Catalog
	LoadCatalog func() (*tariffs.Catalog, tariffs.Problems, error)
	TariffStamp func() string
	// GatewayConfig reads the LiteLLM config whose prices are held
	// against the blend (tokenfare_config_price_off_ratio); nil for none.
	GatewayConfig func(ctx context.Context) (*metrics.GatewayConfig, error)

	// Queue, when set, is popped every QueueEvery into its file, which
	// Refresh reads as a feed.
	Queue      *usagequeue.Collector
	QueueEvery time.Duration
}

// Daemon is tokenfare serve: made by New, run by Run or Once.
type Daemon struct {
	cfg      Config
	healthy  atomic.Bool
	reload   chan string // the reason of a reload asked and not yet done
	offGrain *offGrainLog
	memory   *memoryReturn
	// listen opens the listener: net.Listen, but in tests.
	listen func(network, addr string) (net.Listener, error)
}

// New returns the daemon of cfg, doing nothing until Run or Once.
func New(cfg Config) *Daemon {
	return &Daemon{cfg: cfg, reload: make(chan string, 1), offGrain: &offGrainLog{}, memory: newMemoryReturn(), listen: net.Listen}
}

// Reload asks Run to read the catalog again at once, logging why, and to
// refresh; a reload asked while one waits is that one. It never blocks.
func (d *Daemon) Reload(why string) {
	select {
	case d.reload <- why:
	default:
	}
}

// Healthy reports whether the last refresh went well and no record
// popped from the usage queue is held in memory.
func (d *Daemon) Healthy() bool {
	return d.unhealthy() == ""
}

// unhealthy says why the daemon is not healthy, "" when it is.
func (d *Daemon) unhealthy() string {
	if q := d.cfg.Queue; q != nil && q.Held() > 0 {
		return fmt.Sprintf("%d records popped from the usage queue are held in memory: %s cannot be written", q.Held(), q.File)
	}
	if !d.healthy.Load() {
		return "the last refresh failed"
	}
	return ""
}

// Run listens on Config.Listen, then refreshes the state every interval,
// serving its metrics, until ctx is cancelled: it then drops the refresh
// under way, drains the server and returns nil, or the shutdown's error.
// It returns a *ListenError when it cannot listen, and the HTTP server's
// error should it stop serving.
func (d *Daemon) Run(ctx context.Context) error {
	ln, err := d.listen("tcp", d.cfg.Listen)
	if err != nil {
		return &ListenError{Addr: d.cfg.Listen, Err: err}
	}
	col := metrics.New(d.cfg.Metrics)
	col.Watch(d.cfg.Store)
	limits := defaultHTTPLimits()
	srv := newHTTPServer(d.handler(col), limits)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(newLimitListener(ln, limits.conns)) }()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	if d.cfg.Queue != nil {
		wg.Add(1)
		go func() { defer wg.Done(); d.collectEvery(ctx) }()
	}
	d.cfg.Log.Info("serving", "metrics", "http://"+ln.Addr().String()+"/metrics", "state", d.cfg.StatePath)
	return d.loop(ctx, col, srv, served)
}

// loop refreshes, then waits for the next refresh, a reload, the end of
// ctx or of the server.
func (d *Daemon) loop(ctx context.Context, col *metrics.Collector, srv *http.Server, served <-chan error) error {
	cat, stamp := d.cfg.Catalog, d.cfg.TariffStamp()
	for {
		d.healthy.Store(d.refresh(ctx, col, cat))
		select {
		case <-ctx.Done():
			d.cfg.Log.Info("stopping")
			shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := srv.Shutdown(shut)
			// Serve returns http.ErrServerClosed at once; anything else is told.
			if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
				err = errors.Join(err, serr)
			}
			return err
		case err := <-served:
			// Serve ends only on an error of its own before Shutdown; it
			// closed the listener, Close ends the connections left.
			_ = srv.Close()
			return fmt.Errorf("serve %s: %w", d.cfg.Listen, err)
		case why := <-d.reload:
			stamp = d.cfg.TariffStamp()
			cat = d.reloadCatalog(cat, why)
		case <-time.After(d.cfg.Interval):
			if s := d.cfg.TariffStamp(); s != stamp {
				stamp = s
				cat = d.reloadCatalog(cat, "tariff files changed")
			}
		}
	}
}

// Once refreshes the state once, after one pop of the usage queue, and
// returns, serving nothing: a cron job's serve. Records popped that
// cannot be written are an error: they are lost with the process.
func (d *Daemon) Once(ctx context.Context) error {
	q := d.cfg.Queue
	if q != nil {
		collect(ctx, d.cfg.Log, q)
	}
	sources, err := d.cfg.Refresh(ctx, d.cfg.Catalog)
	logRefreshed(d.cfg.Log, sources)
	d.offGrain.log(d.cfg.Log, d.cfg.Store, d.cfg.Catalog, sources)
	if q != nil && q.Held() > 0 && err == nil {
		// A process that ends cannot hold them for the next pop.
		err = fmt.Errorf("%d records popped from the usage queue could not be written to %s and are lost with this process: free its disk; serve without --once holds them until it can",
			q.Held(), q.File)
	}
	return err
}

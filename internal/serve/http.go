package serve

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tokenfare/tokenfare/internal/metrics"
	"github.com/tokenfare/tokenfare/internal/platform"
)

// handler serves col's metrics on GET /metrics and the daemon's health
// on GET /healthz.
func (d *Daemon) handler(col *metrics.Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(col)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		// One metric that cannot be made never fails the exposition: the
		// others are served, and the error logged.
		ErrorHandling: promhttp.ContinueOnError, ErrorLog: slog.NewLogLogger(d.cfg.Log.Handler(), slog.LevelError)}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if why := d.unhealthy(); why != "" {
			http.Error(w, why, http.StatusServiceUnavailable)
			return
		}
		_, _ = fmt.Fprintln(w, "ok") // a client gone before the answer is not serve's failure
	})
	return mux
}

// httpLimits bound what serve's HTTP clients may hold: the time a request
// may take to arrive and its answer to leave, how long an idle keep-alive
// connection is kept, and how many connections are open at once.
type httpLimits struct {
	readHeader, read, write, idle time.Duration
	conns                         int
}

// defaultHTTPLimits are serve's: a scrape is a short GET, answered in
// well under a minute; Prometheus scrapes at most every few minutes.
func defaultHTTPLimits() httpLimits {
	return httpLimits{readHeader: 10 * time.Second, read: 30 * time.Second, write: 2 * time.Minute,
		idle: 2 * time.Minute, conns: connLimit(platform.OpenFileLimit())}
}

// connLimit is how many connections serve holds open at once, given the
// files the process may open (0: unknown): a quarter of them, between 16
// and 1024, so that the clients never take the descriptors a refresh
// needs (the state, the call files, the databases' connections, an
// engine's spilled runs, which keep within an eighth).
func connLimit(files uint64) int {
	if files == 0 {
		return 256
	}
	return int(min(max(files/4, 16), 1024))
}

// newHTTPServer returns the server of h within l.
func newHTTPServer(h http.Handler, l httpLimits) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: l.readHeader, ReadTimeout: l.read,
		WriteTimeout: l.write, IdleTimeout: l.idle}
}

// limitListener accepts at most cap(slots) connections open at once: a
// client past them waits in the kernel's backlog until one closes.
type limitListener struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

// Close closes the listener, and ends an Accept waiting for a slot.
func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back once closed.
type limitConn struct {
	net.Conn
	release func()
	once    sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

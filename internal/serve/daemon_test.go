package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/metrics"
	tfrun "github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/serve"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// tariff is a flat DeepSeek tariff (USD per 1M tokens) at input and
// output; cached tokens are not called for.
func tariff(input, output string) string {
	return `provider: deepseek
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://api-docs.deepseek.com/quick_start/pricing, kind: official, checked: 2026-11-30}]
models:
  - id: deepseek-flash
    names: [deepseek-flash]
versions:
  - effective: 2026-09-01T00:00:00Z
    name: flat
    default_period: standard
    prices:
      deepseek-flash:
        standard: {input: ` + input + `, cache_read: 0.01, cache_write: ` + input + `, output: ` + output + `}
`
}

// calls are two calls of deepseek-flash by one key of one team:
// 1,000 tokens in and 500 out, then 3,000 in and 1,000 out; the gateway
// recorded 0.001 and 0.002 for them.
const calls = `request_id,call_type,api_key,spend,total_tokens,prompt_tokens,completion_tokens,startTime,endTime,completionStartTime,model,model_id,model_group,custom_llm_provider,user,team_id,end_user,status,cached_tokens,cache_creation_tokens,reasoning_tokens,key_alias,team_alias
r1,acompletion,k1,0.001,1500,1000,500,2026-10-01 10:00:00.000,2026-10-01 10:00:01.000,2026-10-01 10:00:01.000,deepseek-flash,m1,deepseek-flash,deepseek,u1,t1,,success,0,0,0,bot,search
r2,acompletion,k1,0.002,4000,3000,1000,2026-10-01 11:00:00.000,2026-10-01 11:00:02.000,2026-10-01 11:00:02.000,deepseek-flash,m1,deepseek-flash,deepseek,u1,t1,,success,0,0,0,bot,search
`

// The figures of the calls, worked by hand at tariff("0.20", "1.00"):
// 1,000 × 0.20 / 1M + 500 × 1.00 / 1M = 0.0007, and 3,000 × 0.20 / 1M +
// 1,000 × 1.00 / 1M = 0.0016; at tariff("0.40", "2.00"), twice that.
const (
	official       = "0.0023"
	officialDouble = "0.0046"
	recorded       = "0.003"
)

// syncBuffer is the daemon's log, written by its goroutines as the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fixture is a daemon's Config on a state of its own in a temporary
// folder, the calls above as its one feed, the tariffs read from a
// folder the test may change.
type fixture struct {
	cfg     serve.Config
	log     *syncBuffer
	calls   string                // the calls' file
	tariffs string                // the tariffs' file
	stamp   atomic.Value          // TariffStamp's answer
	failing atomic.Pointer[error] // when set, what Refresh fails with
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{log: &syncBuffer{}, tariffs: filepath.Join(dir, "tariffs", "deepseek.yaml")}
	os.Mkdir(filepath.Dir(f.tariffs), 0o755)
	write(t, f.tariffs, tariff("0.20", "1.00"))
	file := filepath.Join(dir, "calls.csv")
	write(t, file, calls)
	f.calls = file
	path := filepath.Join(dir, "state.db")
	store, err := state.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	load := func() (*tariffs.Catalog, tariffs.Problems, error) {
		cat, ps := tariffs.Load(filepath.Dir(f.tariffs))
		if errs := ps.Errors(); len(errs) > 0 {
			return nil, nil, errs
		}
		return cat, ps, nil
	}
	cat, _, err := load()
	if err != nil {
		t.Fatal(err)
	}
	feeds := []state.Feed{{Name: file, Files: func() ([]string, error) { return []string{file}, nil }}}
	f.stamp.Store("first")
	f.cfg = serve.Config{Listen: "127.0.0.1:0", Interval: time.Hour, StatePath: path, Store: store,
		Log: slogTo(f.log), Now: func() time.Time { return time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC) },
		Metrics: metrics.Options{Blend: func(cat *tariffs.Catalog, from, until, at time.Time) (map[*tariffs.Model]*tariffs.Rates, error) {
			return tfrun.StateBlend(store, cat, from, until, at, nil)
		}},
		Refresh: func(ctx context.Context, cat *tariffs.Catalog) ([]state.Source, error) {
			if err := f.failing.Load(); err != nil {
				return nil, *err
			}
			return tfrun.Refresh(ctx, store, cat, pricing.Options{}, feeds, false)
		},
		Catalog: cat, LoadCatalog: load, TariffStamp: func() string { return f.stamp.Load().(string) }}
	return f
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// running is a daemon started by start.
type running struct {
	d    *serve.Daemon
	addr string
	stop func() error // cancels Run's context and returns what Run returned
}

// start runs a daemon of f.cfg until the test ends, and waits for it to
// serve healthy.
func start(t *testing.T, f *fixture) *running {
	t.Helper()
	r := run(t, f)
	waitFor(t, f, "the first healthy answer", func() bool {
		code, _ := get(r.addr, "/healthz")
		return code == http.StatusOK
	})
	return r
}

// run runs a daemon of f.cfg until the test ends, and waits for it to
// serve: its address is read from its "serving" log line.
func run(t *testing.T, f *fixture) *running {
	t.Helper()
	d := serve.New(f.cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	var once sync.Once
	var err error
	r := &running{d: d, stop: func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}}
	t.Cleanup(func() { r.stop() })
	waitFor(t, f, "the serving line", func() bool {
		select {
		case err := <-done:
			t.Fatalf("Run returned %v:\n%s", err, f.log)
		default:
		}
		r.addr = servingAddr(f.log.String())
		return r.addr != ""
	})
	return r
}

// servingAddr is the address the "serving" log line names, "" before
// it is logged.
func servingAddr(log string) string {
	for _, line := range strings.Split(log, "\n") {
		var l struct{ Msg, Metrics string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "serving" {
			return strings.TrimSuffix(strings.TrimPrefix(l.Metrics, "http://"), "/metrics")
		}
	}
	return ""
}

// get returns the status and body of GET path, 0 when there is no answer.
func get(addr, path string) (int, string) {
	if addr == "" {
		return 0, ""
	}
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// scrape returns the sum of the values of each metric /metrics exposes,
// by name, as exact decimals of the text written.
func scrape(t *testing.T, addr string) map[string]decimal.Decimal {
	t.Helper()
	code, body := get(addr, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d\n%s", code, body)
	}
	out := map[string]decimal.Decimal{}
	for _, line := range strings.Split(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		series, value, _ := strings.Cut(line, " ")
		name, _, _ := strings.Cut(series, "{")
		v, err := decimal.NewFromString(value)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		out[name] = out[name].Add(v)
	}
	return out
}

// waitFor polls cond for 20 seconds.
func waitFor(t *testing.T, f *fixture, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s; log:\n%s", what, f.log)
		}
	}
}

// officialIs reports whether the official cost scraped is want.
func officialIs(t *testing.T, r *running, want string) func() bool {
	return func() bool {
		return scrape(t, r.addr)["tokenfare_official_cost"].Equal(decimal.RequireFromString(want))
	}
}

// TestRunServes: the daemon serves the state's figures on /metrics, its
// health on /healthz, and nothing else; a cancelled context ends Run
// with nil, after it logged its stop and closed its port.
func TestRunServes(t *testing.T) {
	f := newFixture(t)
	r := start(t, f)
	got := scrape(t, r.addr)
	want := map[string]string{
		"tokenfare_official_cost":  official,
		"tokenfare_recorded_spend": recorded,
		"tokenfare_calls_total":    "2",
	}
	for name, w := range want {
		if !got[name].Equal(decimal.RequireFromString(w)) {
			t.Errorf("%s = %s, want %s", name, got[name], w)
		}
	}
	requests := []struct {
		method, path string
		code         int
		body         string
	}{
		{method: "GET", path: "/healthz", code: http.StatusOK, body: "ok\n"},
		{method: "POST", path: "/healthz", code: http.StatusMethodNotAllowed},
		{method: "GET", path: "/", code: http.StatusNotFound},
	}
	for _, rq := range requests {
		resp, err := http.DefaultClient.Do(mustRequest(t, rq.method, "http://"+r.addr+rq.path))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != rq.code || (rq.body != "" && string(body) != rq.body) {
			t.Errorf("%s %s: %d %q, want %d %q", rq.method, rq.path, resp.StatusCode, body, rq.code, rq.body)
		}
	}
	if !r.d.Healthy() {
		t.Error("Healthy() false while /healthz says ok")
	}
	if err := r.stop(); err != nil {
		t.Errorf("Run after cancel: %v, want nil", err)
	}
	if !strings.Contains(f.log.String(), `"msg":"stopping"`) {
		t.Errorf("no stop logged:\n%s", f.log)
	}
	if c, err := net.Dial("tcp", r.addr); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after Run returned", r.addr)
	}
}

func mustRequest(t *testing.T, method, url string) *http.Request {
	t.Helper()
	rq, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rq
}

// TestReload: the catalog is read again on Reload and when the tariff
// files' stamp changes, and the whole state re-priced at it; a catalog
// with errors is not taken, and the figures stay at the one in use.
func TestReload(t *testing.T) {
	f := newFixture(t)
	f.cfg.Interval = 50 * time.Millisecond
	r := start(t, f)
	steps := []struct {
		name   string
		tariff string
		act    func()
		log    string // a line the step logs
		want   string // the official cost after it
	}{
		{name: "Reload", tariff: tariff("0.40", "2.00"), act: func() { r.d.Reload("asked") },
			log: `"msg":"tariffs reloaded","why":"asked"`, want: officialDouble},
		{name: "the stamp changed", tariff: tariff("0.20", "1.00"), act: func() { f.stamp.Store("second") },
			log: `"msg":"tariffs reloaded","why":"tariff files changed"`, want: official},
		{name: "a catalog with errors", tariff: "provider: [\n", act: func() { r.d.Reload("broken") },
			log: `"msg":"tariffs not reloaded: the catalog in use is kept","why":"broken"`, want: official},
		{name: "Reload again, mended", tariff: tariff("0.40", "2.00"), act: func() { r.d.Reload("mended") },
			log: `"msg":"tariffs reloaded","why":"mended"`, want: officialDouble},
	}
	for _, st := range steps {
		write(t, f.tariffs, st.tariff)
		st.act()
		waitFor(t, f, st.name+": "+st.log, func() bool { return strings.Contains(f.log.String(), st.log) })
		waitFor(t, f, st.name+": official cost "+st.want, officialIs(t, r, st.want))
		if !r.d.Healthy() {
			t.Errorf("%s: not healthy", st.name)
		}
	}
}

// TestHealth: a refresh that fails makes the daemon unhealthy, /healthz
// 503 with why, and keeps the figures of the last good one; the next
// good refresh makes it healthy again.
func TestHealth(t *testing.T) {
	f := newFixture(t)
	f.cfg.Interval = 50 * time.Millisecond
	r := start(t, f)
	fail := errors.New("the database is down")
	steps := []struct {
		name    string
		failing *error
		code    int
		body    string
	}{
		{name: "refresh fails", failing: &fail, code: http.StatusServiceUnavailable, body: "the last refresh failed\n"},
		{name: "refresh mended", code: http.StatusOK, body: "ok\n"},
	}
	for _, st := range steps {
		f.failing.Store(st.failing)
		waitFor(t, f, st.name, func() bool {
			code, body := get(r.addr, "/healthz")
			return code == st.code && body == st.body && r.d.Healthy() == (st.code == http.StatusOK)
		})
		if !officialIs(t, r, official)() {
			t.Errorf("%s: the official cost is not the last good refresh's %s", st.name, official)
		}
	}
	if !strings.Contains(f.log.String(), `"msg":"refresh","error":"the database is down"`) {
		t.Errorf("the failed refresh is not logged:\n%s", f.log)
	}
}

// TestRunListenError: an address taken is Run's *ListenError, returned
// at once, before anything is logged as served.
func TestRunListenError(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	f := newFixture(t)
	f.cfg.Listen = taken.Addr().String()
	done := make(chan error, 1)
	go func() { done <- serve.New(f.cfg).Run(context.Background()) }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
	}
	var le *serve.ListenError
	if !errors.As(err, &le) || le.Addr != f.cfg.Listen || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("Run: %v, want a *ListenError for %s", err, f.cfg.Listen)
	}
	if log := f.log.String(); log != "" {
		t.Errorf("logged:\n%s", log)
	}
}

// TestOnce: Once refreshes the state once and returns, serving nothing;
// the state holds the calls after it.
func TestOnce(t *testing.T) {
	f := newFixture(t)
	if err := serve.New(f.cfg).Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	log := f.log.String()
	if strings.Contains(log, `"msg":"serving"`) || !strings.Contains(log, `"msg":"refreshed"`) || !strings.Contains(log, `"read":2,"priced":2`) {
		t.Errorf("log, want one refresh of 2 rows and no serving:\n%s", log)
	}
	sources, err := f.cfg.Store.Sources()
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) != 1 || sources[0].Rows.Read != 2 || sources[0].Rows.Priced != 2 {
		t.Errorf("the state's sources %+v, want one of 2 rows read, 2 priced", sources)
	}
}

// TestGatewayConfig: the LiteLLM config handed in is held against the
// blend: deepseek-flash's configured input price, 0.30 per 1M, is off
// the blend of 0.20 by (0.30 - 0.20) / 0.20 = 0.5; a config that cannot
// be read leaves the daemon unhealthy, its error logged.
func TestGatewayConfig(t *testing.T) {
	f := newFixture(t)
	f.cfg.Interval = 50 * time.Millisecond
	var broken atomic.Bool
	f.cfg.GatewayConfig = func(context.Context) (*metrics.GatewayConfig, error) {
		if broken.Load() {
			return nil, errors.New("read config: config.yaml: gone")
		}
		return &metrics.GatewayConfig{File: "config.yaml", Data: []byte("model_list:\n  - model_name: flash\n    litellm_params:\n      model: deepseek/deepseek-flash\n      input_cost_per_token: 3.0e-7\n")}, nil
	}
	r := start(t, f)
	if got := scrape(t, r.addr)["tokenfare_config_price_off_ratio"]; !got.Equal(decimal.RequireFromString("0.5")) {
		t.Errorf("tokenfare_config_price_off_ratio = %s, want 0.5", got)
	}
	broken.Store(true)
	waitFor(t, f, "unhealthy on a config not read", func() bool { return !r.d.Healthy() })
	if want := `"msg":"metrics","error":"read config: config.yaml: gone"`; !strings.Contains(f.log.String(), want) {
		t.Errorf("log without %s:\n%s", want, f.log)
	}
}

// brokenListener accepts no connection: the network under it is gone.
type brokenListener struct{ net.Listener }

var errGone = errors.New("accept: the network is gone")

func (brokenListener) Accept() (net.Conn, error) { return nil, errGone }

// TestRunServeError: the HTTP server's own error ends Run, which
// returns it, its refresh done and no stop logged.
func TestRunServeError(t *testing.T) {
	f := newFixture(t)
	d := serve.New(f.cfg)
	serve.ListenWith(d, func(network, addr string) (net.Listener, error) {
		ln, err := net.Listen(network, addr)
		return brokenListener{ln}, err
	})
	done := make(chan error, 1)
	go func() { done <- d.Run(context.Background()) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
	}
	if !errors.Is(err, errGone) {
		t.Fatalf("Run: %v, want the server's error %v", err, errGone)
	}
	if log := f.log.String(); !strings.Contains(log, `"msg":"refreshed"`) || strings.Contains(log, `"msg":"stopping"`) {
		t.Errorf("log, want a refresh and no stop:\n%s", log)
	}
}

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// syncBuffer is a buffer the server's goroutine writes while the test reads.
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

// freeAddr returns a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServe runs tokenfare serve in the test's process until the returned
// stop is called, which returns its exit code.
func startServe(t *testing.T, args ...string) (addr string, stderr *syncBuffer, stop func() int) {
	t.Helper()
	return startServeAt(t, time.Now, args...)
}

// startServeAt is startServe with the clock now. Serve listens on port 0
// of 127.0.0.1; its address is read from its "serving" log line.
func startServeAt(t *testing.T, now func() time.Time, args ...string) (addr string, stderr *syncBuffer, stop func() int) {
	t.Helper()
	stderr = &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: stderr, now: now}
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, a, append([]string{"serve", "--listen", "127.0.0.1:0", "--interval", "1s"}, args...))
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if addr == "" {
			addr = servingAddr(stderr.String())
		}
		if addr != "" {
			resp, err := http.Get("http://" + addr + "/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
		}
		select {
		case code := <-done:
			cancel()
			t.Fatalf("serve exited %d:\n%s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve not healthy after 20s:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return addr, stderr, func() int { cancel(); return <-done }
}

// servingAddr is the address serve's "serving" log line names, "" before
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

// promQuery runs an instant query and returns its single value as text,
// "" while the result is empty.
func promQuery(t *testing.T, addr, q string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Data.Result) != 1 {
		return ""
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	return s
}

// TestServePrometheus: a real Prometheus scrapes serve on loopback, and
// PromQL gives the official cost, recorded spend and calls that reconcile
// gives for the same rows: the money to its 9 decimal places (the sum of
// the series' floats rounded there), the counts exactly. SIGTERM's path
// (the context cancelled) ends serve with exit 0.
func TestServePrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("a real Prometheus scraping for seconds: make test-long runs it")
	}
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (Debian: apt-get install prometheus)")
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "spendlogs.csv")
	data, err := os.ReadFile("../../testdata/sample/spendlogs-2026-10.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(calls, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "", "reconcile", "--calls", calls, "-o", "json")
	if code != exitOK {
		t.Fatalf("reconcile: exit %d: %s", code, errs)
	}
	var want struct {
		Rows   map[string]int64
		Totals struct{ Official, Recorded string }
	}
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatal(err)
	}

	addr, stderr, stop := startServe(t, "--calls", calls, "--state", filepath.Join(dir, "state.db"))
	promAddr := freeAddr(t)
	config := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(config, []byte(fmt.Sprintf("global: {scrape_interval: 1s}\nscrape_configs:\n  - job_name: tokenfare\n    static_configs: [{targets: [%q]}]\n", addr)), 0o644)
	cmd := exec.Command(prom, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+promAddr)
	var promLog syncBuffer
	cmd.Stdout, cmd.Stderr = &promLog, &promLog
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()

	queries := []struct {
		query string
		want  string
		money bool
	}{
		{query: `sum(tokenfare_official_cost{currency="USD"})`, want: want.Totals.Official, money: true},
		{query: `sum(tokenfare_recorded_spend)`, want: want.Totals.Recorded, money: true},
		{query: `tokenfare_calls_total{outcome="priced"}`, want: strconv.FormatInt(want.Rows["priced"], 10)},
		{query: `tokenfare_calls_total{outcome="duplicate"}`, want: strconv.FormatInt(want.Rows["duplicate"], 10)},
		{query: `tokenfare_calls_total{outcome="failed"}`, want: strconv.FormatInt(want.Rows["failed"], 10)},
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, q := range queries {
		var got string
		for got = promQuery(t, promAddr, q.query); got == "" && time.Now().Before(deadline); got = promQuery(t, promAddr, q.query) {
			time.Sleep(250 * time.Millisecond)
		}
		if got == "" {
			t.Fatalf("%s: no result within 60s\nprometheus:\n%s\nserve:\n%s", q.query, promLog.String(), stderr.String())
		}
		if q.money {
			d, err := decimal.NewFromString(got)
			if err != nil {
				t.Fatalf("%s: %q: %v", q.query, got, err)
			}
			got = d.Round(9).String()
		}
		if got != q.want {
			t.Errorf("%s = %s, reconcile gives %s", q.query, got, q.want)
		}
	}
	if code := stop(); code != exitOK {
		t.Errorf("serve stopped with exit %d, want 0:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"msg":"stopping"`) {
		t.Errorf("serve did not log its stop:\n%s", stderr.String())
	}
}

// TestServeOnce: --once refreshes the state and exits 0 without serving; a
// second --once on the same state finds the file unchanged and reads
// nothing again (the state's rows read and priced calls stay as they were).
func TestServeOnce(t *testing.T) {
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	statePath := filepath.Join(t.TempDir(), "state.db")
	type logLine struct {
		Msg    string `json:"msg"`
		Read   int64  `json:"read"`
		Priced int64  `json:"priced"`
	}
	cases := []struct {
		name string
		read int64 // the state's rows read after the run
	}{
		{name: "first sync", read: 12000},
		{name: "again", read: 12000},
	}
	var priced []int64
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stderr syncBuffer
			a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, now: time.Now}
			done := make(chan int, 1)
			go func() {
				done <- runContext(context.Background(), a, []string{"serve", "--once", "--calls", sample, "--state", statePath})
			}()
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("serve --once exited %d:\n%s", code, stderr.String())
				}
			case <-time.After(60 * time.Second):
				t.Fatal("serve --once did not exit")
			}
			var got *logLine
			for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				var l logLine
				if err := json.Unmarshal([]byte(line), &l); err != nil {
					t.Fatalf("log line %q: %v", line, err)
				}
				if l.Msg == "serving" {
					t.Fatalf("serve --once served: %s", line)
				}
				if l.Msg == "refreshed" {
					got = &l
				}
			}
			if got == nil {
				t.Fatalf("no refreshed line:\n%s", stderr.String())
			}
			if got.Read != tc.read {
				t.Errorf("read %d rows, want %d", got.Read, tc.read)
			}
			if got.Priced <= 0 {
				t.Errorf("priced %d calls, want some", got.Priced)
			}
			priced = append(priced, got.Priced)
		})
	}
	if len(priced) == 2 && priced[0] != priced[1] {
		t.Errorf("the second --once priced %d calls in all, the first %d: a call counted twice", priced[1], priced[0])
	}
}

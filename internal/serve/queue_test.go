package serve_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger/usagequeue"
)

// TestServeQueueDiskFull: while the records popped from the usage queue
// cannot be written (/dev/full), the daemon holds them, is not healthy,
// and /healthz answers 503 saying so; Run still ends on its context.
func TestServeQueueDiskFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	var popped atomic.Bool
	queue := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v0/management/usage-queue" || r.Header.Get("Authorization") != "Bearer mgmt-secret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		if popped.Swap(true) {
			io.WriteString(w, "[]")
			return
		}
		io.WriteString(w, `[{"timestamp":"2026-12-01T13:25:21Z","model":"m","tokens":{"input_tokens":1}}]`)
	}))
	defer queue.Close()
	f := newFixture(t)
	f.cfg.Queue = &usagequeue.Collector{URL: queue.URL, Key: "mgmt-secret", File: "/dev/full", Client: &http.Client{Timeout: 10 * time.Second}}
	f.cfg.QueueEvery = 50 * time.Millisecond
	r := run(t, f)
	want := "1 records popped from the usage queue are held in memory: /dev/full cannot be written\n"
	waitFor(t, f, "/healthz saying the record is held", func() bool {
		code, body := get(r.addr, "/healthz")
		return code == http.StatusServiceUnavailable && body == want && !r.d.Healthy()
	})
	if err := r.stop(); err != nil {
		t.Errorf("Run after cancel: %v", err)
	}
}

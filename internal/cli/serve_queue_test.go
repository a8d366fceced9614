package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger/usagequeue"
)

// usageQueue is a CLIProxyAPI usage queue on loopback (GET
// /v0/management/usage-queue?count=N pops the oldest N records, the
// management key a bearer token).
type usageQueue struct {
	mu      sync.Mutex
	records []json.RawMessage
	bad     string // answered once, with 200, in place of records (a proxy's error page)
}

func (q *usageQueue) push(records ...json.RawMessage) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.records = append(q.records, records...)
}

func (q *usageQueue) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v0/management/usage-queue" || r.Header.Get("Authorization") != "Bearer mgmt-secret" {
		http.Error(w, "no", http.StatusUnauthorized)
		return
	}
	n, err := strconv.Atoi(r.URL.Query().Get("count"))
	if err != nil || n <= 0 {
		http.Error(w, "bad count", http.StatusBadRequest)
		return
	}
	q.mu.Lock()
	if bad := q.bad; bad != "" {
		q.bad = ""
		q.mu.Unlock()
		io.WriteString(w, bad)
		return
	}
	n = min(n, len(q.records))
	out := append([]json.RawMessage{}, q.records[:n]...)
	q.records = q.records[n:]
	q.mu.Unlock()
	json.NewEncoder(w).Encode(out)
}

// serveOnce runs serve --once with args and returns the state's rows read
// and priced that its last refreshed line logs.
func serveOnce(t *testing.T, args ...string) (read, priced int64, log string) {
	t.Helper()
	var stderr syncBuffer
	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, now: time.Now}
	if code := runContext(context.Background(), a, append([]string{"serve", "--once"}, args...)); code != exitOK {
		t.Fatalf("serve --once exited %d:\n%s", code, stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var l struct {
			Msg          string
			Read, Priced int64
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "refreshed" {
			read, priced = l.Read, l.Priced
		}
	}
	return read, priced, stderr.String()
}

// TestServeUsageQueue: serve pops a CLIProxyAPI usage queue into its
// records file and counts them from it. The 27 records a real
// CLIProxyAPI answered, popped in two refreshes (20, then 7) and after a
// process that died between its pop and its count (the 20 written, never
// counted), give reconcile's figures over the same records, each counted
// once.
func TestServeUsageQueue(t *testing.T) {
	const real = "../../testdata/cliproxy-real/usage-queue-v7.2.99.jsonl"
	data, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	var records []json.RawMessage
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		records = append(records, json.RawMessage(line))
	}
	code, out, errs := runCLI(t, "", "reconcile", "--calls", real, "-o", "json")
	if code != exitOK {
		t.Fatalf("reconcile: exit %d: %s", code, errs)
	}
	var want struct{ Rows map[string]int64 }
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatal(err)
	}
	if want.Rows["priced"] == 0 {
		t.Fatalf("the test's data: reconcile prices nothing: %v", want.Rows)
	}
	tests := []struct {
		name  string
		crash bool // the first pop's records written by a process that died before counting them
		bad   bool // the first answer is an HTML error page (kept aside, the records file left alone)
	}{
		{name: "two refreshes"},
		{name: "a crash between pop and count", crash: true},
		{name: "an error page first", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &usageQueue{}
			srv := httptest.NewServer(q)
			defer srv.Close()
			dir := t.TempDir()
			keyFile := filepath.Join(dir, "key")
			os.WriteFile(keyFile, []byte("mgmt-secret\n"), 0o600)
			args := []string{"--cliproxy-url", srv.URL, "--cliproxy-key-file", keyFile, "--state", filepath.Join(dir, "state.db")}
			q.push(records[:20]...)
			if tt.bad {
				q.bad = "<html><body><h1>502 Bad Gateway</h1></body></html>\n"
				if read, _, log := serveOnce(t, args...); read != 0 || !strings.Contains(log, "kept in") {
					t.Fatalf("after an error page: read %d rows, want 0, and the page kept aside:\n%s", read, log)
				}
			}
			if tt.crash {
				c := &usagequeue.Collector{URL: srv.URL, Key: "mgmt-secret", File: filepath.Join(dir, "cliproxy-usage-queue.jsonl")}
				if n, err := c.Collect(context.Background()); n != 20 || err != nil {
					t.Fatalf("collected %d, %v", n, err)
				}
			} else if read, _, log := serveOnce(t, args...); read != 20 {
				t.Fatalf("first refresh read %d rows, want 20:\n%s", read, log)
			}
			q.push(records[20:]...)
			read, priced, log := serveOnce(t, args...)
			if wantRead := int64(len(records)); read != wantRead || priced != want.Rows["priced"] {
				t.Errorf("read %d, priced %d; want %d read and reconcile's %d priced:\n%s", read, priced, wantRead, want.Rows["priced"], log)
			}
			if strings.Contains(log, "mgmt-secret") {
				t.Errorf("the management key is in the log:\n%s", log)
			}
		})
	}
}

// TestServeKeyFileMode: a management-key file others may read is used
// with a warning, as ssh warns of a private key; one only its owner reads
// is used without a word.
func TestServeKeyFileMode(t *testing.T) {
	tests := []struct {
		name string
		mode os.FileMode
		warn bool
	}{
		{name: "owner only", mode: 0o600},
		{name: "group may read", mode: 0o640, warn: true},
		{name: "everyone may read", mode: 0o644, warn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(&usageQueue{})
			defer srv.Close()
			dir := t.TempDir()
			keyFile := filepath.Join(dir, "key")
			os.WriteFile(keyFile, []byte("mgmt-secret\n"), 0o600)
			if err := os.Chmod(keyFile, tt.mode); err != nil {
				t.Fatal(err)
			}
			_, _, log := serveOnce(t, "--cliproxy-url", srv.URL, "--cliproxy-key-file", keyFile, "--state", filepath.Join(dir, "state.db"))
			if got := strings.Contains(log, "may be read by others"); got != tt.warn {
				t.Errorf("warned %v, want %v:\n%s", got, tt.warn, log)
			}
		})
	}
}

// TestServeOnceDiskFull: serve --once whose records cannot be written
// exits non-zero saying how many records are lost with it.
func TestServeOnceDiskFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	q := &usageQueue{}
	q.push(json.RawMessage(`{"timestamp":"2026-12-01T13:25:21Z","model":"m","tokens":{"input_tokens":1}}`))
	srv := httptest.NewServer(q)
	defer srv.Close()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte("mgmt-secret\n"), 0o600)
	code, _, stderr := runCLI(t, "", "serve", "--once", "--state", filepath.Join(dir, "state.db"),
		"--cliproxy-url", srv.URL, "--cliproxy-key-file", keyFile, "--cliproxy-records", "/dev/full")
	if code == exitOK || !strings.Contains(stderr, "1 records popped from the usage queue could not be written to /dev/full") {
		t.Errorf("exit %d, want an error saying 1 record is lost:\n%s", code, stderr)
	}
}

package usagequeue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// queue is a CLIProxyAPI usage queue on loopback: GET
// /v0/management/usage-queue?count=N pops the oldest N records, with the
// management key as a bearer token.
type queue struct {
	mu      sync.Mutex
	key     string
	records []json.RawMessage
	pops    int
}

func (q *queue) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v0/management/usage-queue" || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+q.key {
		http.Error(w, `{"error":"invalid management key"}`, http.StatusUnauthorized)
		return
	}
	n, err := strconv.Atoi(r.URL.Query().Get("count"))
	if err != nil || n <= 0 {
		http.Error(w, `{"error":"invalid count"}`, http.StatusBadRequest)
		return
	}
	q.mu.Lock()
	n = min(n, len(q.records))
	out := q.records[:n]
	q.records = q.records[n:]
	q.pops++
	q.mu.Unlock()
	if out == nil {
		out = []json.RawMessage{}
	}
	json.NewEncoder(w).Encode(out)
}

// realRecords are the 27 records a real CLIProxyAPI v7.2.99 answered.
func realRecords(t *testing.T) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("../../testdata/cliproxy-real/usage-queue-v7.2.99.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out []json.RawMessage
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		out = append(out, json.RawMessage(line))
	}
	return out
}

// lines are the file's records, one per line.
func lines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("%s does not end with a line break", path)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestCollect pops the queue into the file: every record once, in order,
// one per line; the file left ending inside a line gets its line break
// first; a key refused or a file that cannot be written pops nothing.
func TestCollect(t *testing.T) {
	records := realRecords(t)
	tests := []struct {
		name    string
		key     string
		file    func(dir string) string // the file to write, made as the case needs
		count   int
		before  []string // lines the file holds before, kept as they are
		written int
		pops    int
		err     error
	}{
		// 27 records 10 at a time: 10, 10, then 7 (fewer: the queue is empty).
		{name: "three answers", key: "mgmt", count: 10, written: 27, pops: 3},
		// 27 is exactly 27 asked: a fourth request finds the queue empty.
		{name: "as many as asked", key: "mgmt", count: 27, written: 27, pops: 2},
		{name: "a line cut short before", key: "mgmt", count: 500, written: 27, pops: 1,
			file: func(dir string) string {
				p := filepath.Join(dir, "queue.jsonl")
				os.WriteFile(p, []byte(`{"timestamp":"2026-12-01T13:25:21Z","tok`), 0o600)
				return p
			}, before: []string{`{"timestamp":"2026-12-01T13:25:21Z","tok`}},
		{name: "key refused", key: "wrong", count: 10, written: 0, pops: 0, err: ErrUnauthorized},
		{name: "file cannot be written", key: "mgmt", count: 10, written: 0, pops: 0,
			file: func(dir string) string { return dir }, err: os.ErrExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &queue{key: "mgmt", records: append([]json.RawMessage(nil), records...)}
			srv := httptest.NewServer(q)
			defer srv.Close()
			dir := t.TempDir()
			path := filepath.Join(dir, "queue.jsonl")
			if tt.file != nil {
				path = tt.file(dir)
			}
			c := &Collector{URL: srv.URL, Key: tt.key, File: path, Count: tt.count}
			n, err := c.Collect(context.Background())
			switch {
			case tt.err == ErrUnauthorized && !errors.Is(err, ErrUnauthorized):
				t.Fatalf("err %v, want the key refused", err)
			case tt.err == os.ErrExist && err == nil:
				t.Fatal("no error writing to a folder")
			case tt.err == nil && err != nil:
				t.Fatal(err)
			}
			if n != tt.written || q.pops != tt.pops {
				t.Errorf("written %d in %d pops, want %d in %d", n, q.pops, tt.written, tt.pops)
			}
			if tt.written == 0 {
				if len(q.records) != len(records) {
					t.Errorf("%d records left in the queue, want all %d", len(q.records), len(records))
				}
				return
			}
			got := lines(t, path)
			want := tt.before
			for _, r := range records {
				var b bytes.Buffer
				json.Compact(&b, r)
				want = append(want, b.String())
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("file holds %d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
			}
			// The queue is empty now: nothing more is written.
			if n, err := c.Collect(context.Background()); n != 0 || err != nil {
				t.Errorf("again: %d written, %v", n, err)
			}
		})
	}
}

// badThenRecords answers its first request with its status and body, and
// the records after.
type badThenRecords struct {
	status  int
	body    string
	records []json.RawMessage
	calls   int
}

func (b *badThenRecords) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.calls++
	if b.calls == 1 {
		w.WriteHeader(b.status)
		w.Write([]byte(b.body))
		return
	}
	out := b.records
	b.records = nil
	if out == nil {
		out = []json.RawMessage{}
	}
	json.NewEncoder(w).Encode(out)
}

// TestCollectNotRecords: an answer that is not an array of objects is
// never written among the records: it is kept, byte for byte, in a file
// beside named by its time, the error names that file, and the next
// Collect writes the records that follow.
func TestCollectNotRecords(t *testing.T) {
	records := realRecords(t)[:3]
	at := time.Date(2026, 12, 1, 13, 25, 21, 5, time.UTC)
	tests := []struct {
		name, body string
		status     int
		aside      bool // kept aside (an HTTP error is not: it pops nothing)
	}{
		{name: "an HTML error page", status: 200, body: "<html><body>502 Bad Gateway</body></html>\n", aside: true},
		{name: "an object", status: 200, body: `{"error":"queue disabled"}`, aside: true},
		{name: "an array of numbers", status: 200, body: `[1,2,3]`, aside: true},
		{name: "an array cut short", status: 200, body: `[{"timestamp":"2026-12-01T13:25:21Z"},{"tok`, aside: true},
		{name: "more after the array", status: 200, body: `[{"a":1}] [{"b":2}]`, aside: true},
		{name: "empty", status: 200, body: ``, aside: true},
		{name: "a 502 status", status: 502, body: "<html>bad gateway</html>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(&badThenRecords{status: tt.status, body: tt.body, records: records})
			defer srv.Close()
			dir := t.TempDir()
			path := filepath.Join(dir, "queue.jsonl")
			c := &Collector{URL: srv.URL, File: path, Now: func() time.Time { return at }}
			n, err := c.Collect(context.Background())
			if err == nil || n != 0 {
				t.Fatalf("Collect = %d, %v; want 0 and an error", n, err)
			}
			aside := path + ".rejected-20261201T132521.000000005Z"
			got, rerr := os.ReadFile(aside)
			switch {
			case tt.aside && rerr != nil:
				t.Fatalf("not kept aside: %v", rerr)
			case tt.aside && string(got) != tt.body:
				t.Errorf("kept %q, want %q", got, tt.body)
			case tt.aside && !strings.Contains(err.Error(), aside):
				t.Errorf("the error %q does not name %s", err, aside)
			case !tt.aside && rerr == nil:
				t.Errorf("an HTTP error was kept aside")
			}
			if data, _ := os.ReadFile(path); len(data) != 0 {
				t.Errorf("the records file holds %q, want nothing", data)
			}
			if n, err := c.Collect(context.Background()); n != len(records) || err != nil {
				t.Fatalf("the next Collect = %d, %v; want %d records", n, err, len(records))
			}
			if got := lines(t, path); len(got) != len(records) {
				t.Errorf("%d lines, want %d", len(got), len(records))
			}
		})
	}
}

// endless answers an array of size bytes of records of about recordSize
// bytes each, made as it is sent.
type endless struct{ size, recordSize int }

func (e endless) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := `{"timestamp":"2026-12-01T13:25:21Z","model":"m","pad":"` + strings.Repeat("x", e.recordSize-60) + `"}`
	io.WriteString(w, "[")
	for sent := 1; sent+len(rec)+2 < e.size; sent += len(rec) + 1 {
		if sent > 1 {
			io.WriteString(w, ",")
		}
		if _, err := io.WriteString(w, rec); err != nil {
			return // the client went away
		}
	}
	io.WriteString(w, "]")
}

// TestCollectBound: an answer larger than the records asked for can be
// (Count × RecordBound) is refused once that much is read, whatever its
// size: nothing is written among the records, what was read is kept
// aside, and memory stays near the bound. An answer within it is
// written.
func TestCollectBound(t *testing.T) {
	const count = 10
	tests := []struct {
		name       string
		size       int
		recordSize int
		written    int
	}{
		// 300 MiB: refused at 640 KiB read.
		{name: "300 MiB answer", size: 300 << 20, recordSize: 1300},
		// Ten records of 60 KiB: 600 KiB, within 10 × 64 KiB.
		{name: "ten large records", size: 10*(60<<10+1) + 1, recordSize: 60 << 10, written: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(endless{size: tt.size, recordSize: tt.recordSize})
			defer srv.Close()
			dir := t.TempDir()
			path := filepath.Join(dir, "queue.jsonl")
			c := &Collector{URL: srv.URL, File: path, Count: count}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			ans, err := c.pop(context.Background(), count)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("allocated %d MiB reading the answer, want at most 16", alloc>>20)
			}
			if tt.written == 0 {
				if !errors.Is(err, ErrTooLarge) {
					t.Fatalf("err %v, want ErrTooLarge", err)
				}
				aside, _ := filepath.Glob(path + ".rejected-*")
				if len(aside) != 1 {
					t.Fatalf("kept aside in %v, want one file", aside)
				}
				if st, _ := os.Stat(aside[0]); st.Size() > count*RecordBound {
					t.Errorf("kept %d bytes aside, more than the bound %d", st.Size(), count*RecordBound)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ans.n != tt.written || bytes.Count(ans.lines.Bytes(), []byte("\n")) != tt.written {
				t.Errorf("%d records in %d lines, want %d", ans.n, bytes.Count(ans.lines.Bytes(), []byte("\n")), tt.written)
			}
		})
	}
}

// TestCollectDiskFull: records popped while the file cannot be written
// (/dev/full answers every write with ENOSPC) are held, nothing more is
// popped meanwhile, and once the file can be written they reach it
// first, each once, in order, before the rest of the queue.
func TestCollectDiskFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	records := realRecords(t)
	q := &queue{key: "mgmt", records: append([]json.RawMessage(nil), records...)}
	srv := httptest.NewServer(q)
	defer srv.Close()
	c := &Collector{URL: srv.URL, Key: "mgmt", File: "/dev/full", Count: 10}
	steps := []struct {
		name          string
		file          string
		written, held int
		pops          int // in all, so far
		fails         bool
	}{
		{name: "disk full: the first ten held", file: "/dev/full", held: 10, pops: 1, fails: true},
		{name: "still full: no pop", file: "/dev/full", held: 10, pops: 1, fails: true},
		{name: "space again: held first, then the rest", file: filepath.Join(t.TempDir(), "queue.jsonl"), written: 27, pops: 3},
	}
	for _, s := range steps {
		c.File = s.file
		n, err := c.Collect(context.Background())
		if (err != nil) != s.fails || n != s.written || c.Held() != s.held || q.pops != s.pops {
			t.Fatalf("%s: wrote %d, held %d, %d pops, err %v; want %d, %d, %d, failing %v",
				s.name, n, c.Held(), q.pops, err, s.written, s.held, s.pops, s.fails)
		}
	}
	got := lines(t, c.File)
	if len(got) != len(records) {
		t.Fatalf("%d lines, want %d", len(got), len(records))
	}
	for i, r := range records {
		var b bytes.Buffer
		json.Compact(&b, r)
		if got[i] != b.String() {
			t.Errorf("line %d is %.60s, want %.60s", i+1, got[i], b.String())
		}
	}
}

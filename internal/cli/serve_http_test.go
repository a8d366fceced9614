//go:build unix

package cli

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestConnLimit(t *testing.T) {
	tests := []struct {
		name  string
		files uint64
		want  int
	}{
		{name: "unknown", files: 0, want: 256},
		{name: "the usual 1024", files: 1024, want: 256},
		{name: "few files", files: 40, want: 16},
		{name: "a raised limit", files: 1 << 20, want: 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := connLimit(tt.files); got != tt.want {
				t.Errorf("connLimit(%d) = %d, want %d", tt.files, got, tt.want)
			}
		})
	}
}

// TestIdleConnectionClosed: a keep-alive connection left idle past the
// idle timeout is closed by the server.
func TestIdleConnectionClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := defaultHTTPLimits()
	l.idle = 200 * time.Millisecond
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") }), l)
	go srv.Serve(newLimitListener(ln, l.conns))
	defer srv.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatalf("the idle connection: %v, want it closed (EOF)", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("closed after %v, want about the idle timeout", d)
	}
}

// TestServeManyIdleClients: with 512 open files allowed, 300 idle
// clients leave serve the descriptors its refreshes need: every refresh
// still reads its file, none fails.
func TestServeManyIdleClients(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls.csv")
	data, err := os.ReadFile("../../testdata/sample/spendlogs-2026-10.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 12)
	writeCalls(t, calls, strings.Join(lines[:3], "\n")+"\n")
	low := old
	low.Cur = 512
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	addr, stderr, stop := startServe(t, "--calls", calls, "--state", filepath.Join(dir, "state.db"))
	defer stop()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 300 {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			t.Fatalf("client %d: %v", len(conns)+1, err)
		}
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") // then idle, kept alive
		conns = append(conns, c)
	}
	// A call more: the refreshes with 300 clients connected read it.
	f, _ := os.OpenFile(calls, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(lines[3] + "\n")
	f.Close()
	waitFor(t, "the new call read", stderr, func() bool { return strings.Contains(stderr.String(), `"read":3`) })
	if strings.Contains(stderr.String(), "too many open files") || strings.Contains(stderr.String(), `"level":"ERROR"`) {
		t.Errorf("serve ran short of files:\n%s", stderr.String())
	}
}

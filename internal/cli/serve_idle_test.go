//go:build unix

package cli

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

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

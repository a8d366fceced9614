//go:build unix

package serve_test

import (
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeManyIdleClients: with 512 open files allowed, 300 idle
// clients leave the daemon the descriptors its refreshes need: every
// refresh still reads its file, none fails.
func TestServeManyIdleClients(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip(err)
	}
	low := old
	low.Cur = 512
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	f := newFixture(t)
	f.cfg.Interval = 50 * time.Millisecond
	r := start(t, f)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 300 {
		c, err := net.DialTimeout("tcp", r.addr, 2*time.Second)
		if err != nil {
			t.Fatalf("client %d: %v", len(conns)+1, err)
		}
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") // then idle, kept alive
		conns = append(conns, c)
	}
	// A call more: the refreshes with 300 clients connected read it.
	lines := strings.Split(calls, "\n")
	file, err := os.OpenFile(f.calls, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	file.WriteString(strings.Replace(lines[2], "r2,", "r3,", 1) + "\n")
	file.Close()
	waitFor(t, f, "the new call read", func() bool { return strings.Contains(f.log.String(), `"read":3`) })
	if log := f.log.String(); strings.Contains(log, "too many open files") || strings.Contains(log, `"level":"ERROR"`) {
		t.Errorf("the daemon ran short of files:\n%s", log)
	}
}

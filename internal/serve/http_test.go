package serve

import (
	"bufio"
	"io"
	"net"
	"net/http"
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

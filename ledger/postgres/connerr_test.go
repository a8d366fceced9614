package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
)

// TestWrapSortsByType sorts each kind of failure the driver hands back,
// wrapped as it wraps them, into a lost connection or a failed query.
// Errors whose text merely reads like a lost connection are queries: the
// sorting looks at types, codes and errnos, never at words.
func TestWrapSortsByType(t *testing.T) {
	src, err := New("postgres://u:pw@127.0.0.1:1/db", Options{})
	if err != nil {
		t.Fatal(err)
	}
	opErr := func(op string, errno error) error {
		return &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, errno)}
	}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"a socket reset", fmt.Errorf("read: %w", opErr("read", syscall.ECONNRESET)), ErrConnection},
		{"a refused dial", opErr("dial", syscall.ECONNREFUSED), ErrConnection},
		{"a reset errno outside a net error", fmt.Errorf("receive message: %w", syscall.ECONNRESET), ErrConnection},
		{"a refused errno outside a net error", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), ErrConnection},
		{"an aborted connection", fmt.Errorf("x: %w", syscall.ECONNABORTED), ErrConnection},
		{"a broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), ErrConnection},
		{"a message cut short", fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF), ErrConnection},
		{"the server gone between messages", fmt.Errorf("receive message: %w", io.EOF), ErrConnection},
		{"a closed network connection", fmt.Errorf("x: %w", net.ErrClosed), ErrConnection},
		{"a connection the driver closed", fmt.Errorf("query: %w", pgconn.ErrConnClosed), ErrConnection},
		{"a read timeout", &net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}, ErrConnection},
		{"terminated by an administrator (57P01)", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, ErrConnection},
		{"a protocol violation (08P01)", &pgconn.PgError{Code: "08P01", Message: "invalid message"}, ErrConnection},
		{"a missing column (42703)", &pgconn.PgError{Code: "42703", Message: `column "connection reset" does not exist`}, ErrQuery},
		{"text that reads like a reset", errors.New("bad value: connection reset in a model name"), ErrQuery},
		{"text that reads like EOF", errors.New(`cannot scan "unexpected EOF" into int8`), ErrQuery},
		{"text that reads like a closed conn", errors.New("conn closed tag in metadata"), ErrQuery},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := src.wrap(context.Background(), "read spend logs", tt.err)
			if !errors.Is(got, tt.want) {
				t.Errorf("wrap(%v) = %v, want kind %v", tt.err, got, tt.want)
			}
		})
	}
}

// timeoutErr is a net.Error that timed out, as a deadline on the socket gives.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestConnectFailures opens sources on a loopback port with nothing
// behind it, and on listeners that close or reset each connection as it
// comes: each is a lost connection, and the message names no password.
func TestConnectFailures(t *testing.T) {
	tests := []struct {
		name   string
		listen func(t *testing.T) string // returns host:port
	}{
		{"nothing listening", func(t *testing.T) string {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			l.Close()
			return addr
		}},
		{"a listener that closes", func(t *testing.T) string {
			return serve(t, func(c *net.TCPConn) { c.Close() })
		}},
		{"a listener that resets", func(t *testing.T) string {
			return serve(t, func(c *net.TCPConn) {
				c.SetLinger(0) // close sends RST
				c.Close()
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := New("postgres://tokenfare:secret-pw-7@"+tt.listen(t)+"/db?sslmode=disable&connect_timeout=5", Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.Open(context.Background())
			if !errors.Is(err, ErrConnection) {
				t.Fatalf("err = %v, want a lost connection", err)
			}
			if msg := err.Error(); strings.Contains(msg, "secret-pw-7") {
				t.Errorf("message shows the password: %s", msg)
			}
		})
	}
}

// serve accepts connections on a loopback port and hands each to handle.
func serve(t *testing.T, handle func(*net.TCPConn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			handle(c.(*net.TCPConn))
		}
	}()
	return l.Addr().String()
}

// TestConnectionCutMidStream reads through a relay that cuts the
// connection after the first batch, with a clean close (the driver reads
// an EOF mid-message) and with a reset (ECONNRESET): the next read fails
// as a lost connection, not as a query, though the server said nothing.
func TestConnectionCutMidStream(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	db.Amplify(t, streamCopies()) // far more rows than socket buffers hold
	for _, reset := range []bool{false, true} {
		name := map[bool]string{false: "closed", true: "reset"}[reset]
		t.Run(name, func(t *testing.T) {
			r := newRelay(t, db.URL)
			ctx := context.Background()
			rd := openDB(t, r.url, Options{})
			defer rd.Close()
			var b ledger.Batch
			if err := rd.Next(ctx, &b); err != nil || len(b.Calls) == 0 {
				t.Fatalf("first batch: %d calls, %v", len(b.Calls), err)
			}
			r.cut(reset)
			var err error
			for err == nil {
				err = rd.Next(ctx, &b)
			}
			if !errors.Is(err, ErrConnection) {
				t.Errorf("err = %v, want a lost connection", err)
			}
		})
	}
}

// streamCopies is how many copies of the sample a test of a connection
// lost mid-stream reads: 100 (about 100,000 rows, 100 MB), 50 under
// -short, still ten times what the sockets between the server and the
// reader buffer.
func streamCopies() int {
	if testing.Short() {
		return 50
	}
	return 100
}

// relay forwards loopback connections to a PostgreSQL server until cut.
type relay struct {
	url   string
	mu    sync.Mutex
	conns []*net.TCPConn // the client side of each relayed connection
}

func newRelay(t *testing.T, dbURL string) *relay {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil || u.Host == "" {
		t.Skipf("the test database is not reached over TCP (%s)", u.Redacted())
	}
	server := u.Host
	r := &relay{}
	addr := serve(t, func(c *net.TCPConn) {
		up, err := net.DialTimeout("tcp", server, 5*time.Second)
		if err != nil {
			c.Close()
			return
		}
		r.mu.Lock()
		r.conns = append(r.conns, c)
		r.mu.Unlock()
		go func() { io.Copy(up, c); up.Close() }()
		go func() { io.Copy(c, up); c.Close() }()
	})
	u.Host = addr
	r.url = u.String()
	return r
}

// cut ends every relayed connection on the client's side: a clean close,
// or a reset.
func (r *relay) cut(reset bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		if reset {
			c.SetLinger(0)
		}
		c.Close()
	}
}

// Package pgtest gives tests a real, throwaway PostgreSQL database.
//
// The server is the one TOKENFARE_TEST_DATABASE_URL names (CI starts one),
// else a private server started from Debian's postgresql package: initdb
// into a temporary folder, listening only on a Unix socket inside it,
// password authentication, stopped when the test binary ends (call Main
// from TestMain). Each test gets a database of its own, dropped at its end.
//
// With no server and no PostgreSQL binaries, database tests skip with a
// message saying how to run them; under CI (CI=true) they fail instead.
package pgtest

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable that points tests at a running server. Its
// role needs CREATEDB.
const EnvURL = "TOKENFARE_TEST_DATABASE_URL"

// Schemas of LiteLLM's tables, as two releases define them.
const (
	SchemaCurrent = "litellm-current.sql" // recent release: status, MCP and agent columns, deleted keys
	SchemaV140    = "litellm-v1.40.sql"   // older release: no status column, no deleted-key table
)

//go:embed schema/*.sql
var schemas embed.FS

// Password is the password of the private server's role.
const Password = "tokenfare-test-secret"

// server is the PostgreSQL the tests of this process share.
type server struct {
	admin   string // URL of a database to create others from
	dir     string // data folder of a private server; "" for an outside one
	pgCtl   string
	runAs   string // user owning a private server when the tests run as root
	err     error  // why no server is available
	skipMsg string
}

var (
	once   sync.Once
	shared server
)

// Main runs the tests and stops a private server afterwards. Call it from
// TestMain: func TestMain(m *testing.M) { pgtest.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	shared.stop()
	os.Exit(code)
}

// DB is one test's database.
type DB struct {
	URL  string // connection URL, with the password
	Name string // database name
}

// New returns a fresh, empty database for t, dropped at the end of t. It
// skips t when no PostgreSQL is available, and fails it under CI.
func New(t testing.TB) *DB {
	t.Helper()
	once.Do(shared.start)
	if shared.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is required under CI: %v", shared.err)
		}
		t.Skipf("no PostgreSQL: %v (%s)", shared.err, shared.skipMsg)
	}
	name := "tf_" + randomHex(6)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := exec1(ctx, shared.admin, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// A backend a test terminated may still be on its way out, and the
		// forced drop can refuse while it is: try again for a few seconds.
		var err error
		for try := 0; try < 20; try++ {
			if err = exec1(ctx, shared.admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err == nil {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Errorf("drop database %s: %v", name, err)
	})
	return &DB{URL: withDatabase(shared.admin, name), Name: name}
}

// NewLiteLLM returns a fresh database holding LiteLLM's empty tables as
// the schema file (SchemaCurrent or SchemaV140) defines them.
func NewLiteLLM(t testing.TB, schema string) *DB {
	t.Helper()
	db := New(t)
	ddl, err := schemas.ReadFile("schema/" + schema)
	if err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	db.Exec(t, string(ddl))
	return db
}

// Exec runs sql (several statements allowed) and fails t on error.
func (db *DB) Exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	if len(args) == 0 {
		_, err = conn.PgConn().Exec(ctx, sql).ReadAll()
	} else {
		_, err = conn.Exec(ctx, sql, args...)
	}
	if err != nil {
		t.Fatalf("exec %.80q: %v", sql, err)
	}
}

// Connect opens a connection to the database, closed at the end of t.
func (db *DB) Connect(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// WithPassword returns the database's URL with another password.
func (db *DB) WithPassword(password string) string {
	u, err := url.Parse(db.URL)
	if err != nil || u.User == nil {
		return db.URL
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String()
}

func exec1(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// withDatabase returns dsn naming database name instead of its own.
func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *server) start() {
	if dsn := os.Getenv(EnvURL); dsn != "" {
		s.admin = dsn
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := exec1(ctx, dsn, "SELECT 1"); err != nil {
			s.err = fmt.Errorf("%s does not answer: %w", EnvURL, err)
			s.skipMsg = "start the server it names, or unset it to let the tests start their own"
		}
		return
	}
	s.skipMsg = "install Debian's postgresql package (apt-get install postgresql) to let the tests start a private server, or set " +
		EnvURL + "=postgres://user:password@host:port/db to a server where that role may create databases"
	bin, err := binDir()
	if err != nil {
		s.err = err
		return
	}
	s.err = s.startPrivate(bin)
}

// binDir finds the newest PostgreSQL binaries of Debian's package.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) < versionOf(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", errors.New("no /usr/lib/postgresql/*/bin/initdb")
}

func versionOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// startPrivate runs initdb and starts a server on a Unix socket in a new
// temporary folder. initdb refuses to run as root: as root the server
// runs as the postgres user.
func (s *server) startPrivate(bin string) error {
	dir, err := os.MkdirTemp("", "tokenfare-pg-")
	if err != nil {
		return err
	}
	s.dir, s.pgCtl = dir, filepath.Join(bin, "pg_ctl")
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return errors.New("running as root and there is no postgres user to run the server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return err
		}
		s.runAs = "postgres"
	}
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(Password+"\n"), 0o644); err != nil {
		return err
	}
	data := filepath.Join(dir, "data")
	if out, err := s.run(filepath.Join(bin, "initdb"), "-D", data, "-U", "tokenfare", "--auth=scram-sha-256",
		"--pwfile="+pwfile, "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off", dir)
	if out, err := s.run(s.pgCtl, "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		return fmt.Errorf("pg_ctl start: %v: %s %s", err, out, log)
	}
	s.admin = fmt.Sprintf("postgres://tokenfare:%s@/postgres?host=%s&sslmode=disable", Password, url.QueryEscape(dir))
	return nil
}

// run runs a PostgreSQL binary, as the postgres user when running as root.
func (s *server) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	if s.runAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.runAs, "--", name}, args...)...)
	}
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

func (s *server) stop() {
	if s.dir == "" {
		return
	}
	// A throwaway server, stopped as the tests end: what fails here fails
	// no test, and its folder is under the system's temporary folder.
	_, _ = s.run(s.pgCtl, "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	_ = os.RemoveAll(s.dir)
}

package postgres

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/tokenfare/tokenfare/ledger"
)

// Format is the format name readers of this package report.
const Format = "litellm-postgres"

// Options say which calls a Source reads and how.
type Options struct {
	// Since and Until bound the billing instants wanted, [Since, Until);
	// zero means open. Rows are selected on "startTime", widened before
	// Since by the longest call that starts in the day before it, so that
	// the billing instant still decides; the engine counts the extra rows
	// as outside.
	Since, Until time.Time
	// StatementTimeout bounds each query; 0 means 30 minutes.
	StatementTimeout time.Duration
	// BatchSize is the most rows one Batch holds; 0 means 4096.
	BatchSize int
	// Known, when set for the day before Since ([Since less 24 hours,
	// Since)), is what the caller read before of the calls started then.
	// When the table holds as many rows started then (counted in the
	// "startTime" index), Since is widened by Known's longest call, and
	// the rows are not read for it.
	Known *ledger.Known
}

// Source reads LiteLLM's "LiteLLM_SpendLogs" from one PostgreSQL database.
type Source struct {
	cfg  *pgx.ConnConfig
	name string
	pw   string
	opts Options
	// splitMin is the least span of pages two connections read (split.go);
	// 0 never splits.
	splitMin int
	// afterExport, when set (by tests), runs once the first session has
	// exported its snapshot, before the second opens.
	afterExport func()
}

// New returns a source for the database at dsn (a postgres:// URL or a
// key=value string). Nothing is connected until Open. Errors never show
// the password.
func New(dsn string, opts Options) (*Source, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadURL, redact(err.Error(), passwordOf(dsn)))
	}
	if opts.StatementTimeout <= 0 {
		opts.StatementTimeout = 30 * time.Minute
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 4096
	}
	// Set at connection start, so no statement runs before they hold.
	rp := cfg.RuntimeParams
	rp["application_name"] = "tokenfare"
	rp["statement_timeout"] = strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10)
	rp["default_transaction_read_only"] = "on"
	rp["extra_float_digits"] = "1" // shortest text that reads back to the same double
	rp["DateStyle"] = "ISO, YMD"
	rp["TimeZone"] = "UTC"
	// The per-row subqueries of the queries are cheap: caching them costs more.
	rp["enable_memoize"] = "off"
	// Compiling the queries' expressions costs more than it saves.
	rp["jit"] = "off"
	// Enough memory to hold a window's groups in one hash table.
	rp["work_mem"] = "256MB"
	// A cancelled context (Ctrl-C) sends the server a cancel request and
	// waits for the query to end, up to cancelWait; only then is the
	// connection cut. Cutting it at once, pgx's default, leaves a backend
	// that sends nothing (a push-down sum, a wait on a lock) running on.
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: cancelWait}
	}
	cfg.BuildFrontend = bufferedFrontend
	return &Source{cfg: cfg, name: nameOf(cfg), pw: cfg.Password, opts: opts, splitMin: splitPages}, nil
}

// readBuffer is how much the connection reads from its socket at a time:
// row mode receives about a kilobyte a row, and the driver's own 8 KiB
// made a read system call every eight rows or so.
const readBuffer = 256 << 10

// bufferedFrontend is pgx's frontend reading through a larger buffer.
// pgconn looks into the frontend's own buffer only to hand the bare
// socket over (SyncConn, Hijack), which tokenfare never does.
func bufferedFrontend(r io.Reader, w io.Writer) *pgproto3.Frontend {
	return pgproto3.NewFrontend(bufio.NewReaderSize(r, readBuffer), w)
}

// Know sets Options.Known: what the caller read before of the calls
// started in the day before Since (nil: nothing).
func (s *Source) Know(k *ledger.Known) { s.opts.Known = k }

// sqlstateInsufficientPrivilege is PostgreSQL's SQLSTATE for a refused
// privilege ("permission denied for table ...").
const sqlstateInsufficientPrivilege = "42501"

// cancelWait bounds how long a cancelled query is waited for before its
// connection is closed.
const cancelWait = 2 * time.Second

// Name names the database without its password: "postgres://user@host:port/db".
func (s *Source) Name() string { return s.name }

func nameOf(cfg *pgx.ConnConfig) string {
	host := cfg.Host
	if strings.HasPrefix(host, "/") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s", cfg.User, host, cfg.Port, cfg.Database)
}

// session is one read-only transaction on one connection.
type session struct {
	src    *Source
	conn   *pgx.Conn
	tx     pgx.Tx
	schema *schema
	// from and until are the window's bounds once window has read them.
	from, until string
}

// begin connects, opens a read-only repeatable-read transaction (one
// snapshot for every query of the run) and probes LiteLLM's tables.
func (s *Source) begin(ctx context.Context) (*session, error) {
	conn, err := pgx.ConnectConfig(ctx, s.cfg.Copy())
	if err != nil {
		return nil, s.wrap(ctx, "connect", err)
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err != nil {
		conn.Close(context.Background())
		return nil, s.wrap(ctx, "begin a read-only transaction", err)
	}
	ss := &session{src: s, conn: conn, tx: tx}
	if ss.schema, err = probe(ctx, tx); err != nil {
		ss.close()
		return nil, s.wrap(ctx, "read the schema", err)
	}
	return ss, nil
}

func (ss *session) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ss.tx.Rollback(ctx)
	return ss.conn.Close(ctx)
}

// window returns the bounds of "startTime" to read, as text PostgreSQL
// reads as timestamp: Since widened by the longest call starting in the
// day before it, and Until. The session's queries share one answer.
func (ss *session) window(ctx context.Context) (string, string, error) {
	if ss.from == "" {
		var err error
		if ss.from, ss.until, err = ss.readWindow(ctx); err != nil {
			return "", "", err
		}
	}
	return ss.from, ss.until, nil
}

func (ss *session) readWindow(ctx context.Context) (string, string, error) {
	from, until := "-infinity", "infinity"
	o := ss.src.opts
	if !o.Until.IsZero() {
		until = sqlTime(o.Until)
	}
	if o.Since.IsZero() {
		return from, until, nil
	}
	day := o.Since.Add(-24 * time.Hour)
	if k := o.Known; k != nil && k.From.Equal(day) && k.Until.Equal(o.Since) {
		var rows int64
		err := ss.tx.QueryRow(ctx, `SELECT count(*) FROM "LiteLLM_SpendLogs" sl WHERE sl."startTime" >= $1::timestamp AND sl."startTime" < $2::timestamp`,
			sqlTime(day), sqlTime(o.Since)).Scan(&rows)
		if err != nil {
			return "", "", ss.src.wrap(ctx, "count the calls of the day before", err)
		}
		if rows == k.Rows {
			return sqlTime(o.Since.Add(-k.Longest - time.Second).Truncate(time.Second)), until, nil
		}
	}
	var longest time.Duration
	// The longest interval first, its seconds then: EXTRACT gives a
	// numeric, whose arithmetic a row would cost more than the interval's.
	q := `SELECT COALESCE(EXTRACT(EPOCH FROM max(GREATEST(sl."endTime", sl."completionStartTime") - sl."startTime")), 0)::float8
		FROM "LiteLLM_SpendLogs" sl WHERE sl."startTime" >= $1::timestamp AND sl."startTime" < $2::timestamp`
	if !ss.schema.spend["completionStartTime"] {
		q = strings.Replace(q, `, sl."completionStartTime"`, "", 1)
	}
	var secs float64
	err := ss.tx.QueryRow(ctx, q, sqlTime(day), sqlTime(o.Since)).Scan(&secs)
	if err != nil {
		return "", "", ss.src.wrap(ctx, "find the longest call", err)
	}
	longest = time.Duration(secs*float64(time.Second)) + time.Second
	return sqlTime(o.Since.Add(-longest).Truncate(time.Second)), until, nil
}

// sqlTime renders an instant as PostgreSQL reads a timestamp without zone.
func sqlTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.999999") }

// wrap gives err context, sorts it into this package's kinds and takes out
// the password wherever the driver echoed it.
// A failure once ctx is done is its cancellation, whatever the server
// answered: a cancelled query ends with the server's "canceling
// statement" (SQLSTATE 57014), the code of a statement timeout too.
func (s *Source) wrap(ctx context.Context, doing string, err error) error {
	var pgErr *pgconn.PgError
	kind := ErrQuery
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s %s: %w (%v)", doing, s.name, ctx.Err(), redact(err.Error(), s.pw))
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s %s: %w", doing, s.name, err)
	case errors.As(err, &pgErr) && (pgErr.Code == "28P01" || pgErr.Code == "28000"):
		kind = ErrAuth
	case errors.As(err, &pgErr) && pgErr.Code == sqlstateInsufficientPrivilege:
		return s.refused(doing, strings.TrimPrefix(redact(pgErr.Message, s.pw), "permission denied "))
	case errors.Is(err, ErrPermission):
		return s.refused(doing, strings.TrimPrefix(err.Error(), ErrPermission.Error()+": "))
	case errors.As(err, &pgErr) && pgErr.Code == "57014":
		kind = ErrTimeout
	case errors.As(err, &pgErr) && (strings.HasPrefix(pgErr.Code, "57P") || strings.HasPrefix(pgErr.Code, "08")):
		kind = ErrConnection // the server ended the session: shutdown, termination
	case errors.As(err, &pgErr):
		kind = ErrQuery
	case errors.Is(err, ErrMissingTable):
		kind = ErrMissingTable
	case pgconn.SafeToRetry(err) || isConnErr(err):
		kind = ErrConnection
	}
	msg := strings.TrimPrefix(redact(err.Error(), s.pw), kind.Error()+": ")
	return &Error{Kind: kind, Op: doing, DB: s.name, Msg: msg}
}

// refused is an ErrPermission error: the server's refusal, msg, with the
// grant that lifts it.
func (s *Source) refused(doing, msg string) *Error {
	return &Error{Kind: ErrPermission, Op: doing, DB: s.name, Msg: fmt.Sprintf(
		"%s; role %q needs: GRANT SELECT ON %q TO %s (and on %q, %q, %q for key and team aliases, when they exist)",
		msg, s.cfg.User, tableSpendLogs, pgx.Identifier{s.cfg.User}.Sanitize(), tableKeys, tableDeleted, tableTeams)}
}

// isConnErr reports whether err is the connection failing rather than a
// query: one that could not be opened (pgconn.ConnectError), one the
// driver had already closed (pgconn.ErrConnClosed), one cut mid-message
// (io.ErrUnexpectedEOF, io.EOF) or by the network (any net.Error: a reset,
// a refusal, a dial or read timeout; net.ErrClosed). The socket errors are
// also checked by their errno (ECONNRESET, ECONNREFUSED, ECONNABORTED,
// EPIPE), for a cause that reaches here unwrapped from its *net.OpError
// (on Windows the socket's own codes, WSAECONNRESET and the like, come
// inside a *net.OpError, which net.Error covers).
// Server-side endings (SQLSTATE classes 08 and 57P) are sorted by the
// caller from their code. Nothing is decided from an error's text.
func isConnErr(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	}
	for _, target := range connErrs {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// connErrs are the sentinel and errno values of a lost connection.
var connErrs = []error{pgconn.ErrConnClosed, io.ErrUnexpectedEOF, io.EOF, net.ErrClosed,
	syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ECONNABORTED, syscall.EPIPE}

// passwordOf returns the password of a URL or key=value string, if any,
// so that it can be taken out of messages even when parsing failed.
func passwordOf(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		pw, _ := u.User.Password()
		return pw
	}
	for _, f := range strings.Fields(dsn) {
		if v, ok := strings.CutPrefix(f, "password="); ok {
			return strings.Trim(v, "'")
		}
	}
	return ""
}

// redact replaces every occurrence of the password in msg.
func redact(msg, pw string) string {
	if pw == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, pw, "xxxxx")
	return strings.ReplaceAll(msg, url.QueryEscape(pw), "xxxxx")
}

// Identity returns what tells this database apart from every other: the
// system identifier of the server's cluster (pg_control_system(), the same
// on a primary and its physical replicas, whatever host name reaches
// them) with the database's oid. Where the role may not call
// pg_control_system, the server's start instant stands in for the
// identifier: it tells servers apart, but not a replica from its primary.
func (s *Source) Identity(ctx context.Context) (string, error) {
	conn, err := pgx.ConnectConfig(ctx, s.cfg.Copy())
	if err != nil {
		return "", s.wrap(ctx, "connect", err)
	}
	defer conn.Close(context.Background())
	const oid = `(SELECT oid::text FROM pg_database WHERE datname = current_database())`
	var system, db string
	err = conn.QueryRow(ctx, `SELECT (SELECT system_identifier::text FROM pg_control_system()), `+oid).Scan(&system, &db)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == sqlstateInsufficientPrivilege {
		err = conn.QueryRow(ctx, `SELECT 'started '||pg_postmaster_start_time()::text, `+oid).Scan(&system, &db)
		system = "server " + system
	} else {
		system = "system " + system
	}
	if err != nil {
		return "", s.wrap(ctx, "identify the database", err)
	}
	return system + ", database oid " + db, nil
}

// Distributed reports whether the spend logs are a distributed table of
// Citus (hash, range or append; not a reference or local table): its
// workers then sum their shards at once. Where Citus is installed but its
// catalog cannot be read, the table is taken as distributed: the sums,
// which the read of them tells about, are never slower there.
func (s *Source) Distributed(ctx context.Context) (bool, error) {
	ss, err := s.begin(ctx)
	if err != nil {
		return false, err
	}
	defer ss.close()
	if !ss.schema.citus {
		return false, nil
	}
	var spread bool
	err = ss.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_dist_partition
		WHERE logicalrelid = to_regclass(quote_ident($1)) AND partmethod IN ('h', 'r', 'a'))`, tableSpendLogs).Scan(&spread)
	switch {
	case err != nil && ctx.Err() != nil:
		return false, s.wrap(ctx, "ask Citus how the spend logs are spread", err)
	case err != nil:
		return true, nil
	}
	return spread, nil
}

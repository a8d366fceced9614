package postgres

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/tokenfare/tokenfare/ledger"
)

// splitPages is the least span of pages, between the window's first and
// last rows, that two connections read: below it (32 MiB) one reads.
const splitPages = 4096

// split reads the row query's rows from two connections at once: one
// reads the pages before a split page, the other the pages from it on,
// each in a transaction of the same snapshot (the first exports it, the
// other imports it), so the two see exactly the rows one would, each row
// once. Each connection's rows are mapped on a goroutine of its own; the
// server sends each half from a backend of its own. Where the table is
// not one heap (partitions, inheritance, Citus, whose workers take
// snapshots of their own), or small, one connection reads.
type split struct {
	other  *session
	cancel context.CancelFunc
	wg     sync.WaitGroup
	full   chan filled        // mapped batches, closed once both halves end
	free   chan *ledger.Batch // batches to fill
}

// filled is a batch a half mapped, and the error that ended it, if any.
type filled struct {
	b   *ledger.Batch
	err error
}

// splitRows starts the row query in two halves, or returns nil where one
// connection reads (see split). A second connection that cannot be had
// leaves the reading to the first.
func (ss *session) splitRows(ctx context.Context) (*split, error) {
	if !ss.schema.oneCtid || ss.src.splitMin <= 0 {
		return nil, nil
	}
	at, ok, err := ss.splitPage(ctx)
	if err != nil || !ok {
		return nil, err
	}
	var snap string
	if err := ss.tx.QueryRow(ctx, `SELECT pg_export_snapshot()`).Scan(&snap); err != nil {
		return nil, ss.src.wrap(ctx, "export the snapshot", err)
	}
	if ss.src.afterExport != nil {
		ss.src.afterExport()
	}
	other, err := ss.src.join(ctx, ss, snap)
	if err != nil {
		return nil, nil
	}
	sp, err := ss.startHalves(ctx, other, at)
	if err != nil {
		other.close()
		return nil, err
	}
	return sp, nil
}

// splitPage is the page the halves meet at: halfway between the pages of
// the window's first and last rows by "startTime" (its index finds them),
// as rows are mostly appended in time. ok is false where one connection
// reads: a server in recovery, a window of few pages.
func (ss *session) splitPage(ctx context.Context) (at int64, ok bool, err error) {
	var recovery bool
	var first, last *int64
	err = ss.tx.QueryRow(ctx, `SELECT pg_is_in_recovery(),
		(SELECT (sl.ctid::text::point)[0]::bigint FROM "LiteLLM_SpendLogs" sl `+inWindow+` ORDER BY sl."startTime" LIMIT 1),
		(SELECT (sl.ctid::text::point)[0]::bigint FROM "LiteLLM_SpendLogs" sl `+inWindow+` ORDER BY sl."startTime" DESC LIMIT 1)`,
		ss.from, ss.until).Scan(&recovery, &first, &last)
	if err != nil {
		return 0, false, ss.src.wrap(ctx, "find where to split "+tableSpendLogs, err)
	}
	if recovery || first == nil || last == nil {
		return 0, false, nil
	}
	lo, hi := min(*first, *last), max(*first, *last)
	if hi-lo+1 < int64(ss.src.splitMin) {
		return 0, false, nil
	}
	return lo + (hi-lo+1)/2, true, nil
}

// snapshotID is the form of pg_export_snapshot's answer, checked before
// it is written into SET TRANSACTION SNAPSHOT (which takes no parameter).
var snapshotID = regexp.MustCompile(`^[0-9A-Fa-f-]+$`)

// join opens a second session on the snapshot ss exported.
func (s *Source) join(ctx context.Context, ss *session, snap string) (*session, error) {
	if !snapshotID.MatchString(snap) {
		return nil, fmt.Errorf("snapshot %q", snap)
	}
	conn, err := pgx.ConnectConfig(ctx, s.cfg.Copy())
	if err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err == nil {
		_, err = tx.Exec(ctx, `SET TRANSACTION SNAPSHOT '`+snap+`'`)
	}
	if err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return &session{src: s, conn: conn, tx: tx, schema: ss.schema, from: ss.from, until: ss.until}, nil
}

// startHalves runs the row query on both sessions, each on its side of
// page at, and maps their rows on two goroutines. Each half is one
// backend's scan of its pages: no parallel workers.
func (ss *session) startHalves(ctx context.Context, other *session, at int64) (*split, error) {
	q := fragments{ss.schema}.rowQuery() + "\n\tAND sl.ctid %s $3::text::tid"
	tid := fmt.Sprintf("(%d,0)", at)
	gctx, cancel := context.WithCancel(ctx)
	sp := &split{other: other, cancel: cancel, full: make(chan filled, 4), free: make(chan *ledger.Batch, 4)}
	var streams []*stream
	for i, s := range []*session{ss, other} {
		st, err := s.halfStream(gctx, fmt.Sprintf(q, [2]string{"<", ">="}[i]), tid)
		if err != nil {
			cancel()
			for _, st := range streams {
				st.rows.Close()
			}
			return nil, err
		}
		streams = append(streams, st)
	}
	for range cap(sp.free) {
		sp.free <- &ledger.Batch{}
	}
	sp.wg.Add(len(streams))
	for _, st := range streams {
		go sp.run(gctx, st)
	}
	go func() { sp.wg.Wait(); close(sp.full) }()
	return sp, nil
}

// halfStream starts one half's query, q, with the split page's tid.
func (ss *session) halfStream(ctx context.Context, q, tid string) (*stream, error) {
	_, err := ss.tx.Exec(ctx, `SET LOCAL max_parallel_workers_per_gather = 0`)
	var rows pgx.Rows
	if err == nil {
		rows, err = ss.tx.Query(ctx, q, binaryResults, ss.from, ss.until, tid)
	}
	if err != nil {
		return nil, ss.src.wrap(ctx, "read "+tableSpendLogs, err)
	}
	st, err := ss.src.newStream(rows)
	if err != nil {
		rows.Close()
	}
	return st, err
}

// run maps one half's rows into batches until the half ends, fails or
// the split is closed.
func (sp *split) run(ctx context.Context, st *stream) {
	defer sp.wg.Done()
	defer st.rows.Close()
	for {
		var b *ledger.Batch
		select {
		case b = <-sp.free:
		case <-ctx.Done():
			return
		}
		err := st.next(ctx, b)
		if err == io.EOF {
			sp.free <- b // room for every batch: never blocks
			return
		}
		select {
		case sp.full <- filled{b, err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// next hands b the next batch either half mapped; io.EOF once both ended.
// b's storage goes back to the halves.
func (sp *split) next(ctx context.Context, b *ledger.Batch) error {
	b.Reset()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case f, ok := <-sp.full:
		if !ok {
			return io.EOF
		}
		b.Calls, f.b.Calls = f.b.Calls, b.Calls
		b.Rejected, f.b.Rejected = f.b.Rejected, b.Rejected
		b.Rows = f.b.Rows
		sp.free <- f.b
		return f.err
	}
}

// close stops both halves (a query still running is cancelled) and ends
// the second session.
func (sp *split) close() {
	sp.cancel()
	sp.wg.Wait()
	sp.other.close()
}

package postgres

import (
	"context"
	"io"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/tokenfare/tokenfare/ledger"
)

var _ ledger.Source = (*Source)(nil)

// Reader streams the calls of one database's spend logs, in no particular
// order, from one read-only transaction. Rows arrive as the server sends
// them: memory holds one batch, never the whole result. Plain rows come
// first; odd ones (see fragments.ok) are fetched again whole afterwards.
type Reader struct {
	ss     *session
	rows   pgx.Rows
	mapper *ledger.SpendLogMapper
	batch  int
	// lead is how many columns come before the mapper's: the plain-row
	// test and the ctid in the first query, none in the odd rows' query.
	lead int
	// odd holds the ctids of the odd rows seen, and oddRequests their request
	// ids, to fetch once the plain ones are read; past maxOddCtids the odd
	// rows are read by the window. A ctid alone names a row only in a plain
	// table: a partitioned one (or a Citus table's shards) has a ctid per
	// partition.
	odd, oddRequests []string
	oddAll           bool
	done             bool
}

// maxOddCtids bounds the odd rows fetched by ctid: past it, a second scan
// of the window reads them all.
var maxOddCtids = 1 << 16

// Open connects, probes the schema and starts the row query.
func (s *Source) Open(ctx context.Context) (ledger.Reader, error) {
	ss, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	r, err := ss.rowReader(ctx, nil)
	if err != nil {
		ss.close()
		return nil, err
	}
	return r, nil
}

// rowReader starts the row query on an open session (only odd rows when
// odd is not nil: those of its request ids, or, when it has too many, all
// of the window's). Closing the reader closes the session.
func (ss *session) rowReader(ctx context.Context, odd *oddIDs) (*Reader, error) {
	from, until, err := ss.window(ctx)
	if err != nil {
		return nil, err
	}
	mapper, err := ledger.NewSpendLogMapper(rowColumns)
	if err != nil {
		return nil, err
	}
	r := &Reader{ss: ss, mapper: mapper, batch: ss.src.opts.BatchSize}
	f := fragments{ss.schema}
	switch {
	case odd != nil && odd.all:
		r.rows, err = ss.tx.Query(ctx, f.oddWindowQuery(), from, until)
	case odd != nil:
		r.rows, err = ss.tx.Query(ctx, f.oddByIDQuery(), from, until, odd.ids)
	default:
		// Parallel workers compute each row's columns; the leader only
		// passes them on.
		if _, err = ss.tx.Exec(ctx, `SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0`); err == nil {
			r.rows, err = ss.tx.Query(ctx, f.rowQuery(), from, until)
			r.lead = 2
		}
	}
	if err != nil {
		return nil, ss.src.wrap(ctx, "read "+tableSpendLogs, err)
	}
	return r, nil
}

// oddRows starts the query of the odd rows seen; false when there are none.
func (r *Reader) oddRows(ctx context.Context) (bool, error) {
	if r.lead == 0 || (len(r.odd) == 0 && !r.oddAll) {
		return false, nil
	}
	f := fragments{r.ss.schema}
	var err error
	if r.oddAll {
		r.rows, err = r.ss.tx.Query(ctx, f.oddWindowQuery(), r.ss.from, r.ss.until)
	} else {
		args := []any{r.odd, r.oddRequests}
		if r.ss.schema.oneCtid {
			args = args[:1]
		}
		r.rows, err = r.ss.tx.Query(ctx, f.oddQuery(), args...)
	}
	if err != nil {
		return false, r.ss.src.wrap(ctx, "read "+tableSpendLogs, err)
	}
	r.lead, r.odd, r.oddRequests = 0, nil, nil
	return true, nil
}

// Format returns "litellm-postgres".
func (r *Reader) Format() string { return Format }

// Next refills b with the next rows; io.EOF once all are read. A row the
// mapper refuses is returned in b.Rejected, located by the database and its
// request id. Cancelling ctx (or the one Open had) stops the query.
func (r *Reader) Next(ctx context.Context, b *ledger.Batch) error {
	b.Reset()
	if r.done {
		return io.EOF
	}
	for b.Rows < r.batch {
		if b.Rows%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !r.rows.Next() {
			if err := r.rows.Err(); err != nil {
				r.done = true
				return r.ss.src.wrap(ctx, "read "+tableSpendLogs, err)
			}
			more, err := r.oddRows(ctx)
			if err != nil {
				r.done = true
				return err
			}
			if more {
				continue
			}
			r.done = true
			if b.Rows == 0 {
				return io.EOF
			}
			return nil
		}
		vals := r.rows.RawValues()
		if r.lead > 0 {
			if string(vals[0]) != "true" || !plainCounts(vals[r.lead:]) {
				if !r.oddAll {
					r.odd, r.oddRequests = append(r.odd, string(vals[1])), append(r.oddRequests, string(vals[2]))
					r.oddAll = len(r.odd) > maxOddCtids
				}
				continue
			}
			vals = vals[r.lead:]
		}
		b.Calls = append(b.Calls, ledger.Call{})
		c := &b.Calls[len(b.Calls)-1]
		if reason := r.mapper.Map(vals, "", c); reason != "" {
			b.Calls = b.Calls[:len(b.Calls)-1]
			b.Rejected = append(b.Rejected, ledger.Rejection{File: r.ss.src.name, Item: "request " + string(vals[0]), Reason: reason})
		} else {
			c.Source = c.RequestID
		}
		b.Rows++
	}
	return nil
}

// Positions of the row query's columns the reader tests.
var (
	colPrompt     = slices.Index(rowColumns, "prompt_tokens")
	colCompletion = slices.Index(rowColumns, "completion_tokens")
	colCached     = slices.Index(rowColumns, "cached_tokens")
	colWrite      = slices.Index(rowColumns, "cache_creation_tokens")
	colReasoning  = slices.Index(rowColumns, "reasoning_tokens")
)

// plainCounts is the part of the plain-row test (fragments.ok) the row
// query leaves to the reader: each metadata count is written as
// countPattern allows, and the prompt holds the reads and writes, the
// completion the reasoning. A row that passed the query's test and fails
// this one is odd.
func plainCounts(vals [][]byte) bool {
	cached, ok1 := patternCount(vals[colCached])
	write, ok2 := patternCount(vals[colWrite])
	reasoning, ok3 := patternCount(vals[colReasoning])
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	prompt, err1 := strconv.ParseInt(string(vals[colPrompt]), 10, 64)
	completion, err2 := strconv.ParseInt(string(vals[colCompletion]), 10, 64)
	return err1 == nil && err2 == nil && prompt >= cached+write && completion >= reasoning
}

// patternCount reads a count that matches countPattern: 0, or one to
// nine digits without a leading zero.
func patternCount(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 9 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Close ends the query and the connection.
func (r *Reader) Close() error {
	r.rows.Close()
	return r.ss.close()
}

package postgres

import (
	"context"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/tokenfare/tokenfare/ledger"
)

var _ ledger.Source = (*Source)(nil)

// Reader streams the calls of one database's spend logs, in no particular
// order, from one read-only transaction. Rows arrive as the server sends
// them: memory holds one batch, never the whole result.
type Reader struct {
	ss     *session
	rows   pgx.Rows
	mapper *ledger.SpendLogMapper
	batch  int
	done   bool
}

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
		}
	}
	if err != nil {
		return nil, ss.src.wrap(ctx, "read "+tableSpendLogs, err)
	}
	return r, nil
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
			r.done = true
			if err := r.rows.Err(); err != nil {
				return r.ss.src.wrap(ctx, "read "+tableSpendLogs, err)
			}
			if b.Rows == 0 {
				return io.EOF
			}
			return nil
		}
		vals := r.rows.RawValues()
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

// Close ends the query and the connection.
func (r *Reader) Close() error {
	r.rows.Close()
	return r.ss.close()
}

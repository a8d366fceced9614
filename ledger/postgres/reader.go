package postgres

import (
	"context"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/tokenfare/tokenfare/ledger"
)

var _ ledger.Source = (*Source)(nil)

// Reader streams the calls of one database's spend logs, in no particular
// order, from one read-only transaction, or from two that share its
// snapshot (split.go). Rows arrive as the server sends them: memory holds
// a few batches, never the whole result.
type Reader struct {
	ss     *session
	stream *stream // the rows of one connection, read on the caller's goroutine
	split  *split  // or those of two, mapped on goroutines of their own
}

// stream is one row query's result and the mapper that reads it.
type stream struct {
	src    *Source
	rows   pgx.Rows
	mapper *ledger.SpendLogMapper
	batch  int
	done   bool
	// bin are the columns that come in binary form (binaryResults), and
	// text holds a row's values of them written out.
	bin   []binaryColumn
	text  []byte
	dates dateCache
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
	if odd == nil {
		if sp, err := ss.splitRows(ctx); sp != nil || err != nil {
			return &Reader{ss: ss, split: sp}, err
		}
	}
	f := fragments{ss.schema}
	var rows pgx.Rows
	switch {
	case odd != nil && odd.all:
		rows, err = ss.tx.Query(ctx, f.oddWindowQuery(), binaryResults, from, until)
	case odd != nil:
		rows, err = ss.tx.Query(ctx, f.oddByIDQuery(), binaryResults, from, until, odd.ids)
	default:
		// Parallel workers compute each row's columns; the leader only
		// passes them on.
		if _, err = ss.tx.Exec(ctx, `SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0`); err == nil {
			rows, err = ss.tx.Query(ctx, f.rowQuery(), binaryResults, from, until)
		}
	}
	if err != nil {
		return nil, ss.src.wrap(ctx, "read "+tableSpendLogs, err)
	}
	st, err := ss.src.newStream(rows)
	if err != nil {
		rows.Close()
		return nil, err
	}
	return &Reader{ss: ss, stream: st}, nil
}

// newStream reads rows of the row queries' columns (rowColumns).
func (s *Source) newStream(rows pgx.Rows) (*stream, error) {
	mapper, err := ledger.NewSpendLogMapper(rowColumns)
	if err != nil {
		return nil, err
	}
	return &stream{src: s, rows: rows, mapper: mapper, batch: s.opts.BatchSize, bin: binaryColumns(rows.FieldDescriptions())}, nil
}

// Format returns "litellm-postgres".
func (r *Reader) Format() string { return Format }

// Next refills b with the next rows; io.EOF once all are read. A row the
// mapper refuses is returned in b.Rejected, located by the database and its
// request id. Cancelling ctx (or the one Open had) stops the query.
func (r *Reader) Next(ctx context.Context, b *ledger.Batch) error {
	if r.split != nil {
		return r.split.next(ctx, b)
	}
	return r.stream.next(ctx, b)
}

// next refills b with the stream's next rows; io.EOF once all are read.
func (st *stream) next(ctx context.Context, b *ledger.Batch) error {
	b.Reset()
	if st.done {
		return io.EOF
	}
	for b.Rows < st.batch {
		if b.Rows%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !st.rows.Next() {
			st.done = true
			if err := st.rows.Err(); err != nil {
				return st.src.wrap(ctx, "read "+tableSpendLogs, err)
			}
			if b.Rows == 0 {
				return io.EOF
			}
			return nil
		}
		st.add(b, st.rows.RawValues())
	}
	return nil
}

// add maps one row's values into b: a call, or a rejection naming the
// database and the request id.
func (st *stream) add(b *ledger.Batch, vals [][]byte) {
	st.text = st.text[:0]
	for _, c := range st.bin {
		if v := vals[c.at]; v != nil {
			from := len(st.text)
			st.text = appendText(st.text, c.oid, v, &st.dates)
			vals[c.at] = st.text[from:]
		}
	}
	b.Calls = append(b.Calls, ledger.Call{})
	c := &b.Calls[len(b.Calls)-1]
	if reason := st.mapper.Map(vals, "", c); reason != "" {
		b.Calls = b.Calls[:len(b.Calls)-1]
		b.Rejected = append(b.Rejected, ledger.Rejection{File: st.src.name, Item: "request " + string(vals[0]), Reason: reason})
	} else {
		c.Source = c.RequestID
	}
	b.Rows++
}

// Close ends the queries and the connections.
func (r *Reader) Close() error {
	if r.split != nil {
		r.split.close()
	} else {
		r.stream.rows.Close()
	}
	return r.ss.close()
}

package run

import (
	"sync/atomic"

	"github.com/tokenfare/tokenfare/ledger"
)

// Progress is how far the read of one source has got. Its methods are
// safe to call while the source is read.
type Progress struct {
	rows  atomic.Int64
	meter ledger.Meter // nil: the source does not tell its bytes (a database)
}

// Rows returns the rows read so far, accepted or rejected.
func (p *Progress) Rows() int64 { return p.rows.Load() }

// Bytes returns the bytes of the input read so far and its size, -1 when
// unknown (stdin, a pipe); ok is false for a source that does not count
// bytes (a database). A gzip file counts its compressed bytes.
func (p *Progress) Bytes() (read, size int64, ok bool) {
	if p.meter == nil {
		return 0, -1, false
	}
	read, size = p.meter.Consumed()
	return read, size, true
}

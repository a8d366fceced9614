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
	stage atomic.Uint32
}

// Stage is what the read of a source is at.
type Stage uint8

// The stages of a read.
const (
	// StageRows: rows are read one by one.
	StageRows Stage = iota
	// StageSumming: the database sums its calls (push-down); nothing has
	// come back yet.
	StageSumming
	// StagePricing: the database's sums come back and are priced; Rows
	// counts the sums.
	StagePricing
)

// String names the stage as the progress line says it.
func (s Stage) String() string {
	switch s {
	case StageSumming:
		return "summing in the database"
	case StagePricing:
		return "pricing the database's sums"
	}
	return "reading rows"
}

// Rows returns the rows read so far, accepted or rejected; while the
// database's sums are priced, the sums priced so far.
func (p *Progress) Rows() int64 { return p.rows.Load() }

// Stage returns what the read is at.
func (p *Progress) Stage() Stage { return Stage(p.stage.Load()) }

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

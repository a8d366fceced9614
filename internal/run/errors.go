package run

import (
	"fmt"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// ReadError is a failure to open or read a source (a file that cannot be
// read, bad content, a database that fails mid-way).
type ReadError struct {
	Source string // the source's name
	Err    error  // the reader's error, naming the file and line where it can
}

func (e *ReadError) Error() string { return "read calls: " + e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// DatabaseError is a failure of a database before or instead of its rows:
// telling who it is, summing its calls, or being the same database as
// another source.
type DatabaseError struct {
	Err error // a *postgres.Error where the database said why
}

func (e *DatabaseError) Error() string { return e.Err.Error() }
func (e *DatabaseError) Unwrap() error { return e.Err }

// RejectedError is the first rejected row of a strict run.
type RejectedError struct {
	Rejection ledger.Rejection
}

func (e *RejectedError) Error() string { return "read calls: " + e.Rejection.Error() }

// Why a run priced no call, in the order they are told apart.
type Reason uint8

const (
	// NoCalls: the sources hold no row at all.
	NoCalls Reason = iota
	// AllRejected: every row read was rejected.
	AllRejected
	// AllOutside: every call is billed outside the window.
	AllOutside
	// NoneByTariff: the calls are unpriced, retired, failed, duplicates,
	// cache hits or outside, in some mix.
	NoneByTariff
)

// NothingPricedError is a run that read its sources and priced no call.
// The Result returned with it holds the engine and the row accounting.
type NothingPricedError struct {
	Rows    pricing.Rows
	Sources []string // the names of the sources read, in order
	// First and Last are the billing instants of the calls read, of any
	// outcome; zero when no call was read.
	First, Last time.Time
	// Since and Until bound the window priced; a zero one is open.
	Since, Until time.Time
	Zone         *time.Location // the zone of the run's days, for hints
	// Hosts are the hosts no tariff prices that the unpriced calls name,
	// with their calls, most calls first.
	Hosts []pricing.HostCalls
}

// Calls returns the calls read: the rows read less the rejected.
func (e *NothingPricedError) Calls() int64 { return e.Rows.Read - e.Rows.Rejected }

// Reason tells why nothing was priced.
func (e *NothingPricedError) Reason() Reason {
	switch calls := e.Calls(); {
	case e.Rows.Read == 0:
		return NoCalls
	case calls == 0:
		return AllRejected
	case e.Rows.Outside == calls:
		return AllOutside
	}
	return NoneByTariff
}

func (e *NothingPricedError) Error() string {
	return fmt.Sprintf("nothing priced: %d row(s) read from %d source(s), %d rejected, %d outside the window",
		e.Rows.Read, len(e.Sources), e.Rows.Rejected, e.Rows.Outside)
}

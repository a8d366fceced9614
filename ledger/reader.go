package ledger

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Rejection is an input row that could not be read. File and Line (or,
// where rows are not lines, Item) say where it is, as fields.
type Rejection struct {
	File   string // the input's name
	Line   int    // 1-based line of the row; 0 when rows are not lines
	Item   string // the row's place when Line is 0: `[7] request_id "abc"`, `usage.apis #2 models["m"] details[3]`
	Reason string // why the row is rejected: the field and the value at fault
}

// Where names the row: "spend.csv:42", `logs.json[7] request_id "abc"`,
// "usage.json: usage.apis #2 ...".
func (r Rejection) Where() string {
	switch {
	case r.Line > 0:
		return r.File + ":" + strconv.Itoa(r.Line)
	case r.Item == "":
		return r.File
	case strings.HasPrefix(r.Item, "["):
		return r.File + r.Item
	}
	return r.File + ": " + r.Item
}

// Error formats the rejection as "where: reason".
func (r Rejection) Error() string { return r.Where() + ": " + r.Reason }

// Batch is a run of consecutive input rows. Every row read lands in exactly
// one of Calls or Rejected, so Rows == len(Calls) + len(Rejected).
type Batch struct {
	Calls    []Call
	Rejected []Rejection
	Rows     int
}

// Reset empties the batch, keeping its storage.
func (b *Batch) Reset() {
	b.Calls = b.Calls[:0]
	b.Rejected = b.Rejected[:0]
	b.Rows = 0
}

// take moves the calls, rejections and row count of from into b, and
// leaves from holding b's storage, emptied: a worker's batch is handed to
// the reader's caller without a copy, and refilled in the caller's old
// memory.
func (b *Batch) take(from *Batch) {
	b.Calls, from.Calls = from.Calls, b.Calls[:0]
	b.Rejected, from.Rejected = from.Rejected, b.Rejected[:0]
	b.Rows, from.Rows = from.Rows, 0
}

// Reader streams the calls of one input in input order.
type Reader interface {
	// Next refills b with the next rows. It returns io.EOF, with b empty,
	// once the input is exhausted. A bad row does not stop reading: it is
	// returned in b.Rejected. Any other error ends the stream: an
	// *InputError, or ctx's error once ctx is done.
	Next(ctx context.Context, b *Batch) error
	// Format names the detected input format, e.g. "litellm-spendlogs-csv".
	Format() string
	// Close stops the reader's goroutines and releases its input. Call it
	// once done, whether or not Next returned io.EOF.
	Close() error
}

// Known is what a caller read of one source before, for the calls started
// in [From, Until): how many rows, and the longest call among them (its
// start to its last instant logged). A database source told it counts
// the rows started then in its index, and, when they are as many, takes
// the longest call from Known instead of reading the rows again.
type Known struct {
	From, Until time.Time
	Rows        int64
	Longest     time.Duration
}

package ledger

import "fmt"

// Rejection is an input row that could not be read. Where names the row:
// "file:line" for files, the request id where there is no line.
type Rejection struct {
	Where  string
	Reason string
}

// Error formats the rejection as "where: reason".
func (r Rejection) Error() string { return fmt.Sprintf("%s: %s", r.Where, r.Reason) }

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

// Reader streams the calls of one input in input order. The readers Open
// returns also implement io.Closer: close them when stopping before Next
// has returned io.EOF.
type Reader interface {
	// Next refills b with the next rows. It returns io.EOF, with b empty,
	// once the input is exhausted. A bad row does not stop reading: it is
	// returned in b.Rejected. Any other error ends the stream.
	Next(b *Batch) error
	// Format names the detected input format, e.g. "litellm-spendlogs-csv".
	Format() string
}

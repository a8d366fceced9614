package pricing

import "errors"

// ErrTokenSum is what Engine.Err returns when adding a call's tokens would
// take a sum beyond the int64 range: the call is refused rather than let a
// total wrap. Test with errors.Is.
var ErrTokenSum = errors.New("token sums would exceed 2^63-1")

// ErrSpill is what Engine.Err returns, and a Reconciliation's groups, when
// the groups past the budget of buckets could not be written to their
// store (Options.Runs) or read back. Test with errors.Is.
var ErrSpill = errors.New("spill groups to disk")

// ErrClosed is the error of reading a result after its Close, or a
// spilled result of an engine closed before the result was made. Test
// with errors.Is.
var ErrClosed = errors.New("read after Close")

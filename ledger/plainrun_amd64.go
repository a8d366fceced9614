package ledger

// plainRun returns the index of the first byte from b[i] on that ends a
// quick run through a string (strStop), len(b) if none: sixteen bytes at a
// time (SSE2), then one at a time. plainRunWords is the same, eight bytes
// at a time, in Go.
//
//go:noescape
func plainRun(b []byte, i int) int

//go:build !amd64

package ledger

// plainRun returns the index of the first byte from b[i] on that ends a
// quick run through a string (strStop), len(b) if none.
func plainRun(b []byte, i int) int { return plainRunWords(b, i) }

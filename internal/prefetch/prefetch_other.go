//go:build !amd64

package prefetch

import "unsafe"

// Lines reads a word of each cache line of the n bytes from p, n > 0,
// and its last byte, and returns their sum, for the caller to keep.
func Lines(p unsafe.Pointer, n uintptr) uint64 { return readLines(p, n) }

// Waits reports whether Lines waits for the lines it asks for.
const Waits = true

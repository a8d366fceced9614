package prefetch

import "unsafe"

// Lines asks for the cache lines of the n bytes from p, n > 0, without
// waiting for them, and returns 0. The other machines' Lines reads the
// lines and returns their sum, for the caller to keep (a sink), so that
// no read is dropped: callers add the result to a sink on every machine.
//
//go:noescape
func Lines(p unsafe.Pointer, n uintptr) uint64

// Waits reports whether Lines waits for the lines it asks for.
const Waits = false

// Package prefetch asks for memory before it is used: a look-ahead that
// knows which cache lines the next calls or groups touch asks for them
// here, goes on with the work before, and finds them in the cache when
// their turn comes.
//
// On amd64, Lines issues PREFETCHT0 instructions, which wait for nothing.
// Elsewhere it reads a word of each line, which brings the line but waits
// for it: the look-ahead then overlaps the lines' reads with each other,
// not with the work before.
package prefetch

import "unsafe"

// lineSize is the size of a cache line, the stride of Lines.
const lineSize = 64

// readLines reads a word of each cache line of the n bytes from p, n > 0,
// 64 bytes apart from p's first while a whole word is left, and the last
// byte, and returns their sum: Lines where no instruction asks for a line
// without waiting for it.
func readLines(p unsafe.Pointer, n uintptr) uint64 {
	var sum uint64
	for off := uintptr(0); off+8 <= n; off += lineSize {
		sum += *(*uint64)(unsafe.Add(p, off))
	}
	return sum + uint64(*(*byte)(unsafe.Add(p, n-1)))
}

//go:build unix && !darwin

package hostile

import "syscall"

// maxRSSBytes is the peak resident set of a finished process: Linux and
// the BSDs count it in KiB.
func maxRSSBytes(ru *syscall.Rusage) int64 { return ru.Maxrss << 10 }

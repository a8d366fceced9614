package hostile

import "syscall"

// maxRSSBytes is the peak resident set of a finished process: macOS
// counts it in bytes.
func maxRSSBytes(ru *syscall.Rusage) int64 { return ru.Maxrss }

// lowerPeak does nothing on macOS: a child's rusage there is its own.
func lowerPeak() {}

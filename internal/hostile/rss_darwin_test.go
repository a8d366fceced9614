package hostile

import "syscall"

// maxRSSBytes is the peak resident set of a finished process: macOS
// counts it in bytes.
func maxRSSBytes(ru *syscall.Rusage) int64 { return ru.Maxrss }

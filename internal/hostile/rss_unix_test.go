//go:build unix && !darwin

package hostile

import (
	"os"
	"runtime/debug"
	"syscall"
)

// maxRSSBytes is the peak resident set of a finished process: Linux and
// the BSDs count it in KiB.
func maxRSSBytes(ru *syscall.Rusage) int64 { return ru.Maxrss << 10 }

// lowerPeak lowers this test process's peak resident set to what it holds
// now, with its free memory given back first. A child started by os/exec
// shares this process's memory until it executes the binary, and Linux
// carries the peak of that memory into the child's rusage: without this,
// a case that built a large input in memory would count against every
// later case's bound. Writing 5 to clear_refs resets the peak (Linux 4.0
// and later); where that fails, the peak stays as it was.
func lowerPeak() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

//go:build unix

package pricing

import (
	"errors"
	"syscall"
)

// processRuns reports whether a process of that id runs (one this
// process may not signal runs too).
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

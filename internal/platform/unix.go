//go:build unix

package spillfs

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

// openFileLimit returns how many files this process may have open (its
// soft limit, which Go raises to the hard limit at start), 0 when it
// cannot tell.
func openFileLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return l.Cur
}

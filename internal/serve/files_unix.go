//go:build unix

package serve

import "syscall"

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

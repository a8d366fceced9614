//go:build unix

package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ProcessRuns reports whether a process of that id runs (one this
// process may not signal runs too).
func ProcessRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// OpenFileLimit returns how many files this process may have open (its
// soft limit, which Go raises to the hard limit at start), 0 when it
// cannot tell.
func OpenFileLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return uint64(l.Cur) // int64 on some BSDs
}

// KeepOwner gives tmp the owner and group of the file old describes. Only
// root may give a file away, so a failure is an error only for root.
func KeepOwner(tmp *os.File, old fs.FileInfo) error {
	sys, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if err := tmp.Chown(int(sys.Uid), int(sys.Gid)); err != nil && os.Geteuid() == 0 {
		return fmt.Errorf("keep the owner: %w", err)
	}
	return nil
}

// SyncDir syncs the folder dir, so that a rename in it is on disk. A file
// system that cannot sync a folder (EINVAL, ENOTSUP: some network and
// FUSE file systems) gives no error: the rename is then as durable as it
// makes it.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		err = nil
	}
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package platform

import (
	"errors"
	"os"
	"syscall"
)

// LockForWrite takes the write lock of the file at path (a gateway's
// config) and returns
// what releases it: an exclusive flock on the file path names when the
// lock is granted. A writer that renames a new file over path holds the
// lock of the file it replaces, so a writer that waited finds path naming
// another file, and locks that one instead. The kernel drops the lock of a
// process that dies.
func LockForWrite(path string) (func(), error) {
	for {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if err := flock(f, syscall.LOCK_EX); err != nil {
			_ = f.Close() // opened to lock, read only: the lock's error is the one reported
			return nil, err
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			// Closing the file releases the lock too, and it was opened read
			// only: neither can lose a write.
			return func() { _ = flock(f, syscall.LOCK_UN); _ = f.Close() }, nil
		}
		_ = f.Close() // read only: a stat failed or the file was replaced
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
	}
}

// flock applies how to f, again when a signal interrupts the wait.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

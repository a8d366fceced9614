//go:build windows

package platform

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
	"time"
)

// Windows' codes for a file another handle holds without sharing, and one
// about to be deleted.
const (
	errSharingViolation   syscall.Errno = 32
	errAccessDenied       syscall.Errno = 5
	fileFlagDeleteOnClose               = 0x04000000
)

// lockWait is how long a writer waits for another to finish its write.
const lockWait = 10 * time.Second

// LockForWrite takes the write lock of the file at path (a gateway's
// config) and returns
// what releases it: a lock file beside it (".<name>.tokenfare-lock"),
// opened without sharing, so that no other writer can open it, and
// deleted when closed, by the system too when the process dies.
func LockForWrite(path string) (func(), error) {
	dir, base := filepath.Split(path)
	name, err := syscall.UTF16PtrFromString(filepath.Join(dir, "."+base+".tokenfare-lock"))
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockWait)
	for {
		h, err := syscall.CreateFile(name, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil,
			syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_HIDDEN|fileFlagDeleteOnClose, 0)
		if err == nil {
			return func() { syscall.CloseHandle(h) }, nil
		}
		if !errors.Is(err, errSharingViolation) && !errors.Is(err, errAccessDenied) || time.Now().After(deadline) {
			return nil, fmt.Errorf("lock %s for writing: %w", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

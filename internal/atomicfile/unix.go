//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives tmp the owner and group of the file old describes. Only
// root may give a file away, so a failure is an error only for root.
func keepOwner(tmp *os.File, old fs.FileInfo) error {
	sys, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if err := tmp.Chown(int(sys.Uid), int(sys.Gid)); err != nil && os.Geteuid() == 0 {
		return fmt.Errorf("keep the owner: %w", err)
	}
	return nil
}

// syncDir syncs the folder dir, so that a rename in it is on disk. A file
// system that cannot sync a folder (EINVAL, ENOTSUP: some network and
// FUSE file systems) gives no error: the rename is then as durable as it
// makes it.
func syncDir(dir string) error {
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

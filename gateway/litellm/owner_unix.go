//go:build unix

package litellm

import (
	"fmt"
	"os"
	"syscall"
)

// keepOwner gives tmp the owner of the file st describes; only root may,
// so a failure matters only to root.
func keepOwner(tmp *os.File, st os.FileInfo, path string) error {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		if err := tmp.Chown(int(sys.Uid), int(sys.Gid)); err != nil && os.Geteuid() == 0 {
			return fmt.Errorf("keep the owner of %s: %w", path, err)
		}
	}
	return nil
}

package spillfs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tokenfare/tokenfare/internal/platform"
)

// sweep removes the folders of runs in dir left by processes that no
// longer run (killed before they could remove them: SIGKILL, the kernel's
// out-of-memory killer). A folder whose process id is in use, by that
// process or another, is left alone; so are names not of that form.
// Errors are ignored: a folder not swept is only disk space.
func sweep(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), runsPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pid, _, ok := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 || n == os.Getpid() || platform.ProcessRuns(n) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(dir, e.Name())) // errors ignored, as said above
	}
}

package spillfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/platform"
)

// TestFolderRuns writes a run, reads it back under its path, removes it,
// and removes the folder whole.
func TestFolderRuns(t *testing.T) {
	f, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"run-000000", "charges-000000"} {
		w, err := f.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, "records of "+name); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	r, err := f.Open("run-000000")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || string(got) != "records of run-000000" {
		t.Errorf("read back %q (%v), want %q", got, err, "records of run-000000")
	}
	if n, ok := r.(interface{ Name() string }); !ok || n.Name() != filepath.Join(f.dir, "run-000000") {
		t.Errorf("the reader is not named by the run's path in %s", f.dir)
	}
	if err := f.Remove("run-000000"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Open("run-000000"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a removed run opens: %v", err)
	}
	if err := f.RemoveAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the folder is still there after RemoveAll (%v)", err)
	}
	if _, err := f.Create("run-000001"); err == nil {
		t.Error("a run was made in a removed folder")
	}
}

// TestNewSweepsRunsOfDeadProcesses: New removes the folders of runs that
// processes no longer running left in its folder (killed before they
// removed them), and leaves those of running processes, other names, and
// files alone; its own folder is named by its process.
func TestNewSweepsRunsOfDeadProcesses(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	if platform.ProcessRuns(dead.Process.Pid) {
		t.Skip("this system cannot tell whether a process runs (or the id is in use again)")
	}
	dir := t.TempDir()
	mk := func(name string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "run-000000"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk(fmt.Sprintf("tokenfare-groups-%d-123", dead.Process.Pid))
	live := mk(fmt.Sprintf("tokenfare-groups-%d-456", os.Getppid()))
	other := mk("tokenfare-groups-notapid")
	file := filepath.Join(dir, fmt.Sprintf("tokenfare-groups-%d-789", dead.Process.Pid))
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.RemoveAll()
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the runs of process %d, which no longer runs, are still there (%v)", dead.Process.Pid, err)
	}
	for _, p := range []string{live, other, file, f.dir} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if !strings.HasPrefix(filepath.Base(f.dir), fmt.Sprintf("tokenfare-groups-%d-", os.Getpid())) || filepath.Dir(f.dir) != dir {
		t.Errorf("the runs are in %s: not in %s, named by its process", f.dir, dir)
	}
}

// TestNewFails: a folder that cannot be made is New's error.
func TestNewFails(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := New(notDir); err == nil {
		f.RemoveAll()
		t.Fatal("New under a file made a folder")
	}
}

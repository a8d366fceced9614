//go:build unix

package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestMode keeps an existing file's permission bits and gives a new file
// 0644 less the umask, with the usual umask and a private one.
func TestMode(t *testing.T) {
	tests := []struct {
		name  string
		umask int
		old   fs.FileMode // 0: no file before
		want  fs.FileMode
	}{
		{"new file, umask 022", 0o022, 0, 0o644},
		{"new file, umask 002: still not group-writable", 0o002, 0, 0o644},
		{"new file, umask 077", 0o077, 0, 0o600},
		{"private config kept private", 0o022, 0o600, 0o600},
		{"group-readable file", 0o022, 0o640, 0o640},
		{"mode the umask would strip kept", 0o077, 0o664, 0o664},
		{"executable bits kept", 0o022, 0o755, 0o755},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := syscall.Umask(tt.umask)
			defer syscall.Umask(old)
			path := filepath.Join(t.TempDir(), "out")
			if tt.old != 0 {
				if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tt.old); err != nil {
					t.Fatal(err)
				}
			}
			f, err := Create(path)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(f, "new")
			if err := f.Commit(); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != tt.want {
				t.Errorf("mode = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestTempPrivateOverExisting checks that the replacement of an existing
// file is readable by its owner alone until it is complete.
func TestTempPrivateOverExisting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("api_key: x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Discard()
	left := temps(t, dir)
	if len(left) != 1 {
		t.Fatalf("temporary files: %v", left)
	}
	st, err := os.Stat(left[0])
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		t.Errorf("temporary file mode %v: others may read it", st.Mode().Perm())
	}
}

// TestOwnerKept gives the replacement the old file's owner (as root only:
// nobody else may give a file away).
func TestOwnerKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root may give a file away")
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 4321, 4322); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 4321 || sys.Gid != 4322 {
		t.Errorf("owner %d:%d, want 4321:4322", sys.Uid, sys.Gid)
	}
}

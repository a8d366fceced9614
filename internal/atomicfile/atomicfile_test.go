package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// temps lists the temporary files left in dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.tokenfare-*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCommit writes a file through Create, Write and Commit, new and over
// an old one: the target holds the new bytes, and nothing else is left.
func TestCommit(t *testing.T) {
	tests := []struct {
		name string
		old  *string // the target's bytes before, nil when it does not exist
	}{
		{"new file", nil},
		{"over an old file", ptr("old bytes, longer than the new ones\n")},
		{"over an empty file", ptr("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.csv")
			if tt.old != nil {
				if err := os.WriteFile(path, []byte(*tt.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, err := Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Discard()
			io.WriteString(f, "new\n")
			if tt.old != nil {
				if got := readFile(t, path); got != *tt.old {
					t.Errorf("before Commit the target holds %q, want the old %q", got, *tt.old)
				}
			} else if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("before Commit the target exists: %v", err)
			}
			if err := f.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); got != "new\n" {
				t.Errorf("target = %q, want %q", got, "new\n")
			}
			if left := temps(t, dir); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
			if err := f.Commit(); err == nil {
				t.Error("a second Commit succeeded")
			}
		})
	}
}

func ptr(s string) *string { return &s }

// errWrite is the failure a writer meets half way (a disk full, a reader
// that stopped).
var errWrite = errors.New("disk full")

// TestFailureLeavesTarget fails a write in each way it can fail: the
// target keeps its bytes and no temporary file is left.
func TestFailureLeavesTarget(t *testing.T) {
	const old = "old bytes\n"
	tests := []struct {
		name   string
		fail   func(t *testing.T, f *File, path string) error
		inPath bool // the error names the target
	}{
		{"the writer fails and discards", func(t *testing.T, f *File, path string) error {
			io.WriteString(f, "half a ")
			f.Discard()
			return errWrite
		}, false},
		{"the rename fails: the target became a folder", func(t *testing.T, f *File, path string) error {
			io.WriteString(f, "new\n")
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
				t.Fatal(err)
			}
			return f.Commit()
		}, true},
		{"Commit after Discard", func(t *testing.T, f *File, path string) error {
			io.WriteString(f, "new\n")
			f.Discard()
			return f.Commit()
		}, true},
		{"the write after Close fails", func(t *testing.T, f *File, path string) error {
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(f, "late"); err == nil {
				t.Error("a write after Close succeeded")
			}
			f.Discard()
			return errWrite
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.yaml")
			if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Create(path)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.fail(t, f, path)
			if err == nil {
				t.Fatal("the failure was not reported")
			}
			if tt.inPath {
				if !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp") {
					t.Errorf("error %q should name %s and not the temporary file", err, path)
				}
			}
			if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
				if got := readFile(t, path); got != old {
					t.Errorf("target = %q, want the old %q", got, old)
				}
			}
			if left := temps(t, dir); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// TestCreateRefuses names the target when the temporary file cannot be
// made, and refuses a target that is not a regular file.
func TestCreateRefuses(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, path string
		want       error
	}{
		{"a folder that does not exist", filepath.Join(dir, "nope", "out.xlsx"), fs.ErrNotExist},
		{"a folder as the target", dir, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Create(tt.path)
			if err == nil {
				f.Discard()
				t.Fatal("Create succeeded")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != tt.path {
				t.Errorf("err = %v, want a path error naming %s", err, tt.path)
			}
		})
	}
}

// TestCloseThenCommit completes two files before either replaces its
// target, as the monthly report does with its workbook and FOCUS file.
func TestCloseThenCommit(t *testing.T) {
	dir := t.TempDir()
	var files []*File
	for _, name := range []string{"a.xlsx", "b.csv"} {
		f, err := Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Discard()
		io.WriteString(f, name)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Errorf("a second Close: %v", err)
		}
		files = append(files, f)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.xlsx")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a.xlsx exists before Commit: %v", err)
	}
	for _, f := range files {
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a.xlsx", "b.csv"} {
		if got := readFile(t, filepath.Join(dir, name)); got != name {
			t.Errorf("%s = %q", name, got)
		}
	}
}

// TestSymlinkFollowed replaces the file a link names; the link stays.
func TestSymlinkFollowed(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.yaml")
	link := filepath.Join(dir, "link.yaml")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	f, err := Create(link)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", st, err)
	}
	if got := readFile(t, real); got != "new" {
		t.Errorf("the file the link names = %q, want %q", got, "new")
	}
}

// TestReadersSeeOldOrNew reads the target over and over while versions of
// it are committed: every read finds one whole version, never a mix or a
// part. Each version is 256 KiB of one byte, far more than one write.
func TestReadersSeeOldOrNew(t *testing.T) {
	const size, versions = 256 << 10, 40
	dir := t.TempDir()
	path := filepath.Join(dir, "focus.csv")
	if err := os.WriteFile(path, bytes.Repeat([]byte{'a'}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad []string
	var reads int
	var mu sync.Mutex
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				b, err := os.ReadFile(path)
				mu.Lock()
				reads++
				switch {
				case err != nil:
					bad = append(bad, err.Error())
				case len(b) != size || bytes.Count(b, b[:1]) != size:
					bad = append(bad, "a partial or mixed file")
				}
				mu.Unlock()
			}
		}()
	}
	chunk := make([]byte, 4096)
	for v := range versions {
		f, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range chunk {
			chunk[i] = byte('b' + v%20)
		}
		for range size / len(chunk) {
			if _, err := f.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("%d of %d reads went wrong, the first: %s", len(bad), reads, bad[0])
	}
	if reads == 0 {
		t.Error("no read ran during the writes")
	}
}

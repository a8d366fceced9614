package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/tokenfare/tokenfare/internal/platform"
)

// ErrUnsynced is the failure of Commit after the rename: the target is
// replaced, but its folder could not be synced, so a crash may yet bring
// the old file back.
var ErrUnsynced = errors.New("the file is replaced, but its folder could not be synced")

// newMode is the mode a new file is created with; the umask applies.
const newMode fs.FileMode = 0o644

// File is a new version of a file: a temporary file beside its target,
// which Commit renames over the target. A File is used by one goroutine.
type File struct {
	f      *os.File
	path   string      // the target, symbolic links resolved
	old    fs.FileInfo // the target's, nil when it did not exist
	closed bool
	err    error // the first failure of Close, returned by Commit
	done   bool  // committed or discarded: the temporary file is gone
}

// Create opens the temporary file that will replace path, in path's
// folder (a rename does not cross file systems). path need not exist; its
// folder must.
func Create(path string) (*File, error) {
	target, err := resolve(path)
	if err != nil {
		return nil, err
	}
	old, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return nil, pathError("create", path, err)
	case !old.Mode().IsRegular():
		return nil, pathError("create", path, errors.New("not a regular file"))
	}
	// A replacement for an existing file starts private and gets its mode
	// at Close: a config readable by its owner alone is never readable by
	// others, not even as a temporary file.
	perm := newMode
	if old != nil {
		perm = 0o600
	}
	f, err := createTemp(filepath.Dir(target), filepath.Base(target), perm)
	if err != nil {
		return nil, pathError("create", path, err)
	}
	return &File{f: f, path: target, old: old}, nil
}

// resolve follows the symbolic links of path, so that the file a link
// names is replaced rather than the link; a path that does not exist yet
// is taken as it is.
func resolve(path string) (string, error) {
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", pathError("create", path, err)
	}
	return target, nil
}

// createTemp creates ".<base>.tokenfare-<random>.tmp" in dir with perm
// (less the umask), trying other names while one exists.
func createTemp(dir, base string, perm fs.FileMode) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, fmt.Sprintf(".%s.tokenfare-%08x.tmp", base, rand.Uint32()))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, unwrapPath(err)
		}
	}
	return nil, errors.New("no free temporary file name")
}

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	return n, pathErrorOrNil("write", f.path, err)
}

// Path is the file Commit replaces: the path given to Create, symbolic
// links resolved.
func (f *File) Path() string { return f.path }

// Close completes the temporary file: it gives it the target's mode and
// owner, syncs it to disk and closes it. The target is not touched yet;
// Commit replaces it. On failure the temporary file is removed. Close may
// be called more than once; it returns the first result each time.
func (f *File) Close() error {
	if f.closed {
		return f.err
	}
	f.closed = true
	err := f.finish()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		f.err = pathError("write", f.path, err)
		f.Discard()
	}
	return f.err
}

// finish gives the temporary file the target's mode and owner and syncs it.
func (f *File) finish() error {
	if f.old != nil {
		if err := f.f.Chmod(f.old.Mode().Perm()); err != nil {
			return err
		}
		if err := platform.KeepOwner(f.f, f.old); err != nil {
			return err
		}
	}
	return f.f.Sync()
}

// Commit completes the file (Close) and renames it over the target, then
// syncs the target's folder so that the rename survives a crash. On
// failure the target is as it was and the temporary file is removed; but
// for ErrUnsynced, a failure after the rename.
func (f *File) Commit() error {
	if err := f.Close(); err != nil {
		return err
	}
	if f.done {
		return pathError("replace", f.path, errors.New("already committed"))
	}
	if err := os.Rename(f.f.Name(), f.path); err != nil {
		f.Discard()
		return pathError("replace", f.path, unwrapLink(err))
	}
	f.done = true
	if err := platform.SyncDir(filepath.Dir(f.path)); err != nil {
		return &fs.PathError{Op: "replace", Path: f.path, Err: fmt.Errorf("%w: %w", ErrUnsynced, unwrapPath(err))}
	}
	return nil
}

// Discard removes the temporary file, leaving the target as it was. It
// does nothing after Commit, so that it can be deferred.
func (f *File) Discard() {
	if f.done {
		return
	}
	f.done = true
	if !f.closed {
		f.closed = true
		f.err = pathError("write", f.path, errors.New("discarded"))
		_ = f.f.Close() // its content is thrown away
	}
	// Discard cleans up after a failure, whose error is the one reported; a
	// temporary file it cannot remove leaves the target as it was.
	_ = os.Remove(f.f.Name())
}

// pathError names the target in an error, whatever file the system named.
func pathError(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return &fs.PathError{Op: op, Path: path, Err: unwrapLink(unwrapPath(err))}
}

func pathErrorOrNil(op, path string, err error) error {
	if err == nil {
		return nil
	}
	return pathError(op, path, err)
}

// unwrapPath returns the cause of a path error, which names the temporary
// file.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// unwrapLink returns the cause of a rename's error, which names both files.
func unwrapLink(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

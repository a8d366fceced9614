package extsort

import "io"

// A RunStore keeps runs: files named by their Runs ("run-000001",
// "lines-000002"), written once, whole, read back as often as they are
// merged, and removed when compacted or when the store is done with.
type RunStore interface {
	// Create makes a new run of that name, to be written and closed.
	Create(name string) (io.WriteCloser, error)
	// Open opens the run of that name for reading. A reader with a
	// Name method (an *os.File) names the run in errors by it.
	Open(name string) (io.ReadCloser, error)
	// Remove removes the run of that name.
	Remove(name string) error
	// RemoveAll removes every run and the store's own place; no run is
	// made after it.
	RemoveAll() error
	// FileLimit returns how many files the process may have open at
	// once, 0 when it cannot tell: the runs read back at once are an
	// eighth of it at most (MaxRuns).
	FileLimit() uint64
}

// MaxRuns returns how many runs are kept before they are compacted into
// one, for a process that may open limit files (0 when not known;
// RunStore.FileLimit), so that reading them back opens a bounded number of
// files: 256 files and their 64 KiB buffers (16 MiB), fewer when the
// process may open fewer than 2,048 files (an eighth of its limit, at
// least 16), as runs of several kinds may be open at once.
func MaxRuns(limit uint64) int {
	switch {
	case limit == 0 || limit >= 8*256:
		return 256
	case limit/8 < 16:
		return 16
	}
	return int(limit / 8)
}

// RunName names run name, read through r, in errors: by r's Name (the path
// of a file) when it has one, else by the name in its store.
func RunName(r io.Reader, name string) string {
	if f, ok := r.(interface{ Name() string }); ok {
		return f.Name()
	}
	return name
}

package pricing

import "io"

// A RunStore keeps the runs of one engine that spills its groups past its
// budget of buckets (Options.Runs): files the engine names ("run-000001",
// "charges-000000", "lines-000002"), writes once, whole, reads back as
// often as its results are read, and removes when it merges them or is
// closed. The engine does no I/O of its own: the store is where the files
// are. The command line's is a folder of its own under the system's
// temporary folder (internal/spillfs).
type RunStore interface {
	// Create makes a new run of that name, to be written and closed.
	Create(name string) (io.WriteCloser, error)
	// Open opens the run of that name for reading. A reader with a
	// Name method (an *os.File) names the run in errors by it.
	Open(name string) (io.ReadCloser, error)
	// Remove removes the run of that name.
	Remove(name string) error
	// RemoveAll removes every run and the store's own place; the engine
	// makes no run after it.
	RemoveAll() error
	// FileLimit returns how many files the process may have open at
	// once, 0 when it cannot tell: the engine reads an eighth of it back
	// at once at most (runsWithin).
	FileLimit() uint64
}

// runName names run name, read through r, in errors: by r's Name (the
// path of a file) when it has one, else by the name in its store.
func runName(r io.Reader, name string) string {
	if f, ok := r.(interface{ Name() string }); ok {
		return f.Name()
	}
	return name
}

package extsort

import (
	"bufio"
	"errors"
	"fmt"
)

// Config is what Runs of records of type T are made of.
type Config[T any] struct {
	// Store is where the runs are files.
	Store RunStore
	// Prefix names the runs: Prefix-000000, Prefix-000001, and so on.
	Prefix string
	// Codec returns a codec for each run written or read.
	Codec func() Codec[T]
	// Compare orders the records: negative when a comes before b.
	Compare func(a, b *T) int
	// Same reports whether a and b are parts of one record, which a
	// merge combines into one (Combine); nil: no two records are.
	Same func(a, b *T) bool
	// Combine adds part from to into.
	Combine func(into, from *T)
	// MaxRuns is how many runs are kept before they are compacted into
	// one; 0: MaxRuns(Store.FileLimit()).
	MaxRuns int
	// Err, when not nil, is wrapped by the errors of reading a run back,
	// for errors.Is.
	Err error
}

// Stats counts what Runs wrote.
type Stats struct {
	Runs        int   // runs written, those of compactions included
	Records     int64 // records written
	Bytes       int64 // bytes written
	Compactions int   // compactions of every run into one
	Compacted   int64 // records rewritten by compactions
}

// Runs are the sorted runs of records of one kind in a store.
type Runs[T any] struct {
	cfg   Config[T]
	names []string // the runs, oldest first
	stats Stats
}

// New returns runs of cfg, none written yet.
func New[T any](cfg Config[T]) *Runs[T] {
	if cfg.MaxRuns <= 0 {
		cfg.MaxRuns = MaxRuns(cfg.Store.FileLimit())
	}
	return &Runs[T]{cfg: cfg}
}

// Len returns how many runs there are.
func (r *Runs[T]) Len() int { return len(r.names) }

// MaxRuns returns how many runs are kept before they are compacted.
func (r *Runs[T]) MaxRuns() int { return r.cfg.MaxRuns }

// Stats returns the counts of what was written.
func (r *Runs[T]) Stats() Stats { return r.stats }

// Write writes the records of src, which come in order, to a new run,
// compacting the runs into one first when there are MaxRuns of them.
func (r *Runs[T]) Write(src Source[T]) error {
	if len(r.names) >= r.cfg.MaxRuns {
		if err := r.Compact(); err != nil {
			return err
		}
	}
	_, err := r.write(src)
	return err
}

// write writes the records of src to a new run; a run made is kept, even
// when the writing failed, so that it is removed with the others. It
// returns how many records it wrote.
func (r *Runs[T]) write(src Source[T]) (int64, error) {
	name := fmt.Sprintf("%s-%06d", r.cfg.Prefix, r.stats.Runs)
	f, err := r.cfg.Store.Create(name)
	if err != nil {
		return 0, err
	}
	r.names = append(r.names, name)
	r.stats.Runs++
	w := runWriter[T]{w: bufio.NewWriterSize(f, bufSize), codec: r.cfg.Codec()}
	defer func() { r.stats.Records, r.stats.Bytes = r.stats.Records+w.n, r.stats.Bytes+w.bytes }()
	var v T
	for {
		ok, err := src.Next(&v)
		if err != nil {
			_ = f.Close() // the source's error is the one reported; the run is removed with the others
			return w.n, err
		}
		if !ok {
			return w.n, errors.Join(w.w.Flush(), f.Close())
		}
		w.write(&v)
	}
}

// Compact merges every run into one.
func (r *Runs[T]) Compact() error {
	old := r.names
	m, err := r.Merge()
	if err != nil {
		return err
	}
	r.names = nil
	n, err := r.write(m)
	err = errors.Join(err, m.Close())
	for _, name := range old {
		err = errors.Join(err, r.cfg.Store.Remove(name))
	}
	r.stats.Compactions++
	r.stats.Compacted += n
	return err
}

// Remove removes every run from the store: there are none after.
func (r *Runs[T]) Remove() error {
	var err error
	for _, name := range r.names {
		err = errors.Join(err, r.cfg.Store.Remove(name))
	}
	r.names = nil
	return err
}

// Merge opens the runs, and the sorted sources more after them, for
// merging. On an error no run is left open.
func (r *Runs[T]) Merge(more ...Source[T]) (*Merge[T], error) {
	m := &Merge[T]{q: queue[T]{compare: r.cfg.Compare}}
	if r.cfg.Same != nil && r.cfg.Combine != nil {
		m.same, m.combine = r.cfg.Same, r.cfg.Combine
	}
	srcs := make([]Source[T], 0, len(r.names)+len(more))
	for _, name := range r.names {
		f, err := r.cfg.Store.Open(name)
		if err != nil {
			_ = m.Close() // runs opened for reading; the open's error is the one reported
			return nil, err
		}
		m.files = append(m.files, f)
		srcs = append(srcs, &namedRun[T]{r: newRunReader(f, r.cfg.Codec()), name: RunName(f, name), wrap: r.cfg.Err})
	}
	srcs = append(srcs, more...)
	if err := m.start(srcs); err != nil {
		_ = m.Close() // runs opened for reading; the error above is the one reported
		return nil, err
	}
	return m, nil
}

// namedRun is a run read back, naming it in its errors.
type namedRun[T any] struct {
	r    *runReader[T]
	name string
	wrap error
}

// Next reads the run's next record.
func (n *namedRun[T]) Next(v *T) (bool, error) {
	ok, err := n.r.Next(v)
	switch {
	case err == nil:
		return ok, nil
	case n.wrap != nil:
		return false, fmt.Errorf("%w: read %s: %w", n.wrap, n.name, err)
	}
	return false, fmt.Errorf("read %s: %w", n.name, err)
}

// Sorter sorts records within a budget: it holds up to a chunk of them,
// and writes them, sorted, to a run of its Runs when the chunk is full.
type Sorter[T any] struct {
	runs  *Runs[T]
	chunk int
	held  []T
	added int
}

// NewSorter returns a sorter that holds up to chunk records (1 at least)
// before it writes them to a run of runs.
func NewSorter[T any](runs *Runs[T], chunk int) *Sorter[T] {
	return &Sorter[T]{runs: runs, chunk: max(chunk, 1)}
}

// Add adds record v.
func (s *Sorter[T]) Add(v *T) error {
	s.held = append(s.held, *v)
	s.added++
	if len(s.held) >= s.chunk {
		return s.Flush()
	}
	return nil
}

// Added returns how many records were added.
func (s *Sorter[T]) Added() int { return s.added }

// Runs returns the runs the sorter wrote to.
func (s *Sorter[T]) Runs() *Runs[T] { return s.runs }

// Held returns the records held, sorted: every record added when no run
// was written.
func (s *Sorter[T]) Held() []T {
	sortRecords(s.held, s.runs.cfg.Compare)
	return s.held
}

// Flush writes the records held, sorted, to a new run, and holds none.
func (s *Sorter[T]) Flush() error {
	err := s.runs.Write(Slice(s.Held()))
	clear(s.held)
	s.held = s.held[:0]
	return err
}

// Release drops the memory of the records held, which must be none.
func (s *Sorter[T]) Release() { s.held = nil }

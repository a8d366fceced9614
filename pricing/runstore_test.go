package pricing

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"
	"testing"

	"github.com/tokenfare/tokenfare/internal/extsort"
)

// memRuns is a RunStore in memory for the engine's tests: each run is its
// bytes. It counts the runs open, so that a test can check that an engine
// closed leaves no run behind and none open (check).
type memRuns struct {
	mu      sync.Mutex
	runs    map[string][]byte
	open    int    // readers and writers not closed
	limit   uint64 // FileLimit's answer
	made    int    // stores made: an engine makes one
	removed bool   // RemoveAll was called
}

// store is the function Options.Runs takes.
func (m *memRuns) store() (RunStore, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.made++
	if m.runs == nil {
		m.runs = map[string][]byte{}
	}
	return m, nil
}

// Create makes an empty run, which holds what was written once closed.
func (m *memRuns) Create(name string) (io.WriteCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.removed {
		return nil, fmt.Errorf("create %s: %w", name, fs.ErrNotExist)
	}
	m.runs[name] = nil
	m.open++
	return &memWriter{m: m, name: name}, nil
}

// Open reads a copy of the run's bytes.
func (m *memRuns) Open(name string) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.runs[name]
	if !ok {
		return nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
	}
	m.open++
	return &memReader{Reader: bytes.NewReader(slices.Clone(b)), m: m}, nil
}

func (m *memRuns) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.runs[name]; !ok {
		return fmt.Errorf("remove %s: %w", name, fs.ErrNotExist)
	}
	delete(m.runs, name)
	return nil
}

func (m *memRuns) RemoveAll() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.runs)
	m.removed = true
	return nil
}

func (m *memRuns) FileLimit() uint64 { return m.limit }

// closed notes a reader or writer closed.
func (m *memRuns) closed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.open--
}

// cut drops the last n bytes of a run.
func (m *memRuns) cut(t *testing.T, name string, n int) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.runs[name]
	if !ok || len(b) < n {
		t.Fatalf("run %s: %d bytes (%v), want %d at least", name, len(b), ok, n)
	}
	m.runs[name] = b[:len(b)-n]
}

// check fails the test unless the engine that used the store made it
// once, removed it, and left no run behind and none open.
func (m *memRuns) check(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	var left []string
	for name := range m.runs {
		left = append(left, name)
	}
	if m.made != 1 || !m.removed || len(left) > 0 || m.open != 0 {
		t.Errorf("store made %d times, removed %v; left after Close: %v; %d open", m.made, m.removed, left, m.open)
	}
}

// memWriter writes a run of memRuns.
type memWriter struct {
	bytes.Buffer
	m    *memRuns
	name string
}

func (w *memWriter) Close() error {
	w.m.mu.Lock()
	w.m.runs[w.name] = w.Bytes()
	w.m.mu.Unlock()
	w.m.closed()
	return nil
}

// memReader reads a run of memRuns.
type memReader struct {
	*bytes.Reader
	m *memRuns
}

func (r *memReader) Close() error {
	r.m.closed()
	return nil
}

// writeRecords writes recs, each by codec, to a run named prefix-000000
// of a store in memory, and returns the store and the run.
func writeRecords[T any](t *testing.T, prefix string, codec func() extsort.Codec[T], recs ...T) (*memRuns, *extsort.Runs[T]) {
	t.Helper()
	m := &memRuns{}
	m.store()
	// The records do not compare: a single run is read back as written.
	runs := extsort.New(extsort.Config[T]{Store: m, Prefix: prefix, Codec: codec, MaxRuns: 2, Err: ErrSpill,
		Compare: func(a, b *T) int { return 0 }})
	if err := runs.Write(extsort.Slice(recs)); err != nil {
		t.Fatal(err)
	}
	return m, runs
}

// readRecords reads back the records of runs, up to the first error.
func readRecords[T any](runs *extsort.Runs[T]) ([]T, error) {
	merge, err := runs.Merge()
	if err != nil {
		return nil, err
	}
	defer merge.Close()
	var out []T
	for {
		var v T
		ok, err := merge.Next(&v)
		if err != nil || !ok {
			return out, err
		}
		out = append(out, v)
	}
}

// TestSpillStoreFails: a store that cannot be made fails the engine with
// ErrSpill at its first spill, and the engine, which made no run, closes
// cleanly.
func TestSpillStoreFails(t *testing.T) {
	cat := testCatalog(t)
	calls := chargeCalls(32, 200)
	full := errors.New("no space left on device")
	e := New(cat, Options{Dims: MonthDims, MaxGroups: 10, Runs: func() (RunStore, error) { return nil, full }})
	for i := range calls {
		e.AddPriced(&calls[i])
	}
	if err := e.Err(); !errors.Is(err, ErrSpill) || !errors.Is(err, full) {
		t.Errorf("Err = %v, want ErrSpill and the store's error", err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("Close = %v, want nil: no run was made", err)
	}
}

// shortRuns is a store of runs in memory that makes at most creates runs
// and whose writes fail past a budget of bytes, as a disk that fills up.
type shortRuns struct {
	memRuns
	creates, left int
}

func (s *shortRuns) store() (RunStore, error) {
	if _, err := s.memRuns.store(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *shortRuns) Create(name string) (io.WriteCloser, error) {
	if s.creates == 0 {
		return nil, errors.New("no room for another file")
	}
	s.creates--
	w, err := s.memRuns.Create(name)
	if err != nil {
		return nil, err
	}
	return &shortWriter{WriteCloser: w, s: s}, nil
}

type shortWriter struct {
	io.WriteCloser
	s *shortRuns
}

func (w *shortWriter) Write(p []byte) (int, error) {
	if len(p) > w.s.left {
		return 0, errors.New("no space left on device")
	}
	w.s.left -= len(p)
	return w.WriteCloser.Write(p)
}

// TestSpillWriteFailsMidRun: a run that cannot be made, or whose writes
// fail part way, fails the engine with ErrSpill, and leaves every call in
// its totals: the buckets of a run not written are collapsed (each as the
// run's cursor reads it, or all once it failed) as those of a run
// written.
func TestSpillWriteFailsMidRun(t *testing.T) {
	cat := testCatalog(t)
	calls := groupCalls(2_000, 25) // 50,000 groups, runs of thousands: past a writer's buffer
	dims := []Dim{DimModel, DimKey, DimDay}
	whole := New(cat, Options{Dims: dims, MaxGroups: 1 << 20})
	for i := range calls {
		whole.AddPriced(&calls[i])
	}
	for _, tc := range []struct{ creates, left int }{{0, 1 << 30}, {1, 1 << 30}, {2, 100_000}, {5, 0}} {
		store := &shortRuns{memRuns: memRuns{limit: 64}, creates: tc.creates, left: tc.left}
		e := New(cat, Options{Dims: dims, MaxGroups: 20_000, Runs: store.store, Outputs: OutputGroups})
		for i := range calls {
			e.AddPriced(&calls[i])
		}
		if err := e.Err(); !errors.Is(err, ErrSpill) {
			t.Fatalf("%d runs, %d bytes of room: Err = %v, want ErrSpill", tc.creates, tc.left, err)
		}
		got, want := e.Reconcile().Totals, whole.Reconcile().Totals
		if !got.Official.Equal(want.Official) || !got.Recorded.Equal(want.Recorded) || got.Calls != want.Calls {
			t.Errorf("%d runs, %d bytes of room: totals %s official, %s recorded, %d calls; want %s, %s, %d",
				tc.creates, tc.left, got.Official, got.Recorded, got.Calls, want.Official, want.Recorded, want.Calls)
		}
		e.Close()
	}
}

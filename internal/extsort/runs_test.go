package extsort

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// memStore is a RunStore in memory: each run is its bytes. It counts the
// runs open.
type memStore struct {
	runs  map[string][]byte
	open  int
	limit uint64
}

func newMemStore() *memStore { return &memStore{runs: map[string][]byte{}} }

func (m *memStore) Create(name string) (io.WriteCloser, error) {
	m.open++
	return &memWriter{m: m, name: name}, nil
}

func (m *memStore) Open(name string) (io.ReadCloser, error) {
	b, ok := m.runs[name]
	if !ok {
		return nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
	}
	m.open++
	return &memReader{Reader: bytes.NewReader(b), m: m}, nil
}

func (m *memStore) Remove(name string) error {
	if _, ok := m.runs[name]; !ok {
		return fmt.Errorf("remove %s: %w", name, fs.ErrNotExist)
	}
	delete(m.runs, name)
	return nil
}

func (m *memStore) RemoveAll() error  { clear(m.runs); return nil }
func (m *memStore) FileLimit() uint64 { return m.limit }

// names returns the store's runs, sorted.
func (m *memStore) names() []string {
	var out []string
	for n := range m.runs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

type memWriter struct {
	bytes.Buffer
	m    *memStore
	name string
}

func (w *memWriter) Close() error { w.m.runs[w.name] = w.Bytes(); w.m.open--; return nil }

type memReader struct {
	*bytes.Reader
	m *memStore
}

func (r *memReader) Close() error { r.m.open--; return nil }

// kv is a test record: a key and a count, the counts of one key summed.
type kv struct {
	key string
	n   int64
}

type kvCodec struct{}

func (kvCodec) Encode(e *Encoder, v *kv) { e.String(v.key); e.Varint(v.n) }
func (kvCodec) Decode(d *Decoder, v *kv) { v.key, v.n = d.Text(), d.Varint() }

// kvRuns are runs of kv in store, summing a key's counts when combine.
func kvRuns(store RunStore, maxRuns int, combine bool) *Runs[kv] {
	cfg := Config[kv]{Store: store, Prefix: "kv", MaxRuns: maxRuns,
		Codec:   func() Codec[kv] { return kvCodec{} },
		Compare: func(a, b *kv) int { return strings.Compare(a.key, b.key) }}
	if combine {
		cfg.Same = func(a, b *kv) bool { return a.key == b.key }
		cfg.Combine = func(into, from *kv) { into.n += from.n }
	}
	return New(cfg)
}

// drain reads every record of src.
func drain[T any](t *testing.T, src Source[T]) []T {
	t.Helper()
	var out []T
	for {
		var v T
		ok, err := src.Next(&v)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, v)
	}
}

// TestMergeCombines merges three runs and a source in memory: a key's
// counts summed across them (b: 2+3+4 = 9), or every record kept in order
// without Combine.
func TestMergeCombines(t *testing.T) {
	runs := [][]kv{{{"a", 1}, {"b", 2}}, {{"b", 3}, {"d", 5}}, {{"c", 7}}}
	mem := []kv{{"b", 4}, {"e", 1}}
	tests := []struct {
		name    string
		combine bool
		want    []kv
	}{
		{"combined", true, []kv{{"a", 1}, {"b", 9}, {"c", 7}, {"d", 5}, {"e", 1}}},
		{"kept apart", false, []kv{{"a", 1}, {"b", 2}, {"b", 3}, {"b", 4}, {"c", 7}, {"d", 5}, {"e", 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := newMemStore()
			r := kvRuns(store, 8, tc.combine)
			for _, run := range runs {
				if err := r.Write(Slice(run)); err != nil {
					t.Fatal(err)
				}
			}
			m, err := r.Merge(Slice(mem))
			if err != nil {
				t.Fatal(err)
			}
			got := drain[kv](t, m)
			if err := m.Close(); err != nil || store.open != 0 {
				t.Fatalf("Close: %v, %d runs open", err, store.open)
			}
			if !tc.combine { // equal records of several sources come in no set order
				slices.SortFunc(got, func(a, b kv) int { return cmp.Or(strings.Compare(a.key, b.key), cmp.Compare(a.n, b.n)) })
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCompaction writes five runs where two are kept: the third write
// merges the two into one first (compaction 1, 2 records), the fourth
// finds two again (the merged one and the third) and merges them
// (compaction 2, 3 records: a's sum and c, d), the fifth likewise
// (compaction 3, 4 records). Two runs are left; the sums are whole.
func TestCompaction(t *testing.T) {
	store := newMemStore()
	r := kvRuns(store, 2, true)
	for _, run := range [][]kv{{{"a", 1}}, {{"a", 2}, {"c", 1}}, {{"d", 4}}, {{"b", 1}}, {{"a", 10}}} {
		if err := r.Write(Slice(run)); err != nil {
			t.Fatal(err)
		}
	}
	st := r.Stats()
	if r.Len() != 2 || st.Compactions != 3 || st.Compacted != 2+3+4 || st.Runs != 5+3 {
		t.Errorf("%d runs, stats %+v; want 2 runs, 3 compactions of 9 records, 8 runs written", r.Len(), st)
	}
	if got, want := store.names(), []string{"kv-000006", "kv-000007"}; !slices.Equal(got, want) {
		t.Errorf("runs in the store %v, want %v", got, want)
	}
	m, err := r.Merge()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got, want := drain[kv](t, m), []kv{{"a", 13}, {"b", 1}, {"c", 1}, {"d", 4}}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestRemove removes the runs of one kind and leaves another's: two runs
// of kv written, one of "other" beside them in the store; after Remove
// the store holds the other alone and a merge of kv reads nothing.
func TestRemove(t *testing.T) {
	store := newMemStore()
	r := kvRuns(store, 8, true)
	for _, run := range [][]kv{{{"a", 1}}, {{"b", 2}}} {
		if err := r.Write(Slice(run)); err != nil {
			t.Fatal(err)
		}
	}
	other := New(Config[kv]{Store: store, Prefix: "other", MaxRuns: 8, Codec: func() Codec[kv] { return kvCodec{} },
		Compare: func(a, b *kv) int { return strings.Compare(a.key, b.key) }})
	if err := other.Write(Slice([]kv{{"c", 3}})); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(); err != nil {
		t.Fatal(err)
	}
	if got, want := store.names(), []string{"other-000000"}; !slices.Equal(got, want) || r.Len() != 0 {
		t.Errorf("after Remove: %d runs, the store holds %v; want 0 runs, %v", r.Len(), got, want)
	}
	m, err := r.Merge()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got := drain[kv](t, m); len(got) != 0 {
		t.Errorf("merged after Remove: %v, want nothing", got)
	}
}

// TestStatsBytes counts a run's bytes: each record its length (1 byte)
// and its fields ("ab": 3 bytes, 5 as a varint: 1 byte).
func TestStatsBytes(t *testing.T) {
	r := kvRuns(newMemStore(), 4, true)
	if err := r.Write(Slice([]kv{{"ab", 5}, {"c", -1}})); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Records != 2 || st.Bytes != (1+3+1)+(1+2+1) || st.Runs != 1 {
		t.Errorf("stats %+v, want 2 records, 9 bytes, 1 run", st)
	}
}

// TestSorter holds three records at a time: seven added are two runs and
// one held, read back in order; fewer than three stay held, sorted.
func TestSorter(t *testing.T) {
	store := newMemStore()
	s := NewSorter(kvRuns(store, 8, false), 3)
	for _, k := range []string{"g", "c", "e", "a", "f", "b", "d"} {
		if err := s.Add(&kv{key: k}); err != nil {
			t.Fatal(err)
		}
	}
	if s.Runs().Len() != 2 || len(s.Held()) != 1 || s.Added() != 7 {
		t.Fatalf("%d runs, %d held, %d added; want 2, 1, 7", s.Runs().Len(), len(s.Held()), s.Added())
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	m, err := s.Runs().Merge()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var keys []string
	for _, v := range drain[kv](t, m) {
		keys = append(keys, v.key)
	}
	if want := []string{"a", "b", "c", "d", "e", "f", "g"}; !slices.Equal(keys, want) {
		t.Errorf("got %v, want %v", keys, want)
	}
	few := NewSorter(kvRuns(newMemStore(), 8, false), 3)
	few.Add(&kv{key: "b"})
	few.Add(&kv{key: "a"})
	if got := few.Held(); len(got) != 2 || got[0].key != "a" || few.Runs().Len() != 0 {
		t.Errorf("held %v, %d runs; want a, b and none", got, few.Runs().Len())
	}
}

// TestRunCutShort: a run cut anywhere inside a record is an error naming
// the run and wrapping Config.Err, never a record short of its fields.
func TestRunCutShort(t *testing.T) {
	wrap := errors.New("spill")
	for cut := 1; ; cut++ {
		store := newMemStore()
		cfg := kvRuns(store, 4, true).cfg
		cfg.Err = wrap
		r := New(cfg)
		if err := r.Write(Slice([]kv{{"key", 1 << 40}})); err != nil {
			t.Fatal(err)
		}
		b := store.runs["kv-000000"]
		if cut >= len(b) {
			break
		}
		store.runs["kv-000000"] = b[:len(b)-cut]
		_, err := r.Merge()
		if !errors.Is(err, wrap) || !strings.Contains(err.Error(), "read kv-000000") {
			t.Errorf("cut by %d of %d bytes: %v, want the wrapped error naming the run", cut, len(b), err)
		}
	}
}

// TestMaxRuns checks the runs kept against the files a process may open:
// an eighth of them, from 16 to 256.
func TestMaxRuns(t *testing.T) {
	for _, tc := range []struct {
		limit uint64
		want  int
	}{{0, 256}, {1 << 20, 256}, {2048, 256}, {2047, 255}, {1024, 128}, {256, 32}, {100, 16}, {8, 16}} {
		if got := MaxRuns(tc.limit); got != tc.want {
			t.Errorf("MaxRuns(%d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
	if got := kvRuns(&memStore{limit: 1024}, 0, false).MaxRuns(); got != 128 {
		t.Errorf("runs of a store of 1,024 files keep %d, want 128", got)
	}
}

// namedReader is a reader with a name, as an *os.File has.
type namedReader struct {
	io.Reader
	name string
}

func (r namedReader) Name() string { return r.name }

// TestRunName: a run is named in errors by its reader's name when it has
// one (a file's path), else by its name in the store.
func TestRunName(t *testing.T) {
	tests := []struct {
		name string
		r    io.Reader
		want string
	}{
		{name: "a reader with a name", r: namedReader{strings.NewReader(""), "/tmp/tokenfare-groups-7-1/run-000002"}, want: "/tmp/tokenfare-groups-7-1/run-000002"},
		{name: "a reader without", r: strings.NewReader(""), want: "run-000002"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RunName(tc.r, "run-000002"); got != tc.want {
				t.Errorf("RunName = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestMergeAll: All yields the merged records in order, a key's counts
// combined (b: 2+3 = 5), and closes the merge's runs however the loop
// ends: to the end, or left after the first record.
func TestMergeAll(t *testing.T) {
	for _, stop := range []int{0, 1} {
		store := newMemStore()
		r := kvRuns(store, 8, true)
		for _, run := range [][]kv{{{"a", 1}, {"b", 2}}, {{"b", 3}, {"c", 7}}} {
			if err := r.Write(Slice(run)); err != nil {
				t.Fatal(err)
			}
		}
		m, err := r.Merge()
		if err != nil {
			t.Fatal(err)
		}
		var got []kv
		for v, err := range m.All() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, *v)
			if len(got) == stop {
				break
			}
		}
		want := []kv{{"a", 1}, {"b", 5}, {"c", 7}}
		if stop > 0 {
			want = want[:stop]
		}
		if !slices.Equal(got, want) {
			t.Errorf("stop %d: %v, want %v", stop, got, want)
		}
		if store.open != 0 {
			t.Errorf("stop %d: %d runs open after the loop, want 0", stop, store.open)
		}
	}
}

// TestMergeRandomRuns merges runs of random lengths (none to hundreds,
// up to 40 of them) of keys drawn from a few dozen, against the sums of
// a map: every key once, in order, its counts summed across the runs;
// and, kept apart, every record, in order. It checks the heap's moves
// (the merge's own, where container/heap made them) on every shape of a
// few sources: one, an empty one, many ending at once.
func TestMergeRandomRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 51))
	for round := range 100 {
		nruns := rng.IntN(40) + 1
		want := map[string]int64{}
		var all []kv
		var runs [][]kv
		for range nruns {
			run := make([]kv, rng.IntN(300))
			for i := range run {
				run[i] = kv{fmt.Sprintf("k%02d", rng.IntN(60)), rng.Int64N(1000)}
				want[run[i].key] += run[i].n
			}
			slices.SortFunc(run, func(a, b kv) int { return strings.Compare(a.key, b.key) })
			runs = append(runs, run)
			all = append(all, run...)
		}
		for _, combine := range []bool{true, false} {
			store := newMemStore()
			r := kvRuns(store, 64, combine)
			for _, run := range runs {
				if err := r.Write(Slice(run)); err != nil {
					t.Fatal(err)
				}
			}
			m, err := r.Merge()
			if err != nil {
				t.Fatal(err)
			}
			got := drain[kv](t, m)
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			if !slices.IsSortedFunc(got, func(a, b kv) int { return strings.Compare(a.key, b.key) }) {
				t.Fatalf("round %d, combine %v: merged out of order: %v", round, combine, got)
			}
			if combine {
				if len(got) != len(want) {
					t.Fatalf("round %d: %d keys, want %d", round, len(got), len(want))
				}
				for _, v := range got {
					if v.n != want[v.key] {
						t.Fatalf("round %d: %s summed to %d, want %d", round, v.key, v.n, want[v.key])
					}
				}
				continue
			}
			byKeyN := func(a, b kv) int { return cmp.Or(strings.Compare(a.key, b.key), cmp.Compare(a.n, b.n)) }
			slices.SortFunc(got, byKeyN)
			exp := slices.Clone(all)
			slices.SortFunc(exp, byKeyN)
			if !slices.Equal(got, exp) {
				t.Fatalf("round %d: kept apart, %d records, want %d", round, len(got), len(exp))
			}
		}
	}
}

// TestRunRecordsOfEverySize writes records from empty to past the read
// buffer (bufSize), so that some end exactly at the buffer's end, some
// straddle it, and some are longer than it (copied out, not decoded in
// place), and reads them back whole; a run cut anywhere in its last
// record is an error, never a shorter record.
func TestRunRecordsOfEverySize(t *testing.T) {
	sizes := []int{0, 1, 7, 8, 9, 127, 128, 129, 1000}
	for n := bufSize - 20; n <= bufSize+20; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 3*bufSize+5, 1)
	var recs []kv
	for i, n := range sizes {
		recs = append(recs, kv{fmt.Sprintf("%06d", i) + strings.Repeat("x", n), int64(n)})
	}
	store := newMemStore()
	r := kvRuns(store, 4, false)
	if err := r.Write(Slice(recs)); err != nil {
		t.Fatal(err)
	}
	m, err := r.Merge()
	if err != nil {
		t.Fatal(err)
	}
	if got := drain[kv](t, m); !slices.Equal(got, recs) {
		t.Fatalf("read back %d records, want %d, or not the same", len(got), len(recs))
	}
	whole := store.runs["kv-000000"]
	for _, cut := range []int{1, 2, 3, bufSize / 2, bufSize + 3} {
		store.runs["kv-000000"] = whole[:len(whole)-cut]
		m, err := r.Merge()
		if err == nil {
			for _, err = range m.All() {
				if err != nil {
					break
				}
			}
		}
		if err == nil {
			t.Errorf("cut by %d bytes: no error", cut)
		}
	}
}

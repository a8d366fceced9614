package dedup

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// t0 is the start of the streams used in tests.
var t0 = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).UnixNano()

type row struct {
	fp    uint64
	start int64
}

func TestFirstSeen(t *testing.T) {
	hour := int64(time.Hour)
	tests := []struct {
		name string
		rows []row
		want []bool
	}{
		{name: "new then repeat", rows: []row{{1, t0}, {1, t0}}, want: []bool{true, false}},
		{name: "fingerprint zero", rows: []row{{0, t0}, {0, t0}, {1, t0}}, want: []bool{true, false, true}},
		{name: "distinct calls in one instant", rows: []row{{1, t0}, {2, t0}, {3, t0}, {2, t0}}, want: []bool{true, true, true, false}},
		{name: "repeat after other hours", rows: []row{{1, t0}, {2, t0 + hour}, {3, t0 + 5*hour}, {1, t0}}, want: []bool{true, true, true, false}},
		{name: "before 1970", rows: []row{{1, -1}, {2, 0}, {1, -1}, {2, 0}}, want: []bool{true, true, false, false}},
		{name: "extreme instants", rows: []row{{1, -1 << 63}, {2, 1<<63 - 1}, {1, -1 << 63}}, want: []bool{true, true, false}},
	}
	for _, tt := range tests {
		for _, budget := range []int64{0, 1} {
			s := New(Options{Dir: t.TempDir(), MaxBytes: budget})
			for i, r := range tt.rows {
				got, err := s.FirstSeen(r.fp, r.start)
				if err != nil {
					t.Fatalf("%s (budget %d): row %d: %v", tt.name, budget, i, err)
				}
				if got != tt.want[i] {
					t.Errorf("%s (budget %d): row %d FirstSeen(%d) = %v, want %v", tt.name, budget, i, r.fp, got, tt.want[i])
				}
			}
			if err := s.Close(); err != nil {
				t.Errorf("%s: Close: %v", tt.name, err)
			}
		}
	}
}

// TestPartitionByHour checks that each call lands in the partition of its
// own UTC hour, at the edges of hours and of the int64 range, whichever
// partition the call before it used.
func TestPartitionByHour(t *testing.T) {
	hour := int64(time.Hour)
	starts := []int64{t0, t0 + hour - 1, t0 + hour, t0 - 1, t0 + hour - 1, -1 << 63, 1<<63 - 1, -1<<63 + 1, 1<<63 - 2, 0, -1}
	hours := map[int64]bool{}
	s := New(Options{})
	defer s.Close()
	for i, start := range starts {
		hours[hourOf(start)] = true
		if _, err := s.FirstSeen(uint64(i+1), start); err != nil {
			t.Fatal(err)
		}
		if got := s.Stats().Partitions; got != len(hours) {
			t.Fatalf("after start %d: %d partitions, want %d", start, got, len(hours))
		}
	}
}

// TestFirstSeenMatchesMap compares the set with a map on streams in every
// order, under budgets small enough to spill, load, probe and merge.
func TestFirstSeenMatchesMap(t *testing.T) {
	seeds := uint64(3)
	if testing.Short() {
		seeds = 1 // every order and budget still; make test-long runs the three
	}
	for _, order := range orders {
		for _, budget := range []int64{4 << 10, 64 << 10, DefaultMaxBytes} {
			for seed := range seeds {
				rows := order.gen(rand.New(rand.NewPCG(seed, 7)), 20000)
				s := New(Options{Dir: t.TempDir(), MaxBytes: budget})
				want := map[uint64]struct{}{}
				for i, r := range rows {
					_, dup := want[r.fp]
					want[r.fp] = struct{}{}
					got, err := s.FirstSeen(r.fp, r.start)
					if err != nil {
						t.Fatalf("%s budget %d seed %d: row %d: %v", order.name, budget, seed, i, err)
					}
					if got == dup {
						t.Fatalf("%s budget %d seed %d: row %d FirstSeen(%#x, %d) = %v, want %v",
							order.name, budget, seed, i, r.fp, r.start, got, !dup)
					}
				}
				st := s.Stats()
				if st.Entries != int64(len(want)) {
					t.Errorf("%s budget %d: Entries = %d, want %d", order.name, budget, st.Entries, len(want))
				}
				if budget == 4<<10 && st.Spills == 0 {
					t.Errorf("%s budget %d: nothing spilled: %+v", order.name, budget, st)
				}
				if seed == 0 {
					t.Logf("%-14s budget %7d: %+v", order.name, budget, st)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestPeakWithinBudget checks that sorted and concatenated inputs stay within
// the budget, bookkeeping and the spill buffers included.
func TestPeakWithinBudget(t *testing.T) {
	const budget = 1 << 20
	for _, order := range orders[:3] {
		s := New(Options{Dir: t.TempDir(), MaxBytes: budget})
		for _, r := range order.gen(rand.New(rand.NewPCG(1, 2)), 200000) {
			if _, err := s.FirstSeen(r.fp, r.start); err != nil {
				t.Fatal(err)
			}
		}
		st := s.Stats()
		if st.Spills == 0 || st.PeakBytes > budget {
			t.Errorf("%s: PeakBytes = %d with %d spills, want spills and at most %d", order.name, st.PeakBytes, st.Spills, budget)
		}
		s.Close()
	}
}

// TestSpillFileLeavesNothing checks that the spill file, unlinked as soon
// as it is created, is never left in its folder, while spilling still works.
func TestSpillFileLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir, MaxBytes: 64 << 10})
	for i := range 100 {
		if _, err := s.FirstSeen(uint64(i), t0); err != nil {
			t.Fatal(err)
		}
	}
	if n := countFiles(t, dir); n != 0 {
		t.Fatalf("%d files before the budget was exceeded, want 0", n)
	}
	for i := range 50000 {
		if _, err := s.FirstSeen(uint64(i)*7919, t0+int64(i)*int64(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if st := s.Stats(); st.Spills == 0 {
		t.Fatalf("no spill: %+v", st)
	}
	if n := countFiles(t, dir); n != 0 {
		t.Fatalf("%d files after spilling, want 0 (unlinked at creation)", n)
	}
	for range 2 {
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if n := countFiles(t, dir); n != 0 {
		t.Errorf("%d files after Close, want 0", n)
	}
	if _, err := s.FirstSeen(1, t0); !errors.Is(err, ErrClosed) {
		t.Errorf("FirstSeen after Close: err = %v, want ErrClosed", err)
	}
}

func TestErrorNamesSpillFile(t *testing.T) {
	s := New(Options{Dir: t.TempDir(), MaxBytes: 4 << 10})
	defer s.Close()
	for i := range 3000 {
		if _, err := s.FirstSeen(uint64(i)+1, t0+int64(i%10)*int64(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	name := s.spill.f.Name()
	s.spill.f.Close() // make every later read and write fail
	var err error
	for i := 0; err == nil && i < 3000; i++ {
		_, err = s.FirstSeen(uint64(i)+1, t0+int64(i%10)*int64(time.Hour))
	}
	if err == nil || !strings.Contains(err.Error(), name) {
		t.Fatalf("err = %v, want it to name %s", err, name)
	}
	if _, again := s.FirstSeen(1, t0); again != err {
		t.Errorf("next call: err = %v, want the same error %v", again, err)
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// order is a way of arranging a stream of rows.
type order struct {
	name string
	gen  func(rng *rand.Rand, calls int) []row
}

var orders = []order{
	{"sorted", func(rng *rand.Rand, n int) []row { return sortedRows(calls(rng, n, time.Minute), rng) }},
	{"nearly sorted", func(rng *rand.Rand, n int) []row { return scatterDups(calls(rng, n, time.Minute), rng) }},
	{"concatenated", func(rng *rand.Rand, n int) []row { return concatenated(calls(rng, n, time.Minute), 3) }},
	{"random", func(rng *rand.Rand, n int) []row { return shuffled(calls(rng, n, time.Minute), rng) }},
	{"one hour", func(rng *rand.Rand, n int) []row { return sortedRows(calls(rng, n, time.Millisecond/10), rng) }},
	{"one instant", func(rng *rand.Rand, n int) []row { return shuffled(calls(rng, n, 0), rng) }},
	{"years random", func(rng *rand.Rand, n int) []row { return shuffled(calls(rng, n, 100*time.Hour), rng) }},
}

// calls returns n distinct calls about step apart, some sharing an instant;
// call 0 has fingerprint 0.
func calls(rng *rand.Rand, n int, step time.Duration) []row {
	rows := make([]row, n)
	start := t0
	for i := range rows {
		if rng.IntN(4) > 0 { // a quarter of the calls share the previous instant
			start += rng.Int64N(2*int64(step) + 1)
		}
		rows[i] = row{fp: splitmix(uint64(i)), start: start}
	}
	rows[0].fp = 0
	return rows
}

// sortedRows repeats a third of the calls right after themselves.
func sortedRows(cs []row, rng *rand.Rand) []row {
	var out []row
	for _, c := range cs {
		out = append(out, c)
		for rng.IntN(3) == 0 {
			out = append(out, c)
		}
	}
	return out
}

// scatterDups repeats a third of the calls 1 to 10,000 calls later.
func scatterDups(cs []row, rng *rand.Rand) []row {
	later := map[int][]row{}
	var out []row
	for i := 0; i < len(cs) || len(later) > 0; i++ {
		if i < len(cs) {
			out = append(out, cs[i])
			if rng.IntN(3) == 0 {
				at := i + []int{1, 10, 100, 1000, 10000}[rng.IntN(5)]
				later[at] = append(later[at], cs[i])
			}
		}
		out = append(out, later[i]...)
		delete(later, i)
	}
	return out
}

// concatenated returns k sorted exports whose time ranges overlap by half.
func concatenated(cs []row, k int) []row {
	var out []row
	width := 2 * len(cs) / (k + 1)
	for i := range k {
		lo := i * width / 2
		out = append(out, cs[lo:min(len(cs), lo+width)]...)
	}
	return out
}

// shuffled repeats a third of the calls and shuffles the rows.
func shuffled(cs []row, rng *rand.Rand) []row {
	out := sortedRows(cs, rng)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// splitmix is a bijective mixer, so distinct calls get distinct fingerprints.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

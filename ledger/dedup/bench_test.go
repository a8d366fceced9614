package dedup

import (
	"fmt"
	"testing"
	"time"
)

// benchSpan is the time covered by a benchmark stream: a month of calls.
const benchSpan = 30 * 24 * time.Hour

// A benchRow returns row i of a stream of n rows. One row in 16 repeats a
// call; fingerprints are bijective mixes of the call number.
type benchRow func(i, n int) (fp uint64, start int64)

// benchCall returns the fingerprint and start of call c of n, evenly spread.
func benchCall(c, n int) (uint64, int64) {
	return splitmix(uint64(c)), t0 + int64(c)*int64(benchSpan/time.Duration(n))
}

// sortedRow repeats every fifteenth call right after itself.
func sortedRow(i, n int) (uint64, int64) { return benchCall(i*15/16, n) }

// concatenatedRow is three sorted exports of the whole month: even calls,
// odd calls, then the even calls again.
func concatenatedRow(i, n int) (uint64, int64) {
	w := n / 3
	return benchCall(2*(i%w)+i/w%2, 2*w)
}

// randomRow visits the rows of sortedRow in a scrambled order.
func randomRow(i, n int) (uint64, int64) {
	return sortedRow(int(uint64(i)*1_000_003%uint64(n)), n)
}

func BenchmarkFirstSeen(b *testing.B) {
	cases := []struct {
		order string
		rows  int
		row   benchRow
	}{
		{"sorted", 5_000_000, sortedRow},
		{"concatenated", 2_000_000, concatenatedRow},
		{"random", 1_000_000, randomRow},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("%s/rows=%d", c.order, c.rows), func(b *testing.B) {
			b.ReportAllocs()
			dir := b.TempDir()
			var st Stats
			for b.Loop() {
				s := New(Options{Dir: dir})
				for i := range c.rows {
					if _, err := s.FirstSeen(c.row(i, c.rows)); err != nil {
						b.Fatal(err)
					}
				}
				st = s.Stats()
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.rows), "ns/row")
			b.ReportMetric(float64(st.PeakBytes), "peak-B")
			b.ReportMetric(float64(st.BytesSpilled), "spilled-B")
			b.ReportMetric(float64(st.Loads+st.Probes), "reads")
		})
	}
}

// BenchmarkMap is the unbounded map the set replaces, for comparison.
func BenchmarkMap(b *testing.B) {
	const rows = 5_000_000
	b.Run(fmt.Sprintf("sorted/rows=%d", rows), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			seen := map[uint64]struct{}{}
			for i := range rows {
				fp, _ := sortedRow(i, rows)
				seen[fp] = struct{}{}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
	})
}

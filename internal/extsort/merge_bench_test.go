package extsort

import (
	"fmt"
	"testing"
)

// BenchmarkMergeDays merges what a spill at each day's end leaves: 31
// runs of 8,192 groups each, their keys in disjoint ranges one after the
// other (a log in time order, grouped by day first), read back from
// memory and summed. ns/op is for the whole merge; ns/record is one
// group's read, decode and place in the heap.
func BenchmarkMergeDays(b *testing.B) {
	const days, perDay = 31, 8192
	store := newMemStore()
	r := kvRuns(store, 64, true)
	for d := range days {
		run := make([]kv, perDay)
		for i := range run {
			run[i] = kv{fmt.Sprintf("2026-10-%02d/key-%07d", d+1, i), int64(i)}
		}
		if err := r.Write(Slice(run)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		m, err := r.Merge()
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, err := range m.All() {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != days*perDay {
			b.Fatalf("%d records, want %d", n, days*perDay)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*days*perDay), "ns/record")
}

package pricing

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// BenchmarkEngineAdd prices time-ordered calls into buckets, the hot loop
// of reconcile and blend.
func BenchmarkEngineAdd(b *testing.B) {
	cat := testCatalog(b)
	for _, n := range []int{100_000} {
		rng := rand.New(rand.NewPCG(1, 2))
		calls := make([]ledger.Call, n)
		t0 := at("2026-09-01T00:00:00Z")
		for i := range calls {
			end := t0.Add(time.Duration(i) * 20 * time.Second)
			calls[i] = call(fmt.Sprintf("req-%d", i), "flash", end.Format(time.RFC3339), rng.Int64N(9000), rng.Int64N(9000), rng.Int64N(900))
			calls[i].Recorded = decimal.New(rng.Int64N(1e9), -12)
			k := rng.IntN(40)
			calls[i].Key, calls[i].Team, calls[i].User = fmt.Sprintf("key-%d", k), fmt.Sprintf("team-%d", k%5), fmt.Sprintf("user-%d", k%17)
			calls[i].ModelGroup = "flash"
		}
		// MonthDims are what report groups by.
		for _, dims := range [][]Dim{nil, {DimModel, DimKey, DimDay}, MonthDims} {
			b.Run(fmt.Sprintf("calls=%d/dims=%d", n, len(dims)), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					e := New(cat, Options{Dims: dims})
					for i := range calls {
						e.AddPriced(&calls[i])
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
			})
		}
	}
}

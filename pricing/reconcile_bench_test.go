package pricing

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// BenchmarkReconcile prices random calls of several models, keys and days
// and builds the reconciliation: the whole of a reconcile run after the
// reading (pricing), and the report step alone (report).
func BenchmarkReconcile(b *testing.B) {
	cat := testCatalog(b)
	const n = 100_000
	calls := randomCalls(rand.New(rand.NewPCG(13, 17)), n)
	for _, dims := range [][]Dim{{DimModel}, {DimModel, DimKey, DimDay}} {
		b.Run(fmt.Sprintf("calls=%d/dims=%d/pricing", n, len(dims)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e := New(cat, Options{Dims: dims})
				for i := range calls {
					e.AddPriced(&calls[i])
				}
				e.Reconcile()
			}
		})
		b.Run(fmt.Sprintf("calls=%d/dims=%d/report", n, len(dims)), func(b *testing.B) {
			e := New(cat, Options{Dims: dims})
			for i := range calls {
				e.AddPriced(&calls[i])
			}
			b.ReportAllocs()
			for b.Loop() {
				e.Reconcile()
			}
		})
	}
}

// groupCalls returns one call for each of keys × days × 2 models (flash,
// dst-model) in September 2026, in time order: as many groups by model,
// key and day as calls.
func groupCalls(keys, days int) []ledger.Call {
	base := at("2026-09-01T00:00:00Z")
	calls := make([]ledger.Call, 0, keys*days*2)
	models := []string{"flash", "dst-model"}
	for d := range days {
		for k := range keys {
			for m, model := range models {
				i := len(calls)
				end := base.Add(time.Duration(d)*24*time.Hour + time.Duration(k*2+m)*time.Second%(20*time.Hour))
				c := call(fmt.Sprintf("r%d", i), model, end.Format(time.RFC3339Nano), int64(1000+i%5000), int64(i%700), int64(200+i%900))
				c.Key = fmt.Sprintf("%064x", k)
				c.KeyAlias = fmt.Sprintf("key-%07d", k)
				c.Recorded = ledger.NewAmount(int64(i%100_000), -9)
				calls = append(calls, c)
			}
		}
	}
	return calls
}

// BenchmarkReconcileGroups builds the reconciliation of many groups by
// model, key and day (1 call a group), the report step alone: the cost per
// group beyond the pricing of the calls.
func BenchmarkReconcileGroups(b *testing.B) {
	cat := testCatalog(b)
	for _, keys := range []int{100, 10_000} {
		calls := groupCalls(keys, 25)
		b.Run(fmt.Sprintf("groups=%d", len(calls)), func(b *testing.B) {
			e := New(cat, Options{Dims: []Dim{DimModel, DimKey, DimDay}, MaxGroups: 1 << 24})
			for i := range calls {
				e.AddPriced(&calls[i])
			}
			b.ReportAllocs()
			for b.Loop() {
				e.Reconcile()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(calls)), "ns/group")
		})
	}
}

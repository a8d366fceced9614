package pricing

import (
	"fmt"
	"math/rand/v2"
	"testing"
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

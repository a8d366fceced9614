package pricing

import (
	"testing"
	"time"
)

// BenchmarkSpill prices 100,000 calls in 50,000 groups (by model, key and
// day) with a budget of 2,000 buckets, its runs in memory, and reads back
// what each output asks: the groups (Reconcile), the chargeback's lines
// (blend parts in the runs, lines sorted in runs of their own) and the
// charges (runs of charge groups). The CPU of the spill alone: its runs'
// records encoded, decoded and merged, no file written.
func BenchmarkSpill(b *testing.B) {
	cat := testCatalog(b)
	calls := groupCalls(2_000, 25)
	from, until := at("2026-09-01T00:00:00Z"), at("2026-10-01T00:00:00Z")
	for _, tc := range []struct {
		name    string
		outputs Outputs
		read    func(e *Engine) error
	}{
		{"groups", OutputGroups, func(e *Engine) error {
			r := e.Reconcile()
			defer r.Close()
			_, err := Collect(r.Groups())
			return err
		}},
		{"chargeback", OutputChargeback, func(e *Engine) error {
			cb, err := e.Chargeback(from, until, nil)
			if err != nil {
				return err
			}
			defer cb.Close()
			_, err = Collect(cb.Lines())
			return err
		}},
		{"charges", OutputCharges, chargesErr},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				runs := &memRuns{}
				e := New(cat, Options{Dims: []Dim{DimModel, DimKey, DimDay}, Zone: time.UTC, MaxGroups: 2_000, Runs: runs.store, Outputs: tc.outputs})
				for i := range calls {
					e.AddPriced(&calls[i])
				}
				if err := tc.read(e); err != nil {
					b.Fatal(err)
				}
				e.Close()
			}
		})
	}
}

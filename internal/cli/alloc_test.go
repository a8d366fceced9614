package cli

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestReconcileAllocatesNothingPerRow checks the steady state of reading
// and pricing: the allocations of a run grow with the batches, the buckets
// and the hours the calls span (the identity set's partitions), not with
// the rows. The sample month is priced with each row repeated 4 and 8
// times under new request ids: the same hours, models and keys, twice the
// calls. The difference gives the allocations per extra row, fixed costs
// (the catalog, the report, the hours) cancelling out. What is left is the
// identity set's tables doubling, once per hour of the month when the rows
// double, and a few allocations per batch of 4096 rows: about 0.02 a row
// here, against at least 1 for anything allocated per row.
func TestReconcileAllocatesNothingPerRow(t *testing.T) {
	if testing.Short() {
		t.Skip("prices the sample month 12 times over")
	}
	data, err := os.ReadFile("../../testdata/sample/spendlogs-2026-10.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "request_id,") {
		t.Fatalf("the sample's first column is not request_id: %.80s", lines[0])
	}
	repeated := func(times int) string {
		var b strings.Builder
		b.WriteString(lines[0])
		for _, line := range lines[1:] {
			for i := range times {
				fmt.Fprintf(&b, "copy%d-%s", i, line)
			}
		}
		return b.String()
	}
	allocs := func(input string) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if code, _, stderr := runCLI(t, input, "reconcile", "--calls", "-", "-o", "json"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	rows := len(lines) - 1
	four, eight := repeated(4), repeated(8)
	allocs(four) // warm what is set up once per process
	a, b := allocs(four), allocs(eight)
	perRow := (float64(b) - float64(a)) / float64(4*rows)
	t.Logf("%d allocations for %d rows, %d for %d: %.4f per extra row", a, 4*rows, b, 8*rows, perRow)
	if perRow > 0.05 {
		t.Errorf("%.4f allocations per row, want about none", perRow)
	}
}

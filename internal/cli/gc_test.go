package cli

import (
	"runtime/debug"
	"testing"
)

// TestLessGC: the catalog is built at loadGCPercent and the target before
// comes back after; a higher target, or none (GOGC=off), is left alone.
func TestLessGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, before := range []int{100, 50, loadGCPercent + 100, -1} {
		debug.SetGCPercent(before)
		restore := lessGC()
		during := debug.SetGCPercent(-1)
		debug.SetGCPercent(during)
		restore()
		after := debug.SetGCPercent(before)
		want := max(before, loadGCPercent)
		if before < 0 {
			want = before
		}
		if during != want || after != before {
			t.Errorf("GOGC %d: %d while the catalog is built, %d after; want %d, then %d", before, during, after, want, before)
		}
	}
}

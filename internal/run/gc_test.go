package run

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestGCPercent(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name string
		live uint64
		base int
		want int
	}{
		// 64 MiB of headroom over 32 MiB live: 200%.
		{"a read's live heap", 32 * mib, 100, 200},
		// 64 MiB over 28 MiB: 228.57%, rounded down.
		{"a little less live", 28 * mib, 100, 228},
		{"nearly nothing live: the bound", 1 * mib, 100, maxGCPercent},
		{"as much live as the headroom: the default", 64 * mib, 100, 100},
		{"many groups live: the default", 900 * mib, 100, 100},
		{"a higher percent already: kept", 32 * mib, 300, 300},
		{"unknown live heap", 0, 100, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := gcPercent(tt.live, tt.base); got != tt.want {
				t.Errorf("gcPercent(%d MiB, %d) = %d, want %d", tt.live/mib, tt.base, got, tt.want)
			}
		})
	}
}

// TestGCPacerPutsThePercentBack runs two reads that overlap: the percent
// in force before the first is back once the last has stopped, and a
// GOGC in the environment leaves the collector alone.
func TestGCPacerPutsThePercentBack(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	runtime.GC() // a live heap to go by: a test's few MiB
	a := startGCPacer()
	b := startGCPacer()
	if a == nil || b == nil {
		t.Fatal("no pacer with GOGC unset")
	}
	if during := debug.SetGCPercent(-1); during <= 150 {
		t.Errorf("while reading the percent is %d, want above 150 for a small heap", during)
	} else {
		debug.SetGCPercent(during)
	}
	a.stop()
	for range 200 {
		b.batch()
	}
	b.stop()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("after two reads the percent is %d, want 150 as before", got)
	}
	t.Setenv("GOGC", "100")
	if p := startGCPacer(); p != nil {
		t.Error("a pacer although GOGC is set")
	}
}

package pricing

import (
	"fmt"
	"testing"
)

// TestFoldUnpriced: past the bound, the entries with the fewest calls are
// summed by cause under OtherNames; calls and spend are kept whole.
func TestFoldUnpriced(t *testing.T) {
	var us []UnpricedCalls
	for i := range 5 {
		cause := CauseNotInCatalog
		if i%2 == 1 {
			cause = CauseRetired
		}
		us = append(us, UnpricedCalls{Model: fmt.Sprintf("m%d", i), Cause: cause, Calls: int64(10 - i), Recorded: dec(fmt.Sprintf("0.%d", i+1))})
	}
	got := foldUnpriced(us, 2)
	// Kept: m0 (10 calls), m1 (9). Folded: m2 and m4 (not in catalog, 8 + 6
	// calls, 0.3 + 0.5), m3 (retired, 7 calls, 0.4).
	want := []struct {
		model string
		cause UnpricedCause
		calls int64
		spend string
	}{{"m0", CauseNotInCatalog, 10, "0.1"}, {"m1", CauseRetired, 9, "0.2"},
		{OtherNames, CauseNotInCatalog, 14, "0.8"}, {OtherNames, CauseRetired, 7, "0.4"}}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Model != w.model || g.Cause != w.cause || g.Calls != w.calls || !g.Recorded.Equal(dec(w.spend)) {
			t.Errorf("entry %d: %s %s %d %s, want %s %s %d %s", i, g.Model, g.Cause, g.Calls, g.Recorded, w.model, w.cause, w.calls, w.spend)
		}
	}
	if n := len(foldUnpriced(us[:2], 2)); n != 2 {
		t.Errorf("within the bound: %d entries, want 2", n)
	}
}

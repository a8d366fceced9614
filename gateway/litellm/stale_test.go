package litellm

import (
	"testing"

	"github.com/shopspring/decimal"
)

// TestStale sorts each change of an update against a tolerance of 0.5%.
func TestStale(t *testing.T) {
	d := decimal.RequireFromString
	tests := []struct {
		name   string
		change Change
		stale  bool
		kind   Staleness
		off    string // with StaleOff
	}{
		// |0.2512 - 0.25| / 0.25 = 0.0012 / 0.25 = 0.0048: within 0.5%.
		{"within the tolerance", Change{Old: "2.512e-7", OldPrice: d("0.2512"), NewPrice: d("0.25")}, false, 0, ""},
		// |0.2513 - 0.25| / 0.25 = 0.0052: off.
		{"beyond the tolerance", Change{Old: "2.513e-7", OldPrice: d("0.2513"), NewPrice: d("0.25")}, true, StaleOff, "0.0052"},
		// |0.24875 - 0.25| / 0.25 = 0.005: on the bound, kept.
		{"on the tolerance", Change{Old: "2.4875e-7", OldPrice: d("0.24875"), NewPrice: d("0.25")}, false, 0, ""},
		{"missing", Change{NewPrice: d("0.25")}, true, StaleMissing, ""},
		{"a block", Change{Block: true, Old: "windows differ"}, true, StaleBlock, ""},
		{"0 kept at 0", Change{Old: "0", OldPrice: d("0"), NewPrice: d("0")}, false, 0, ""},
		{"the blend is 0", Change{Old: "1e-7", OldPrice: d("0.1"), NewPrice: d("0")}, true, StaleZeroBlend, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &Update{Changes: []Change{tt.change}}
			got := u.Stale(d("0.005"))
			if (len(got) == 1) != tt.stale {
				t.Fatalf("stale = %v, want %v", got, tt.stale)
			}
			if !tt.stale {
				return
			}
			if got[0].Kind != tt.kind {
				t.Errorf("kind = %d, want %d", got[0].Kind, tt.kind)
			}
			if tt.off != "" && !got[0].Off.Equal(d(tt.off)) {
				t.Errorf("off = %s, want %s", got[0].Off, tt.off)
			}
		})
	}
}

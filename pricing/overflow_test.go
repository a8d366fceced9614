package pricing

import (
	"errors"
	"math"
	"testing"

	"github.com/tokenfare/tokenfare/tariffs"
)

// TestTokenSumsNeverWrap adds calls whose token sums pass 2^63-1: the
// engine refuses the call that would wrap and reports ErrTokenSum, and the
// totals it kept are the exact sums of the calls it took.
func TestTokenSumsNeverWrap(t *testing.T) {
	half := int64(math.MaxInt64/2 + 1) // 2^62: two of them make 2^63, one past the range
	tests := []struct {
		name         string
		in, out      [2]int64 // input and output tokens of two calls
		wantErr      bool
		wantInputSum int64
	}{
		{name: "input sum wraps", in: [2]int64{half, half}, wantErr: true, wantInputSum: half},
		{name: "output sum wraps", out: [2]int64{half, half}, wantErr: true},
		{name: "largest sum that fits", in: [2]int64{half, half - 1}, wantInputSum: math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(testCatalog(t), Options{})
			for i := range 2 {
				c := call(string(rune('a'+i)), "flash", "2026-09-01T02:00:00Z", tt.in[i], 0, tt.out[i])
				e.AddPriced(&c)
			}
			if got := errors.Is(e.Err(), ErrTokenSum); got != tt.wantErr {
				t.Fatalf("Err() = %v, want ErrTokenSum: %t", e.Err(), tt.wantErr)
			}
			var in int64
			for _, b := range e.allBuckets() {
				if b.Qty[tariffs.Input] < 0 {
					t.Errorf("a bucket's input sum wrapped to %d", b.Qty[tariffs.Input])
				}
				in += b.Qty[tariffs.Input]
			}
			if in != tt.wantInputSum {
				t.Errorf("input sum %d, want %d", in, tt.wantInputSum)
			}
		})
	}
}

package run

import (
	"context"
	"errors"
	"testing"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// TestKeep reads testdata/plain.csv (4 rows: p1 priced, p2 rejected, p3
// unpriced, h1 priced) as a state's refresh does. Without strict every
// call reaches the keeper and the one rejected row is returned; under
// strict the run ends at p2 with its *RejectedError, the keeper having
// seen the calls of no batch past it (the file is one batch: none).
func TestKeep(t *testing.T) {
	tests := []struct {
		strict   bool
		seen     int
		rejected int64
		err      bool
	}{
		{strict: false, seen: 3, rejected: 1},
		{strict: true, seen: 0, err: true},
	}
	for _, tt := range tests {
		seen := 0
		keep := pricing.ObserverFunc(func(*ledger.Call, *pricing.PricedCall) error { seen++; return nil })
		n, err := Keep(tt.strict)(context.Background(), catalog(t), pricing.Options{}, files("testdata/plain.csv"), keep)
		var rej *RejectedError
		if got := errors.As(err, &rej); got != tt.err || (err != nil && !got) {
			t.Errorf("strict %v: error %v", tt.strict, err)
		}
		if seen != tt.seen || n != tt.rejected {
			t.Errorf("strict %v: %d call(s) kept, %d rejected; want %d and %d", tt.strict, seen, n, tt.seen, tt.rejected)
		}
	}
}

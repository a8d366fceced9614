package savings

import (
	"math"

	"github.com/tokenfare/tokenfare/ledger"
)

// less reports whether a < b, in integers when both fit (the costs of
// one call at fixed rates mostly do), else in decimals.
func less(a, b ledger.Amount) bool {
	ac, ae, aok := a.Int64()
	bc, be, bok := b.Int64()
	if aok && bok {
		switch {
		case ae == be:
			return ac < bc
		case ae > be:
			if x, ok := scaled(ac, ae-be); ok {
				return x < bc
			}
		default:
			if y, ok := scaled(bc, be-ae); ok {
				return ac < y
			}
		}
	}
	return a.Decimal().LessThan(b.Decimal())
}

// scaled returns c × 10^d, false when it does not fit in an int64.
func scaled(c int64, d int32) (int64, bool) {
	for range d {
		if c > math.MaxInt64/10 || c < math.MinInt64/10 {
			return 0, false
		}
		c *= 10
	}
	return c, true
}

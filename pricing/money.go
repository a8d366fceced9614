package pricing

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"
)

// RatioPlaces is the number of decimal places ratios and shares are rounded to.
const RatioPlaces = 6

// ratio returns num/den rounded half away from zero to RatioPlaces places;
// it is not valid when den is zero.
func ratio(num, den decimal.Decimal) decimal.NullDecimal {
	if den.IsZero() {
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(num.DivRound(den, RatioPlaces))
}

// ratioOfSums is ratio(num.Value(), den.Value()) of two exact sums,
// given as numV and denV: in integers, one 128-bit division and the same
// rounding, when both sums are single integers and the quotient fits.
func ratioOfSums(num, den *ExactSum, numV, denV decimal.Decimal) decimal.NullDecimal {
	if !num.used() && !den.used() && den.small != 0 {
		if q, ok := intRatio(num.small, num.exp, den.small, den.exp); ok {
			return decimal.NewNullDecimal(decimal.New(q, -RatioPlaces))
		}
	}
	return ratio(numV, denV)
}

// gapOfSums returns official − recorded, the sums' values officialV and
// recordedV, as Decimal.Sub gives it (at the smaller exponent), in
// integers when both sums and the difference fit an int64.
func gapOfSums(official, recorded *ExactSum, officialV, recordedV decimal.Decimal) decimal.Decimal {
	if d, exp, ok := intGap(official, recorded); ok {
		return decimal.New(d, exp)
	}
	return officialV.Sub(recordedV)
}

// intGap returns official − recorded as d × 10^exp, at the smaller
// exponent as Decimal.Sub gives it; false unless both sums are single
// integers and the difference fits an int64.
func intGap(official, recorded *ExactSum) (d int64, exp int32, ok bool) {
	if official.used() || recorded.used() {
		return 0, 0, false
	}
	a, b, exp := official.small, recorded.small, min(official.exp, recorded.exp)
	sa, sb := official.exp-exp, recorded.exp-exp
	if sa > 18 || sb > 18 {
		return 0, 0, false
	}
	x, okx := scaled(a, sa)
	y, oky := scaled(b, sb)
	if d := x - y; okx && oky && (y >= 0) == (d <= x) { // no overflow
		return d, exp, true
	}
	return 0, 0, false
}

// scaled returns n × 10^shift, false when it does not fit an int64.
func scaled(n int64, shift int32) (int64, bool) {
	p := pow10[shift]
	if n > math.MaxInt64/p || n < math.MinInt64/p {
		return 0, false
	}
	return n * p, true
}

// intRatio returns (n × 10^ne) / (d × 10^de) in units of 10^-RatioPlaces,
// truncated and then rounded half away from zero as DivRound rounds; false
// when it does not fit in 64 bits. d must not be zero.
func intRatio(n int64, ne int32, d int64, de int32) (int64, bool) {
	k := int(ne) - int(de) + RatioPlaces
	if k < 0 || k >= len(pow10u) {
		return 0, false
	}
	an, ad := magnitude(n), magnitude(d)
	hi, lo := bits.Mul64(an, pow10u[k])
	if hi >= ad {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, ad)
	if r >= ad-r { // 2r ≥ |d|: away from zero
		q++
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	if (n < 0) != (d < 0) {
		return -int64(q), true
	}
	return int64(q), true
}

// magnitude returns |n|, math.MinInt64's included.
func magnitude(n int64) uint64 {
	if n < 0 {
		return uint64(-n)
	}
	return uint64(n)
}

// pow10u are the powers of ten that fit in a uint64.
var pow10u = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

package pricing

import "github.com/shopspring/decimal"

// RatioPlaces is the number of decimal places ratios are rounded to.
const RatioPlaces = 6

// Ratio returns num/den rounded half away from zero to RatioPlaces places,
// and false when den is zero.
func Ratio(num, den decimal.Decimal) (decimal.Decimal, bool) {
	if den.IsZero() {
		return decimal.Zero, false
	}
	return num.DivRound(den, RatioPlaces), true
}

// ratioString formats Ratio for JSON: "" when undefined.
func ratioString(num, den decimal.Decimal) string {
	r, ok := Ratio(num, den)
	if !ok {
		return ""
	}
	return r.StringFixed(RatioPlaces)
}

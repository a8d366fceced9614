package pricing

import "github.com/shopspring/decimal"

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

package ledger

import "github.com/shopspring/decimal"

// Amount is an exact decimal amount, such as the spend a gateway recorded
// for a call: coef × 10^exp. It keeps the two integers when the
// coefficient fits in an int64, which every recorded spend does, so that a
// reader builds one from text without allocating; a larger amount is kept
// as a decimal.Decimal. It is never a float. The zero value is 0.
type Amount struct {
	coef int64
	exp  int32
	wide bool            // the value is d
	d    decimal.Decimal // when wide
}

// NewAmount returns coef × 10^exp.
func NewAmount(coef int64, exp int32) Amount { return Amount{coef: coef, exp: exp} }

// AmountOf returns d as an Amount.
func AmountOf(d decimal.Decimal) Amount {
	if c := d.Coefficient(); c.IsInt64() {
		return Amount{coef: c.Int64(), exp: d.Exponent()}
	}
	return Amount{wide: true, d: d}
}

// Int64 returns the amount as coef × 10^exp, and ok = false when the
// coefficient does not fit in an int64 (use Decimal then).
func (a Amount) Int64() (coef int64, exp int32, ok bool) {
	return a.coef, a.exp, !a.wide
}

// Decimal returns the amount as a decimal.Decimal.
func (a Amount) Decimal() decimal.Decimal {
	if a.wide {
		return a.d
	}
	return decimal.New(a.coef, a.exp)
}

// IsZero reports whether the amount is 0.
func (a Amount) IsZero() bool {
	if a.wide {
		return a.d.IsZero()
	}
	return a.coef == 0
}

// IsNegative reports whether the amount is below 0.
func (a Amount) IsNegative() bool {
	if a.wide {
		return a.d.IsNegative()
	}
	return a.coef < 0
}

// Equal reports whether a and b are the same number, whatever their
// exponents: 1.50 equals 1.5.
func (a Amount) Equal(b Amount) bool { return a.Decimal().Equal(b.Decimal()) }

// String formats the amount as decimal.Decimal does.
func (a Amount) String() string { return a.Decimal().String() }

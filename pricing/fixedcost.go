package pricing

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// fixedRates are rates whose prices each fit an int64 coefficient, kept as
// coefficient and exponent (a token's per 1M already shifted in), so that
// a bucket's total cost is summed in 128-bit integers and made a decimal
// once, where CostOf makes one per usage type and rescales at each sum.
type fixedRates struct {
	coef [tariffs.NumUsage]int64
	exp  [tariffs.NumUsage]int32
	ok   bool // every price fits
	// scaled are the coefficients at one exponent, low, the smallest of
	// the prices' (flat when each fits an int64 there): a cost is then
	// one sum of products, where amount otherwise finds the smallest
	// exponent of the usages priced and scales each price to it, on every
	// pass over a bucket.
	scaled [tariffs.NumUsage]uint64
	low    int32
	flat   bool
}

// newFixedRates returns r's prices as coefficients and exponents; ok is
// false when one does not fit an int64 or is negative.
func newFixedRates(r *tariffs.Rates) *fixedRates {
	f := &fixedRates{ok: true}
	for u := range tariffs.NumUsage {
		p := r.Price(tariffs.Usage(u))
		c := p.Coefficient()
		if !c.IsInt64() || c.Sign() < 0 {
			f.ok = false
			return f
		}
		f.coef[u], f.exp[u] = c.Int64(), p.Exponent()
		if tariffs.Usage(u).IsToken() {
			f.exp[u] -= 6
		}
	}
	f.scale()
	return f
}

// scale sets the prices at the smallest exponent of those not zero
// (scaled, low), flat when each fits an int64 there.
func (f *fixedRates) scale() {
	first := true
	for u := range f.coef {
		if f.coef[u] != 0 && (first || f.exp[u] < f.low) {
			f.low, first = f.exp[u], false
		}
	}
	for u, c := range f.coef {
		if c == 0 {
			continue
		}
		shift := f.exp[u] - f.low
		if shift >= int32(len(pow10)) || c > math.MaxInt64/pow10[shift] {
			return
		}
		f.scaled[u] = uint64(c * pow10[shift])
	}
	f.flat = true
}

// total returns the cost of q (non-negative) at f, exactly the total of
// CostOf; ok is false when a product or the sum does not fit 127 bits at
// the smallest exponent, and the caller must use CostOf.
func (f *fixedRates) total(q *Quantities) (decimal.Decimal, bool) {
	a, ok := f.amount(q)
	return a.Decimal(), ok
}

// amount is total as an Amount, which needs no allocation when it fits an
// int64 coefficient.
func (f *fixedRates) amount(q *Quantities) (ledger.Amount, bool) {
	if f == nil || !f.ok {
		return ledger.Amount{}, false
	}
	if f.flat {
		return f.flatAmount(q)
	}
	minExp := int32(0)
	first := true
	for u := range q {
		if q[u] != 0 && f.coef[u] != 0 && (first || f.exp[u] < minExp) {
			minExp, first = f.exp[u], false
		}
	}
	if first {
		return ledger.Amount{}, true
	}
	var hi, lo uint64
	for u := range q {
		if q[u] == 0 || f.coef[u] == 0 {
			continue
		}
		if q[u] < 0 {
			return ledger.Amount{}, false
		}
		shift := f.exp[u] - minExp
		if shift >= int32(len(pow10)) {
			return ledger.Amount{}, false
		}
		// coef × 10^shift × q, in 128 bits.
		sh, sl := bits.Mul64(uint64(f.coef[u]), uint64(pow10[shift]))
		ph, pl := bits.Mul64(sl, uint64(q[u]))
		over, add := bits.Mul64(sh, uint64(q[u]))
		ph, carry := bits.Add64(ph, add, 0)
		if over != 0 || carry != 0 {
			return ledger.Amount{}, false
		}
		var c uint64
		lo, c = bits.Add64(lo, pl, 0)
		hi, c = bits.Add64(hi, ph, c)
		if c != 0 || hi>>63 != 0 {
			return ledger.Amount{}, false
		}
	}
	return amountOf128(hi, lo, minExp), true
}

// flatAmount is amount at rates whose prices are scaled to one exponent:
// the same value, at the prices' smallest exponent rather than that of
// the usages priced.
func (f *fixedRates) flatAmount(q *Quantities) (ledger.Amount, bool) {
	var hi, lo uint64
	priced := false
	for u := range q {
		if q[u] == 0 || f.scaled[u] == 0 {
			continue
		}
		if q[u] < 0 {
			return ledger.Amount{}, false
		}
		ph, pl := bits.Mul64(f.scaled[u], uint64(q[u]))
		var c uint64
		lo, c = bits.Add64(lo, pl, 0)
		hi, c = bits.Add64(hi, ph, c)
		if c != 0 || hi>>63 != 0 {
			return ledger.Amount{}, false
		}
		priced = true
	}
	if !priced {
		return ledger.Amount{}, true
	}
	return amountOf128(hi, lo, f.low), true
}

// amountOf128 returns the amount of the 127-bit coefficient hi:lo at
// exponent exp.
func amountOf128(hi, lo uint64, exp int32) ledger.Amount {
	if hi == 0 && lo <= 1<<63-1 {
		return ledger.NewAmount(int64(lo), exp)
	}
	v := new(big.Int).SetUint64(hi)
	v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(lo))
	return ledger.AmountOf(decimal.NewFromBigInt(v, exp))
}

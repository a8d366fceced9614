package tariffs

import "github.com/shopspring/decimal"

// Rates is the price of each usage type in one period: per 1M tokens, and
// per call for Request.
type Rates struct {
	price [NumUsage]decimal.Decimal
	set   [NumUsage]bool
}

// fallback names the usage type whose price applies when one is not listed.
var fallback = [NumUsage]int{Input: -1, CacheRead: int(Input), CacheWrite: int(Input), Output: -1, Reasoning: int(Output), Request: -1}

// Set lists price p for usage u.
func (r *Rates) Set(u Usage, p decimal.Decimal) {
	r.price[u] = p
	r.set[u] = true
}

// Listed reports whether the tariff lists a price for u itself.
func (r *Rates) Listed(u Usage) bool { return r.set[u] }

// Price returns the price that applies to u: the listed one, else the
// fallback (cache reads and writes at the input price, reasoning at the
// output price), else zero.
func (r *Rates) Price(u Usage) decimal.Decimal {
	for i := int(u); i >= 0; i = fallback[i] {
		if r.set[i] {
			return r.price[i]
		}
	}
	return decimal.Zero
}

// Equal reports whether r and o charge the same for every usage type.
func (r *Rates) Equal(o *Rates) bool {
	for u := range NumUsage {
		if !r.Price(Usage(u)).Equal(o.Price(Usage(u))) {
			return false
		}
	}
	return true
}

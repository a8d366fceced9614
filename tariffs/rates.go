package tariffs

import "github.com/shopspring/decimal"

// Rates is the price of each usage type in one period: per 1M tokens for
// the token usage types, per call for Request and per use for each tool.
type Rates struct {
	price [NumUsage]decimal.Decimal
	set   [NumUsage]bool
}

// fallback names the usage type whose price applies when one is not
// listed; -1 when none does. A 1-hour cache write has no fallback: the
// 5-minute price would understate it, so a rate set that does not list it
// leaves 1-hour writes unpriced (see Priced). Tools have none either.
var fallback = [NumUsage]int{Input: -1, CacheRead: int(Input), CacheWrite: int(Input), CacheWrite1h: -1,
	Output: -1, Reasoning: int(Output), Request: -1, WebSearch: -1, WebFetch: -1, FileSearch: -1}

// Set lists price p for usage u.
func (r *Rates) Set(u Usage, p decimal.Decimal) {
	r.price[u] = p
	r.set[u] = true
}

// Listed reports whether the tariff lists a price for u itself.
func (r *Rates) Listed(u Usage) bool { return r.set[u] }

// Priced reports whether the rates price u: listed, or reached through its
// fallback. Request is always priced (zero when not listed: no fee per
// call). A quantity of a usage type that is not priced costs nothing here
// and is reported as unpriced, never taken as free.
func (r *Rates) Priced(u Usage) bool {
	if u == Request {
		return true
	}
	for i := int(u); i >= 0; i = fallback[i] {
		if r.set[i] {
			return true
		}
	}
	return false
}

// Price returns the price that applies to u: the listed one, else the
// fallback (cache reads and 5-minute writes at the input price, reasoning
// at the output price), else zero.
func (r *Rates) Price(u Usage) decimal.Decimal {
	for i := int(u); i >= 0; i = fallback[i] {
		if r.set[i] {
			return r.price[i]
		}
	}
	return decimal.Zero
}

// Equal reports whether r and o charge the same for every usage type, and
// price the same ones.
func (r *Rates) Equal(o *Rates) bool {
	for u := range NumUsage {
		if !r.Price(Usage(u)).Equal(o.Price(Usage(u))) || r.Priced(Usage(u)) != o.Priced(Usage(u)) {
			return false
		}
	}
	return true
}

// scaled returns r with every listed token price multiplied by m; the
// request fee and tool fees are kept. Multiplication of decimals is exact.
func (r *Rates) scaled(m decimal.Decimal) Rates {
	out := *r
	for u := range NumTokenUsage {
		if out.set[u] {
			out.price[u] = out.price[u].Mul(m)
		}
	}
	return out
}

// withTools returns r with the tool prices of t, for the tools r does not
// list itself.
func (r *Rates) withTools(t *Rates) Rates {
	out := *r
	for _, u := range Tools {
		if !out.set[u] && t.set[u] {
			out.Set(u, t.price[u])
		}
	}
	return out
}

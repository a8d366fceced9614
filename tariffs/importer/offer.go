package importer

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
	"github.com/tokenfare/tokenfare/tariffs/drift"
)

// The range of a price a tariff file holds (tariffs/parse.go): at most 24
// decimal places, below 10^12.
const (
	maxPlaces = 24
	maxDigits = 12
)

// rateUsages are the usage types a rate set lists, in file order.
var rateUsages = []tariffs.Usage{tariffs.Input, tariffs.CacheRead, tariffs.CacheWrite, tariffs.CacheWrite1h,
	tariffs.Output, tariffs.Reasoning, tariffs.Request}

// checkOffer makes o fit a tariff file and says what that changed: the
// base rates need input and output prices, and every price must be in
// range, or the entry is left out (the error); a service tier without
// them is dropped (its calls are then priced at the standard rates and
// reported), and a cache-write price of 0 is left to fall back to input.
func checkOffer(o *drift.Offer) ([]string, error) {
	for _, u := range []tariffs.Usage{tariffs.Input, tariffs.Output} {
		if !o.Base.Listed(u) {
			return nil, fmt.Errorf("lists no %s price", u)
		}
	}
	if err := inRange(o); err != nil {
		return nil, err
	}
	var notes []string
	for s, so := range o.Service {
		if so != nil && (!so.Base.Listed(tariffs.Input) || !so.Base.Listed(tariffs.Output)) {
			o.Service[s] = nil
			notes = append(notes, fmt.Sprintf("its %s rates lack an input or output price and are left out", tariffs.ServiceTier(s)))
		}
	}
	if freeWrites(o) {
		notes = append(notes, "cache writes at 0 in the table are left to the input price: the provider bills them as input")
	}
	return notes, nil
}

// inRange checks every price of o, its tiers and service tiers.
func inRange(o *drift.Offer) error {
	sets := []*tariffs.Rates{&o.Base}
	for i := range o.Tiers {
		sets = append(sets, &o.Tiers[i].Rates)
	}
	for _, r := range sets {
		for u := range tariffs.NumUsage {
			if p := r.Price(tariffs.Usage(u)); r.Listed(tariffs.Usage(u)) && !priceInRange(p) {
				return fmt.Errorf("%s price %s is out of the range a tariff file holds", tariffs.Usage(u), p)
			}
		}
	}
	for _, so := range o.Service {
		if so != nil {
			if err := inRange(so); err != nil {
				return err
			}
		}
	}
	return nil
}

func priceInRange(p decimal.Decimal) bool {
	return p.IsZero() || p.Exponent() >= -maxPlaces && int64(p.NumDigits())+int64(p.Exponent()) <= maxDigits
}

// freeWrites drops a cache-write price of 0 beside a positive input
// price from every rate set of o, and reports whether it did. A table
// writes 0 for a provider that charges nothing apart for building its
// cache (the tokens are billed as input); as a price it would make such
// tokens free.
func freeWrites(o *drift.Offer) bool {
	dropped := false
	drop := func(r *tariffs.Rates, input decimal.Decimal) {
		if r.Listed(tariffs.CacheWrite) && r.Price(tariffs.CacheWrite).IsZero() && input.IsPositive() {
			*r = without(r, tariffs.CacheWrite)
			dropped = true
		}
	}
	drop(&o.Base, o.Base.Price(tariffs.Input))
	for i := range o.Tiers {
		full := merged(&o.Base, &o.Tiers[i].Rates)
		drop(&o.Tiers[i].Rates, full.Price(tariffs.Input))
	}
	for _, so := range o.Service {
		if so != nil && freeWrites(so) {
			dropped = true
		}
	}
	return dropped
}

// without returns r without a price for u.
func without(r *tariffs.Rates, u tariffs.Usage) tariffs.Rates {
	var out tariffs.Rates
	for v := range tariffs.NumUsage {
		if tariffs.Usage(v) != u && r.Listed(tariffs.Usage(v)) {
			out.Set(tariffs.Usage(v), r.Price(tariffs.Usage(v)))
		}
	}
	return out
}

// merged returns base with the prices over lists in place of its own: a
// prompt-size tier's full rates, as the table's reader prices them.
func merged(base, over *tariffs.Rates) tariffs.Rates {
	out := *base
	for u := range tariffs.NumUsage {
		if over.Listed(tariffs.Usage(u)) {
			out.Set(tariffs.Usage(u), over.Price(tariffs.Usage(u)))
		}
	}
	return out
}

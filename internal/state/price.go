package state

import (
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Priced is what the catalog makes of one key's sums.
type Priced struct {
	Model    *tariffs.Model // nil when no tariff knows the model
	Official decimal.Decimal
	Cost     ledger.Amount // Official, as an amount
	Period   string        // the period the slot is billed in; "" unless priced
	Default  bool          // Period is the version's default period (off-peak, standard)
	OK       bool          // the tariff prices the sums
}

// Repriced reports whether an outcome's sums are priced again from the
// catalog: priced, unpriced and retired calls are (a new version may
// price what was unpriced, or retire what was priced); failed calls,
// cache hits and duplicates cost nothing.
func Repriced(o pricing.Outcome) bool {
	return o == pricing.Priced || o == pricing.Unpriced || o == pricing.Retired
}

// Pricer prices keys' sums, each rates' prices made integers once. The
// zero value is ready; not safe for concurrent use.
type Pricer struct {
	coster pricing.Coster
}

// Price prices the sums of k at cat: the rates of the version in force at
// the slot's start, in its period, in the call's service tier and region,
// in the tier its prompt-size class falls in. It equals the sum of the
// calls' official costs under the package's invariant.
func (pr *Pricer) Price(cat *tariffs.Catalog, k *Key, s *Sums) Priced {
	m := cat.Model(k.Model)
	if m != nil && !m.Provider.ListsHost(k.Host) {
		// A logged name that is another host's model id: never another
		// host's price.
		m = nil
	}
	if m == nil {
		m, _, _ = cat.ResolveOn(k.Host, k.Model)
	}
	out := Priced{Model: m, Official: decimal.Zero, Cost: ledger.NewAmount(0, 0)}
	if m == nil || !Repriced(k.Outcome) {
		return out
	}
	q := m.At(k.Slot)
	if q.Status != tariffs.Priced {
		return out
	}
	mp := q.Prices
	if k.ServiceTier != ledger.TierStandard || k.Region != "" {
		mp, _ = mp.Variant(tariffs.ServiceTier(k.ServiceTier), k.Region)
	}
	tier := 0
	switch {
	case k.Kept:
		// The band's prompts lie in one tier of the thresholds known when
		// read: a model priced since it was read is priced in its tier.
		if k.Band[0] > 0 {
			tier = mp.TierOf(k.Band[0] + 1)
		}
	case k.Above > 0:
		tier = mp.TierOf(k.Above + 1)
	}
	out.Cost = pr.coster.Total(mp.RatesAt(q.Period, tier), &s.Qty)
	out.Official = out.Cost.Decimal()
	out.Period, out.Default, out.OK = q.PeriodName(), q.Period == 0, true
	return out
}

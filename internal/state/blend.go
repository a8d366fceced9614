package state

import (
	"errors"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Blend returns, per tariff model, the blended price of each usage type
// blend writes into a gateway's config (per 1M tokens, per use of a
// tool) over the calls of the slots that start in [from, until), every
// call priced at the tariff in force at tariffAt: the blend command's
// prices for that window, to the last decimal, from the engine that gives
// them (Fill, then pricing.Engine.BlendWindow), fees per use and the
// clamping between off-peak and peak included. A state whose sums Fill
// cannot price exactly (written before it kept the calls' detail, or
// with a tariff boundary off the grain inside a slot) is blended from
// its slots' token sums instead (the earlier way: tokens only, each slot
// at the period in force at its start).
func (s *Store) Blend(cat *tariffs.Catalog, from, until, tariffAt time.Time) (map[*tariffs.Model]*tariffs.Rates, error) {
	from, until = ceilGrain(from), ceilGrain(until)
	opts := pricing.Options{Since: from, Until: until, TariffAt: tariffAt, Dims: []pricing.Dim{pricing.DimModel}}
	e := pricing.New(cat, opts)
	err := s.Fill(e, cat, opts, nil)
	if errors.Is(err, ErrNotKept) || errors.Is(err, pricing.ErrNotExact) {
		return s.slotBlend(cat, from, until, tariffAt)
	}
	if err != nil {
		return nil, err
	}
	return e.BlendWindow(from, until, pricing.ModePerModel).Rates(cat), nil
}

// ceilGrain returns t, or the start of the next slot when t is inside one.
func ceilGrain(t time.Time) time.Time {
	if c := t.Truncate(Grain); !c.Equal(t) {
		return c.Add(Grain)
	}
	return t
}

// slotBlend is Blend from the slots' token sums: the blended price per 1M
// tokens of each token usage type, each slot priced as if the version in
// force at tariffAt had applied at its start, rounded half away from zero
// to 9 decimal places: reasoning the tariff does not price apart blended
// with output. Calls of another service tier or of a region are left out,
// as blend leaves them out.
func (s *Store) slotBlend(cat *tariffs.Catalog, from, until, tariffAt time.Time) (map[*tariffs.Model]*tariffs.Rates, error) {
	type sums struct {
		cost [tariffs.NumUsage]decimal.Decimal
		qty  pricing.Quantities
	}
	by := map[*tariffs.Model]*sums{}
	err := s.Each(func(k *Key, sm *Sums) error {
		if k.Outcome != pricing.Priced || k.Slot.Before(from) || !k.Slot.Before(until) ||
			k.ServiceTier != ledger.TierStandard || k.Region != "" {
			return nil
		}
		m := cat.Model(k.Model)
		if m == nil {
			return nil
		}
		q := m.AtTariffOf(k.Slot, tariffAt)
		if q.Status != tariffs.Priced {
			return nil
		}
		tier := 0
		if k.Above > 0 {
			tier = q.Prices.TierOf(k.Above + 1)
		}
		rates := q.Prices.RatesAt(q.Period, tier)
		byUsage, _ := pricing.CostOf(rates, &sm.Qty)
		b := by[m]
		if b == nil {
			b = &sums{}
			by[m] = b
		}
		for u := range byUsage {
			// Reasoning the tariff does not price apart is output: blended
			// with the output tokens, as a gateway's one output price must.
			into := u
			if tariffs.Usage(u) == tariffs.Reasoning && !rates.Listed(tariffs.Reasoning) {
				into = int(tariffs.Output)
			}
			if !rates.Priced(tariffs.Usage(u)) {
				continue
			}
			b.cost[into] = b.cost[into].Add(byUsage[u])
			b.qty[into] += sm.Qty[u]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[*tariffs.Model]*tariffs.Rates{}
	for m, b := range by {
		r := &tariffs.Rates{}
		for u := range tariffs.NumUsage {
			if tariffs.Usage(u).IsToken() && b.qty[u] > 0 {
				r.Set(tariffs.Usage(u), b.cost[u].Shift(6).DivRound(decimal.NewFromInt(b.qty[u]), 9))
			}
		}
		out[m] = r
	}
	return out, nil
}

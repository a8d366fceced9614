package state

import (
	"time"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Blend returns, per tariff model, the blended price of each usage type
// blend writes into a gateway's config (per 1M tokens, per use of a
// tool) over the calls of the slots that start in [from, until) (each
// end moved to the start of the next slot when inside one), every call
// priced at the tariff in force at tariffAt: the blend command's prices
// for that window, to the last decimal, from the engine that gives them
// (Fill, then pricing.Engine.BlendWindow), fees per use and the clamping
// between off-peak and peak included. billing is the billing instant the
// state's calls were read with (nil: each tariff's own). A state Fill
// cannot price exactly (written before it kept the calls' detail, or with
// a tariff boundary off the grain inside a slot) is an error wrapping
// ErrNotKept or pricing.ErrNotExact, never a blend of another kind.
func (s *Store) Blend(cat *tariffs.Catalog, from, until, tariffAt time.Time, billing *tariffs.BillingTime) (_ map[*tariffs.Model]*tariffs.Rates, err error) {
	defer s.recoverDamaged(&err)
	from, until = ceilGrain(from), ceilGrain(until)
	opts := pricing.Options{Since: from, Until: until, TariffAt: tariffAt, Billing: billing, Dims: []pricing.Dim{pricing.DimModel}}
	e := pricing.New(cat, opts)
	if err := s.Fill(e, cat, opts, nil); err != nil {
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

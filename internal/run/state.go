package run

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/tariffs"
)

// The figures serve's metrics take from the state, each priced by an
// engine of the run's: the blend a gateway's configured prices are held
// against, and the month's saving per lever.

// StateBlend returns, per tariff model, the blended price of each usage
// type blend writes into a gateway's config (per 1M tokens, per use of a
// tool) over the calls of store's slots that start in [from, until)
// (each end moved to the start of the next slot when inside one), every
// call priced at the tariff in force at tariffAt: the blend command's
// prices for that window, to the last decimal, from an engine filled
// with the state's sums (state.Store.Fill), fees per use and the
// clamping between off-peak and peak included. billing is the billing
// instant the state's calls were read with (nil: each tariff's own). A
// state its sums cannot price exactly (written before it kept the calls'
// detail, or with a tariff boundary off the grain inside a slot) is an
// error wrapping state.ErrNotKept or pricing.ErrNotExact, never a blend
// of another kind; a damaged one a *state.DamagedError.
func StateBlend(store *state.Store, cat *tariffs.Catalog, from, until, tariffAt time.Time, billing *tariffs.BillingTime) (map[*tariffs.Model]*tariffs.Rates, error) {
	from, until = state.CeilGrain(from), state.CeilGrain(until)
	opts := pricing.Options{Since: from, Until: until, TariffAt: tariffAt, Billing: billing, Dims: []pricing.Dim{pricing.DimModel}}
	e := pricing.New(cat, opts)
	defer e.Close()
	if err := store.Fill(e, cat, opts, nil); err != nil {
		return nil, err
	}
	return e.BlendWindow(from, until, pricing.ModePerModel).Rates(cat), nil
}

// StateSaving prices the state's calls billed in the UTC month of now
// under each lever alone (what tokenfare savings weighs). Each key's
// calls are priced as one of them would be (the model, host, service
// tier, region and prompt-size class they share, at their oldest billing
// instant), then weighed on their sums: exact for each lever alone,
// costs being linear in quantities.
func StateSaving(store *state.Store, cat *tariffs.Catalog, now time.Time) (map[savings.Lever]decimal.Decimal, error) {
	from := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	obs, err := savings.New(savings.Options{Catalog: cat})
	if err != nil {
		return nil, err
	}
	e := pricing.New(cat, pricing.Options{})
	defer e.Close()
	n := 0
	err = store.Each(func(k *state.Key, sums *state.Sums) error {
		if k.Slot.Before(from) || k.Slot.After(now) || !k.Kept || k.Outcome != pricing.Priced {
			return nil
		}
		n++
		c := oneOf(k, sums, n)
		pc := e.AddPriced(&c)
		return obs.ObserveSummed(&c, &pc, sums.Qty, sums.Calls)
	})
	if err != nil {
		return nil, err
	}
	t := obs.Result().Total
	out := map[savings.Lever]decimal.Decimal{}
	for _, l := range savings.AllLevers() {
		out[l] = t.Levers[l].Saving()
	}
	return out, nil
}

// oneOf is a call standing for the calls of a state key: their names,
// host, tier, region and prompt-size class, billed at their oldest
// instant, with an identity of its own (the n-th).
func oneOf(k *state.Key, sums *state.Sums, n int) ledger.Call {
	at := sums.Oldest
	if at.IsZero() {
		at = k.Slot
	}
	c := ledger.Call{Identity: strconv.Itoa(n), Gateway: k.Gateway, Model: k.Logged, ModelGroup: k.Group, Host: k.HostLogged,
		PriceKey: k.PriceKey, Key: k.KeyHash, KeyAlias: k.KeyAlias, Team: k.Team, Start: at, FirstToken: at, End: at,
		ServiceTier: k.ServiceTier, Region: k.Region}
	if k.Band[0] > 0 {
		c.Tokens.Input = k.Band[0] + 1
	}
	return c
}

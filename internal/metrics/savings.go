package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/tariffs"
)

var descSaving = prometheus.NewDesc("tokenfare_month_saving",
	"Official cost the calls of the UTC month to date would save under each lever alone: offpeak, batch, flex or host "+
		"(tokenfare savings, docs/savings.md), at the tariffs loaded, in the tariffs' currency; made again once a 15-minute slot.",
	[]string{"lever"}, nil)

// monthSaving is the month's saving per lever as made at.
type monthSaving struct {
	at      driftAt // the slot and catalog it was made for (config unused)
	byLever map[savings.Lever]decimal.Decimal
}

// saving returns the month's saving per lever, made again once a slot
// or for a new catalog.
func (c *Collector) saving(s *state.Store, cat *tariffs.Catalog, now time.Time) (map[savings.Lever]decimal.Decimal, error) {
	at := driftAt{slot: now.Truncate(state.Grain), cat: cat}
	if c.monthSaving != nil && c.monthSaving.at == at {
		return c.monthSaving.byLever, nil
	}
	by, err := MonthSaving(s, cat, now)
	if err != nil {
		return nil, err
	}
	c.monthSaving = &monthSaving{at: at, byLever: by}
	return by, nil
}

// MonthSaving prices the state's calls billed in the UTC month of now
// under each lever alone. Each key's calls are priced as one of them
// would be (the model, host, service tier, region and prompt-size class
// they share, at their oldest billing instant), then weighed on their
// sums: exact for each lever alone, costs being linear in quantities.
func MonthSaving(s *state.Store, cat *tariffs.Catalog, now time.Time) (map[savings.Lever]decimal.Decimal, error) {
	from := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	obs, err := savings.New(savings.Options{Catalog: cat})
	if err != nil {
		return nil, err
	}
	e := pricing.New(cat, pricing.Options{})
	n := 0
	err = s.Each(func(k *state.Key, sums *state.Sums) error {
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

// collectSaving sends the month's saving per lever.
func collectSaving(out sender, by map[savings.Lever]decimal.Decimal) {
	for l, d := range by {
		out.send(descSaving, prometheus.GaugeValue, d.InexactFloat64(), l.String())
	}
}

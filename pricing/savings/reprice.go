package savings

import (
	"math"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// call is a priced call with its quantities and its official cost as
// served, and the Coster that prices it at other rates.
type call struct {
	c      *ledger.Call
	pc     *pricing.PricedCall
	q      pricing.Quantities
	served ledger.Amount
	cost   *pricing.Coster
}

// option is a call re-priced under one lever: its cost, and the delay
// (offpeak) or host (host) it assumes. ok is false when the lever does
// not apply or saves nothing.
type option struct {
	under ledger.Amount
	delay time.Duration
	host  string
	ok    bool
}

// cheaper returns the option of cost under when the rates r price every
// quantity the call's own rates price and under is below what it costs
// as served.
func (k *call) cheaper(r *tariffs.Rates) (ledger.Amount, bool) {
	for u := range tariffs.NumUsage {
		if k.q[u] > 0 && k.pc.Rates.Priced(tariffs.Usage(u)) && !r.Priced(tariffs.Usage(u)) {
			return ledger.Amount{}, false
		}
	}
	under := k.cost.Total(r, &k.q)
	return under, less(under, k.served)
}

// variantPrices returns the model's prices of the call's version in its
// own service tier and region, as the engine priced it.
func (k *call) variantPrices() *tariffs.ModelPrices {
	mp, _ := k.pc.Quote.Prices.Variant(tariffs.ServiceTier(k.c.ServiceTier), k.c.Region)
	return mp
}

// offpeak prices the call at the cheapest other period of its version
// that costs it less, with the delay to that period's next instant.
func (k *call) offpeak() option {
	v := k.pc.Quote.Version
	if v == nil || len(v.Periods) < 2 {
		return option{}
	}
	mp := k.variantPrices()
	best, o := -1, option{under: k.served}
	for p := range v.Periods {
		if p == k.pc.Quote.Period {
			continue
		}
		if under, ok := k.cheaper(mp.RatesAt(p, k.pc.Tier)); ok && less(under, o.under) {
			best, o.under = p, under
		}
	}
	if best < 0 {
		return option{}
	}
	next, ok := nextInPeriod(k.pc.Quote.Model, k.pc.At, best)
	if !ok {
		return option{}
	}
	o.delay, o.ok = next.Sub(k.pc.At), true
	return o
}

// maxSteps bounds the walk to the next instant of a period: two periods
// a day for over a year.
const maxSteps = 1000

// nextInPeriod returns the first instant from at on that falls in period
// p of the version in force at at, by that version's windows, weekdays,
// calendar and zone; false when none comes within maxSteps runs of
// periods.
func nextInPeriod(m *tariffs.Model, at time.Time, p int) (time.Time, bool) {
	t := at
	for range maxSteps {
		q := m.AtTariffOf(t, at)
		if q.Status != tariffs.Priced {
			return time.Time{}, false
		}
		if q.Period == p {
			return t, true
		}
		if q.Until == math.MaxInt64 {
			return time.Time{}, false
		}
		t = time.Unix(0, q.Until).UTC()
	}
	return time.Time{}, false
}

// tier prices a call served at the standard tier at service tier s of
// its version, in its region, where the version prices the model there.
func (k *call) tier(s tariffs.ServiceTier) option {
	if k.c.ServiceTier != ledger.TierStandard {
		return option{}
	}
	mp, miss := k.pc.Quote.Prices.Variant(s, k.c.Region)
	if miss != 0 {
		return option{}
	}
	under, ok := k.cheaper(mp.RatesAt(k.pc.Quote.Period, mp.TierOf(k.c.Tokens.Prompt())))
	return option{under: under, ok: ok}
}

// host prices the call on each other host listing it, among candidates,
// and keeps the cheapest; a pinned call does not move.
func (k *call) host(candidates []tariffs.HostModel) option {
	own := k.pc.Quote.Model
	if k.c.Region != "" || Pinned(own) {
		return option{}
	}
	o := option{under: k.served}
	for _, hm := range candidates {
		if hm.Model == own || own.Provider.ListsHost(hm.Host) || hm.Model.Provider.Secondary() || Pinned(hm.Model) {
			continue
		}
		if under, ok := k.on(hm.Model); ok && less(under, o.under) {
			o.under, o.host, o.ok = under, hm.Host, true
		}
	}
	return o
}

// on prices the call with model m of another host, at the call's instant
// and in its service tier.
func (k *call) on(m *tariffs.Model) (ledger.Amount, bool) {
	q := m.At(k.pc.At)
	if q.Status != tariffs.Priced {
		return ledger.Amount{}, false
	}
	mp, miss := q.Prices.Variant(tariffs.ServiceTier(k.c.ServiceTier), "")
	if miss != 0 {
		return ledger.Amount{}, false
	}
	return k.cheaper(mp.RatesAt(q.Period, mp.TierOf(k.c.Tokens.Prompt())))
}

// Pinned reports whether model m is a deployment kept to a region or a
// data zone: its tariff id names a regional or data-zone deployment
// (azure-gpt-4o-datazone, bedrock-claude-sonnet-4-6-regional,
// vertex-claude-opus-4-7-regional). Its calls never move to another host,
// and no call moves to it.
func Pinned(m *tariffs.Model) bool {
	for _, w := range strings.Split(strings.ToLower(m.ID), "-") {
		if w == "regional" || w == "datazone" {
			return true
		}
	}
	return false
}

// namesOf returns the names a call may be listed under on other hosts:
// each name the engine resolves it by (the gateway's price key, the model
// sent upstream, the model group), and each without its leading segments
// ("openrouter/anthropic/claude-sonnet-4-6" as "claude-sonnet-4-6").
func namesOf(c *ledger.Call) []string {
	var out []string
	for _, n := range []string{c.PriceKey, c.Model, c.ModelGroup} {
		if n == "" {
			continue
		}
		out = append(out, n)
		if i := strings.LastIndexByte(n, '/'); i >= 0 && i+1 < len(n) {
			out = append(out, n[i+1:])
		}
	}
	return out
}

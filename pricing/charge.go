package pricing

import (
	"iter"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Charge is the official cost of one usage type of the priced calls of one
// day (or hour), key, team, user, model, tariff version, period and
// prompt-size tier, service tier and region: the unit a cost-and-usage export (FOCUS) lists.
// UnitPrice × Quantity = Cost exactly (per 1M tokens for tokens).
type Charge struct {
	Start, End time.Time // the day (or hour) in the engine's zone; zero when not grouped by time
	Key        string
	KeyAlias   string
	Team       string
	User       string
	Model      *tariffs.Model
	Version    *tariffs.Version
	Period     string
	Peak       bool // the period is the dearest of the version for this usage type
	Tier       int  // 0: base rates; i: the i-th prompt-size tier
	// ServiceTier and Region are those the calls were served in: their
	// rates are the version's for that tier and region where it lists them.
	ServiceTier tariffs.ServiceTier
	Region      string
	Usage       tariffs.Usage
	Quantity    int64           // tokens, calls for Request, uses for a tool
	UnitPrice   decimal.Decimal // per 1M tokens, per call for Request, per use for a tool
	Cost        decimal.Decimal
	// Calls are the calls of the charge's group, the same on each of its
	// usage types.
	Calls int64
	// Recorded is the gateway's recorded spend on the group's calls,
	// apportioned to its usage types by their share of the official cost
	// (see Apportion); the usage types of a group add up to its recorded
	// spend exactly.
	Recorded decimal.Decimal
}

// chargeKey identifies the group of calls a set of charges prices.
type chargeKey struct {
	slot int64
	holder
	model        *tariffs.Model
	version      *tariffs.Version
	period, tier uint8
	service      tariffs.ServiceTier
	region       string
}

// chargeGroup sums the priced buckets of one charge key.
type chargeGroup struct {
	k        chargeKey
	alias    string
	rates    *tariffs.Rates
	prices   *tariffs.ModelPrices
	calls    int64
	qty      Quantities
	recorded decimal.Decimal
}

// Charges yields the official cost of e's priced calls as charges, sorted
// by time, key, team, user, model, version effective instant, period, tier
// and usage type. Reasoning tokens a tariff does not price apart are output
// tokens; request charges appear only where the tariff lists a request
// price. Calls that are not priced have no charge. The charges are made as
// they are yielded: memory grows with the groups, not with the charges.
func (e *Engine) Charges() iter.Seq[Charge] {
	list := e.chargeGroups()
	return func(yield func(Charge) bool) {
		for _, g := range list {
			for _, c := range e.chargesOf(g) {
				if !yield(c) {
					return
				}
			}
		}
	}
}

// chargeGroups sums the priced buckets by charge key, in charge order.
func (e *Engine) chargeGroups() []*chargeGroup {
	groups := map[chargeKey]*chargeGroup{}
	for _, b := range e.buckets {
		if b.k.outcome != Priced {
			continue
		}
		k := chargeKey{slot: b.k.slot, holder: b.k.holder, model: b.Model,
			version: b.k.version, period: b.k.period, tier: b.k.tier, service: b.k.serviceTier(), region: b.k.regionName()}
		g := groups[k]
		if g == nil {
			g = &chargeGroup{k: k, rates: b.Rates, prices: b.prices, recorded: decimal.Zero}
			groups[k] = g
		}
		g.alias = firstAlias(g.alias, b.KeyAlias)
		g.calls += b.Calls
		g.qty.Add(&b.Qty)
		g.recorded = g.recorded.Add(b.Recorded())
	}
	list := make([]*chargeGroup, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	sort.Slice(list, func(i, j int) bool { return chargeLess(&list[i].k, &list[j].k) })
	return list
}

func chargeLess(a, b *chargeKey) bool {
	if a.slot != b.slot {
		return a.slot < b.slot
	}
	if c := a.holder.compare(&b.holder); c != 0 {
		return c < 0
	}
	switch {
	case a.model != b.model:
		return a.model.ID < b.model.ID
	case a.version != b.version:
		return a.version.Effective.Before(b.version.Effective)
	case a.period != b.period:
		return a.period < b.period
	case a.tier != b.tier:
		return a.tier < b.tier
	case a.service != b.service:
		return a.service < b.service
	}
	return a.region < b.region
}

// chargesOf splits one group into a charge per usage type.
func (e *Engine) chargesOf(g *chargeGroup) []Charge {
	qty := g.qty
	if !g.rates.Listed(tariffs.Reasoning) {
		qty[tariffs.Output] += qty[tariffs.Reasoning]
		qty[tariffs.Reasoning] = 0
	}
	if !g.rates.Listed(tariffs.Request) {
		qty[tariffs.Request] = 0
	}
	base := Charge{Key: g.k.key, KeyAlias: g.alias, Team: g.k.team, User: g.k.user, Model: g.k.model,
		Version: g.k.version, Period: g.k.version.Periods[g.k.period], Tier: int(g.k.tier), Calls: g.calls,
		ServiceTier: g.k.service, Region: g.k.region}
	if e.dims.has(DimDay) || e.dims.has(DimHour) {
		base.Start = time.Unix(g.k.slot, 0).In(e.zone)
		base.End = e.slotEnd(base.Start)
	}
	peak := peakPeriods(&bucket{k: bucketKey{version: g.k.version, tier: g.k.tier}, Model: g.k.model, Rates: g.rates, prices: g.prices})
	out := make([]Charge, 0, tariffs.NumUsage)
	costs := make([]decimal.Decimal, 0, tariffs.NumUsage)
	for u := range tariffs.NumUsage {
		if qty[u] == 0 || !g.rates.Priced(tariffs.Usage(u)) {
			continue // an unpriced quantity is no charge: Engine.Unpriced reports it
		}
		c := base
		c.Usage, c.Quantity, c.Peak = tariffs.Usage(u), qty[u], peak[u]
		c.UnitPrice = g.rates.Price(c.Usage)
		var r tariffs.Rates
		r.Set(c.Usage, c.UnitPrice)
		c.Cost = Cost(&r, c.Usage, c.Quantity)
		out = append(out, c)
		costs = append(costs, c.Cost)
	}
	if len(out) == 0 {
		// Calls without a billable quantity (no tokens, no request price)
		// still carry their calls and the spend recorded on them: one
		// input charge of no tokens and no cost holds both.
		c := base
		c.Usage, c.UnitPrice, c.Cost, c.Peak = tariffs.Input, g.rates.Price(tariffs.Input), decimal.Zero, peak[tariffs.Input]
		out = append(out, c)
		costs = append(costs, c.Cost)
	}
	for i, part := range Apportion(g.recorded, costs) {
		out[i].Recorded = part
	}
	return out
}

// slotEnd returns the end of the day or hour that starts at start.
func (e *Engine) slotEnd(start time.Time) time.Time {
	if e.dims.has(DimHour) {
		return start.Add(time.Hour)
	}
	return start.AddDate(0, 0, 1)
}

// ApportionPlaces is the least number of decimal places Apportion keeps.
const ApportionPlaces = 12

// Apportion splits total into parts in proportion to weights, each rounded
// half away from zero to ApportionPlaces decimal places (or total's own
// places when it has more), the last non-zero weight taking the remainder
// so that the parts add up to total exactly. With no non-zero weight the
// first part takes it all.
func Apportion(total decimal.Decimal, weights []decimal.Decimal) []decimal.Decimal {
	parts := make([]decimal.Decimal, len(weights))
	for i := range parts {
		parts[i] = decimal.Zero
	}
	if len(weights) == 0 {
		return parts
	}
	sum, last := decimal.Zero, -1
	for i, w := range weights {
		sum = sum.Add(w)
		if !w.IsZero() {
			last = i
		}
	}
	if last < 0 || sum.IsZero() {
		parts[0] = total
		return parts
	}
	places := max(int32(ApportionPlaces), -total.Exponent())
	rest := total
	for i := range last {
		parts[i] = total.Mul(weights[i]).DivRound(sum, places)
		rest = rest.Sub(parts[i])
	}
	parts[last] = rest
	return parts
}

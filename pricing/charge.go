package pricing

import (
	"cmp"
	"fmt"
	"iter"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/extsort"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Charge is the official cost of one usage type of the priced calls of one
// day (or hour), key, team, user, model, tariff version, period and
// prompt-size tier, service tier and region: the unit a cost-and-usage export (FOCUS) lists.
// UnitPrice × Quantity = Cost exactly (per 1M tokens for tokens).
//
// The calls that are not priced but count in reconcile's calls, tokens or
// recorded spend (unpriced, retired, failed, answered from the gateway's
// cache) are charges too, of no official cost, one per day
// (or hour), key, team, user, model name, outcome and usage type with
// tokens: their Outcome says which, Version is nil and Model is nil when
// no tariff knows the name. So the charges of an engine add up to its
// reconciliation's calls (Counted), tokens and recorded spend.
type Charge struct {
	Start, End time.Time // the day (or hour) in the engine's zone; zero when not grouped by time
	Key        string
	KeyAlias   string
	Team       string
	User       string
	Outcome    Outcome        // Priced, or what became of calls not priced
	Name       string         // the model's tariff id, or its logged name when no tariff knows it
	Model      *tariffs.Model // nil when no tariff knows the name
	Version    *tariffs.Version
	Currency   string // the model's provider's; for an unknown model, the priced calls' when they have one
	Period     string
	Peak       bool // the period is the dearest of the version for this usage type
	Tier       int  // 0: base rates; i: the i-th prompt-size tier
	// ServiceTier and Region are those the calls were served in: their
	// rates are the version's for that tier and region where it lists them.
	ServiceTier tariffs.ServiceTier
	Region      string
	Usage       tariffs.Usage
	Quantity    int64           // tokens, calls for Request, uses for a tool
	UnitPrice   decimal.Decimal // per 1M tokens, per call for Request, per use for a tool; zero unless priced
	Cost        decimal.Decimal // zero unless priced
	// NoPrice marks tokens of priced calls that their rates do not price
	// (1-hour cache writes without a cache_write_1h price): a charge of no
	// cost, after the group's priced ones, that counts the tokens; no
	// calls and no recorded spend. Tool uses without a fee are no charge.
	NoPrice bool
	// Calls are the calls of the charge's group, the same on each of its
	// usage types.
	Calls int64
	// Counted are the calls the charge counts in the run's calls: Calls on
	// the first charge of a group, 0 on its other usage types. Charges'
	// Counted add up to the reconciliation's calls.
	Counted int64
	// Recorded is the gateway's recorded spend on the group's calls,
	// apportioned to its usage types by their share of the official cost
	// (see Apportion), all of it on the first charge of a group that is
	// not priced; the usage types of a group add up to its recorded spend
	// exactly.
	Recorded decimal.Decimal
}

// chargeKey identifies the group of calls a set of charges prices.
type chargeKey struct {
	slot int64
	holder
	chargePrice
	unknown string // the logged name when model is nil
	outcome Outcome
}

// chargePrice is the model of a charge key and, when priced, the version,
// period, prompt-size tier, service tier and region of its rates.
type chargePrice struct {
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
	pricing  bucketPricing // of its buckets; zero unless priced
	calls    int64
	qty      Quantities
	recorded decimal.Decimal
}

// Charges returns the official cost of e's priced calls as charges, read
// with Charges.All, and the calls not priced as charges of no cost, sorted by time, key, team, user,
// model name, outcome, provider, version effective instant, period, tier,
// service tier, region and usage type. Reasoning tokens a tariff does not
// price apart are output tokens; request charges appear only where the
// tariff lists a request price. The charges add up to e's reconciliation:
// Counted to its calls, Quantity of token usage types to its tokens (a
// quantity a tariff does not price too, as a NoPrice charge), Recorded to
// its recorded spend, Cost to its official cost. The charges are made as
// they are yielded: memory grows with the groups, not with the charges;
// of an engine that spilled them (OutputCharges), with its budget
// of buckets. The error, yielded once with a zero charge and last, is one
// of reading the spilled charges back (ErrSpill), of an engine closed
// before the charges were asked for (ErrClosed), or of an engine that
// spilled its groups without them. Take them once every call is added,
// and close them once read.
func (e *Engine) Charges() *Charges {
	c := &Charges{e: e, cur: e.runCurrency()}
	switch {
	case e.runs.readable() != nil:
		c.err = e.runs.readable()
	case e.runs.written() > 0 && !e.keeps(OutputCharges):
		c.err = notAsked("Charges")
	case e.runs.charges != nil && e.runs.charges.Len() > 0:
		c.runs, c.ref = e.runs.charges, e.runs.ref.hold()
	}
	return c
}

// Charges are an engine's charges (Engine.Charges), read with All. Made
// from spilled runs, they hold their own reference to them: they can be
// read after the engine is closed, until they are closed themselves.
type Charges struct {
	e      *Engine
	cur    string
	err    error                      // the engine could not give its charges when they were asked for
	runs   *extsort.Runs[chargeGroup] // the runs of charge groups, when the engine spilled some
	ref    *runFiles                  // the reference to the runs' store the charges hold
	closed bool
}

// All yields the charges in charge order, and last, with a zero charge,
// the error of reading them (see Engine.Charges), or ErrClosed after
// Close. They can be gone over more than once; a loop left early leaves
// no run open.
func (c *Charges) All() iter.Seq2[Charge, error] {
	return func(yield func(Charge, error) bool) {
		switch {
		case c.closed:
			yield(Charge{}, fmt.Errorf("the charges of a closed result: %w", ErrClosed))
			return
		case c.err != nil:
			yield(Charge{}, c.err)
			return
		}
		for g, err := range c.groups() {
			if err != nil {
				yield(Charge{}, err)
				return
			}
			for _, ch := range c.e.chargesOf(g, c.cur) {
				if !yield(ch, nil) {
					return
				}
			}
		}
	}
}

// Close lets go of the charges' reference to the engine's runs; reading
// them after is an error (ErrClosed). Closing twice does nothing.
func (c *Charges) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	return c.ref.release()
}

// chargeGroups sums the engine's buckets by charge key, in charge order.
func (e *Engine) chargeGroups() []*chargeGroup { return e.chargeGroupsOf(e.table.buckets.all()) }

// chargeGroupsOf sums buckets bs by charge key, in charge order.
func (e *Engine) chargeGroupsOf(bs []*bucket) []*chargeGroup {
	groups := map[chargeKey]*chargeGroup{}
	for _, b := range bs {
		h := e.holderOf(&b.k.holder)
		h.tag, h.meta = "", "" // a charge names no tag: calls of any tags are one charge
		k := chargeKey{slot: b.k.slot, holder: h, chargePrice: chargePrice{model: b.k.model}, unknown: e.table.labels.of(b.k.unknown), outcome: b.k.outcome}
		if b.k.outcome == Priced {
			k.version, k.period, k.tier, k.service, k.region = b.k.version, b.k.period, b.k.tier, b.k.serviceTier(), b.k.regionName()
		}
		g := groups[k]
		if g == nil {
			g = &chargeGroup{k: k, recorded: decimal.Zero}
			if b.k.outcome == Priced {
				g.pricing = *b.bucketPricing
			}
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

func chargeLess(a, b *chargeKey) bool { return chargeCompare(a, b) < 0 }

// chargeCompare compares charge keys in charge order (chargeLess): negative
// when a comes first.
func chargeCompare(a, b *chargeKey) int {
	if a.slot != b.slot {
		return cmp.Compare(a.slot, b.slot)
	}
	if c := a.holder.compare(&b.holder); c != 0 {
		return c
	}
	if an, bn := a.name(), b.name(); an != bn {
		return strings.Compare(an, bn)
	}
	switch {
	case a.outcome != b.outcome:
		return cmp.Compare(a.outcome, b.outcome)
	case a.model != b.model:
		return compareProviders(a.model, b.model)
	case a.version != b.version:
		return a.version.Effective.Compare(b.version.Effective)
	case a.period != b.period:
		return cmp.Compare(a.period, b.period)
	case a.tier != b.tier:
		return cmp.Compare(a.tier, b.tier)
	case a.service != b.service:
		return cmp.Compare(a.service, b.service)
	}
	return strings.Compare(a.region, b.region)
}

// compareProviders compares models by their providers' names, no model
// first.
func compareProviders(a, b *tariffs.Model) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return strings.Compare(a.Provider.Name, b.Provider.Name)
}

// name returns the key's tariff model id, or its logged name.
func (k *chargeKey) name() string {
	if k.model != nil {
		return k.model.ID
	}
	return k.unknown
}

// chargesOf splits one group into a charge per usage type; cur is the
// currency of a model no tariff knows.
func (e *Engine) chargesOf(g *chargeGroup, cur string) []Charge {
	if g.k.outcome != Priced {
		return e.unpricedCharges(g, cur)
	}
	qty := g.qty
	if !g.pricing.Rates.Listed(tariffs.Reasoning) {
		qty[tariffs.Output] += qty[tariffs.Reasoning]
		qty[tariffs.Reasoning] = 0
	}
	if !g.pricing.Rates.Listed(tariffs.Request) {
		qty[tariffs.Request] = 0
	}
	base := e.chargeBase(g, "")
	base.Version, base.Period, base.Tier = g.k.version, g.k.version.Periods[g.k.period], int(g.k.tier)
	base.ServiceTier, base.Region = g.k.service, g.k.region
	peak := peakPeriods(&bucket{k: bucketKey{version: g.k.version, tier: g.k.tier}, bucketPricing: &g.pricing})
	out := make([]Charge, 0, tariffs.NumUsage)
	costs := make([]decimal.Decimal, 0, tariffs.NumUsage)
	var unpriced []Charge
	for u := range tariffs.NumUsage {
		if qty[u] == 0 || !g.pricing.Rates.Priced(tariffs.Usage(u)) {
			// An unpriced quantity is no charge at a price (Engine.Unpriced
			// reports it), but tokens count in every output: unpriced
			// tokens are a charge of no cost.
			if qty[u] != 0 && tariffs.Usage(u).IsToken() {
				c := base
				c.Usage, c.Quantity, c.NoPrice = tariffs.Usage(u), qty[u], true
				c.UnitPrice, c.Cost, c.Recorded = decimal.Zero, decimal.Zero, decimal.Zero
				unpriced = append(unpriced, c)
			}
			continue
		}
		c := base
		c.Usage, c.Quantity, c.Peak = tariffs.Usage(u), qty[u], peak[u]
		c.UnitPrice = g.pricing.Rates.Price(c.Usage)
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
		c.Usage, c.UnitPrice, c.Cost, c.Peak = tariffs.Input, g.pricing.Rates.Price(tariffs.Input), decimal.Zero, peak[tariffs.Input]
		out = append(out, c)
		costs = append(costs, c.Cost)
	}
	for i, part := range Apportion(g.recorded, costs) {
		out[i].Recorded = part
	}
	out[0].Counted = g.calls
	return append(out, unpriced...)
}

// chargeBase returns the fields every charge of group g shares; cur is the
// currency when its model is unknown.
func (e *Engine) chargeBase(g *chargeGroup, cur string) Charge {
	c := Charge{Key: g.k.key, KeyAlias: g.alias, Team: g.k.team, User: g.k.user, Outcome: g.k.outcome,
		Name: g.k.name(), Model: g.k.model, Currency: cur, Calls: g.calls,
		UnitPrice: decimal.Zero, Cost: decimal.Zero, Recorded: decimal.Zero}
	if g.k.model != nil {
		c.Currency = g.k.model.Provider.Currency
	}
	if e.dims.has(DimDay) || e.dims.has(DimHour) {
		c.Start = time.Unix(g.k.slot, 0).In(e.zone)
		c.End = e.slotEnd(c.Start)
	}
	return c
}

// unpricedCharges returns the charges of a group of calls that are not
// priced: one per token usage type with tokens, reasoning counted as
// output (no tariff prices it apart), or one input charge of no tokens
// when the calls have none; no official cost; the group's calls and
// recorded spend on the first.
func (e *Engine) unpricedCharges(g *chargeGroup, cur string) []Charge {
	qty := g.qty
	qty[tariffs.Output] += qty[tariffs.Reasoning]
	qty[tariffs.Reasoning] = 0
	base := e.chargeBase(g, cur)
	var out []Charge
	for u := range tariffs.NumTokenUsage {
		if qty[u] != 0 {
			c := base
			c.Usage, c.Quantity = tariffs.Usage(u), qty[u]
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		c := base
		c.Usage = tariffs.Input
		out = append(out, c)
	}
	out[0].Recorded, out[0].Counted = g.recorded, g.calls
	return out
}

// runCurrency returns the currency of the priced calls when they have
// one, for the charges of models no tariff knows; "" otherwise.
func (e *Engine) runCurrency() string {
	cur := ""
	for _, b := range e.table.buckets.all() {
		if b.k.outcome != Priced || b.Model == nil {
			continue
		}
		if c := b.Model.Provider.Currency; cur == "" {
			cur = c
		} else if c != cur {
			return ""
		}
	}
	return cur
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

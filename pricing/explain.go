package pricing

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// ExplanationKind is what accounts for part of a gap between recorded and
// official cost.
type ExplanationKind uint8

// Kinds of explanation.
const (
	KindFlatPrice           ExplanationKind = iota // recorded at one flat rate set at all hours
	KindCachedAsInput                              // as flat_price, with cache reads at the input price
	KindZeroSpend                                  // priced calls the gateway recorded at zero
	KindNotRecorded                                // priced calls of a gateway that records no spend
	KindUnpricedModel                              // calls of a model no tariff prices then
	KindRetiredModel                               // calls of a model its provider had retired
	KindConflictingCopies                          // copies of one request id that disagree: the first counts
	KindCacheHits                                  // calls answered from the gateway's response cache
	KindFailedWithSpend                            // failed calls that carry spend
	KindRounding                                   // recorded matches official but for floating-point noise
	KindUnexplained                                // no single flat rate set matches
	KindUnpricedHost                               // calls of a host no tariff prices
	KindCalendarUncovered                          // priced calls on days past the years the calendar covers
	KindCalendarProvisional                        // priced calls on days of a provisional calendar year
	KindUnpricedQuantity                           // a quantity of priced calls their tariff does not price (Engine.Unpriced)
	KindTierOrRegion                               // priced calls of a service tier other than standard, or of a region
	KindPromotionEnded                             // priced calls at a promotion's rates after its stated end
	KindSecondaryPrice                             // priced calls whose tariff rests on secondary sources only (an imported table)
	KindTierNotServed                              // priced calls served at another tier than they asked for
	KindTierAsRequested                            // priced calls priced at the tier asked for: no stored response
	numKinds
)

var kindNames = [numKinds]string{"flat_price", "cached_as_input", "zero_spend", "not_recorded", "unpriced_model",
	"retired_model", "conflicting_copies", "cache_hits", "failed_with_spend", "rounding", "unexplained", "unpriced_host",
	"calendar_uncovered", "calendar_provisional", "unpriced_quantity", "tier_or_region", "promotion_ended",
	"secondary_price", "tier_not_served", "tier_as_requested"}

// String returns the kind's name as reports spell it, e.g. "flat_price".
func (k ExplanationKind) String() string { return kindNames[k] }

// matchTolerance is the relative difference under which a recorded sum is
// taken to equal a candidate cost: gateways keep spend in binary floating
// point, which moves sums in the fifteenth digit, not the sixth.
var matchTolerance = decimal.New(1, -6)

// Explanation accounts for part of the gap (official minus recorded) of one
// model or of the whole gateway. The amounts of all explanations but
// "unexplained" add up to Totals.Explained; with "unexplained" they add up
// to the whole gap.
type Explanation struct {
	Kind    ExplanationKind
	Model   string // the model explained; empty for the whole gateway
	Calls   int64
	Amount  decimal.Decimal // the part of the gap explained
	Version string          // flat price: the version whose rates match
	Period  string          // flat price: the period whose rates match
	RatesOf string          // flat price: the model whose rates match, when another
	Tokens  int64           // cache hits: the tokens the provider never saw; unpriced quantity: the tokens or uses
	Host    string          // unpriced host: the host no tariff prices (Model is empty)
	// FirstDay and LastDay are, for the calendar kinds, the first and last
	// local day of the calls concerned; zero otherwise.
	FirstDay, LastDay tariffs.Date
	// OneHourAtFiveMinute and NoToolFees say, for a flat price, how the
	// recorded sum departs from the matched rates: 1-hour cache writes at
	// the 5-minute price, tool uses at no fee.
	OneHourAtFiveMinute, NoToolFees bool
	// Copies are, for conflicting copies, what the repeats and the copies
	// read first said; nil otherwise.
	Copies *CopyConflicts
	Detail string // the explanation in a sentence, for people
	// Unpriced is, for the unpriced and retired model kinds, the calls
	// explained with their cause and what would price them; nil otherwise.
	Unpriced *UnpricedCalls
}

// Hint says what would price the calls an unpriced, retired or unpriced
// host explanation is about; "" for the other kinds.
func (x *Explanation) Hint() string {
	switch {
	case x.Unpriced != nil:
		return x.Unpriced.Hint()
	case x.Kind == KindUnpricedHost && x.Host != tariffs.UnknownHost:
		return fmt.Sprintf("give host %s a tariff file with hosts: [%s] listing the models (--tariffs-overlay DIR), "+
			"or import a peer table of its prices: tokenfare tariffs import TABLE --out DIR", x.Host, x.Host)
	case x.Kind == KindUnpricedHost:
		return "read CLIProxyAPI v7 usage records, which name the entry that served each call"
	}
	return ""
}

// modelTally gathers what one model's buckets say about its gap.
type modelTally struct {
	name          string
	model         *tariffs.Model
	qtyByTier     []Quantities // priced calls with recorded spend, by prompt-size tier
	calls         int64
	official      decimal.Decimal
	recorded      decimal.Decimal
	sums          [2]ExactSum // official and recorded while tallying, exact in integers
	periodTokens  map[string]int64
	zeroCalls     int64
	zeroOfficial  decimal.Decimal
	noSpendCalls  int64
	noSpendCost   decimal.Decimal
	outcomeCalls  [numOutcomes]int64
	outcomeSpend  [numOutcomes]decimal.Decimal
	cacheTokens   int64 // tokens of the response-cache hits
	failedSpended int64
	unsureCalls   [numCoverages]int64           // priced calls by what the calendar knows of their day
	unsureCost    [numCoverages]decimal.Decimal // their official cost
	// Priced calls with recorded spend in a service tier other than
	// standard or in a region: kept out of the flat-price search.
	tierCalls    int64
	tierOfficial decimal.Decimal
	tierRecorded decimal.Decimal
	tierWhat     []string
	// Priced calls at a tariff resting on secondary sources only, and
	// their official cost.
	secondaryCalls int64
	secondaryCost  decimal.Decimal
	secondaryOf    string // the provider of that tariff
	// latest is the latest version that priced one of the tally's calls:
	// the flat-price search tries it and the versions before it first.
	latest *tariffs.Version
}

// numCoverages is the number of tariffs.Coverage values.
const numCoverages = int(tariffs.Uncovered) + 1

// tallies sums the buckets by model name, in map order: the sums are
// exact and do not depend on it. What does (a tally's model, the order of
// its service tiers and regions) is taken as in bucketLess order, and the
// tallies come sorted by name.
func (e *Engine) tallies() []*modelTally {
	byName := map[string]*modelTally{}
	first := map[*modelTally]*bucket{}
	var out []*modelTally
	var tiered []*bucket
	for _, b := range e.table.buckets.all() {
		if e.hostUnpriced(&b.k) {
			continue // explained by host (hostExplanations)
		}
		t := byName[e.nameOf(&b.k)]
		if t != nil && e.bucketLess(&b.k, &first[t].k) {
			t.model, first[t] = b.Model, b
		}
		if t == nil {
			t = &modelTally{name: e.nameOf(&b.k), model: b.Model, official: decimal.Zero, recorded: decimal.Zero,
				zeroOfficial: decimal.Zero, noSpendCost: decimal.Zero, periodTokens: map[string]int64{},
				unsureCost:   [numCoverages]decimal.Decimal{decimal.Zero, decimal.Zero, decimal.Zero},
				tierOfficial: decimal.Zero, tierRecorded: decimal.Zero, secondaryCost: decimal.Zero}
			for i := range t.outcomeSpend {
				t.outcomeSpend[i] = decimal.Zero
			}
			byName[e.nameOf(&b.k)] = t
			first[t] = b
			out = append(out, t)
		}
		o := b.k.outcome
		if o == Priced && b.Model != nil && b.Model.Provider.Secondary() {
			t.secondaryCalls += b.Calls
			t.secondaryCost = t.secondaryCost.Add(b.Official())
			t.secondaryOf = b.Model.Provider.Name
		}
		switch {
		case o == Priced && b.k.noSpend:
			t.noSpendCalls += b.Calls
			t.noSpendCost = t.noSpendCost.Add(b.Official())
		case o == Priced && !b.k.zero && b.k.variant != 0:
			// A gateway's one flat price per model has no rates for them:
			// they are not evidence of the flat price it records at.
			t.tierCalls += b.Calls
			t.tierOfficial = t.tierOfficial.Add(b.Official())
			t.tierRecorded = t.tierRecorded.Add(b.Recorded())
			tiered = append(tiered, b)
		case o == Priced && b.k.zero:
			t.zeroCalls += b.Calls
			t.zeroOfficial = t.zeroOfficial.Add(b.Official())
		case o == Priced:
			if d := b.k.day; d != tariffs.Covered {
				t.unsureCalls[d] += b.Calls
				t.unsureCost[d] = t.unsureCost[d].Add(b.Official())
			}
			t.calls += b.Calls
			if v := b.k.version; v != nil && (t.latest == nil || v.Effective.After(t.latest.Effective)) {
				t.latest = v
			}
			for int(b.k.tier) >= len(t.qtyByTier) {
				t.qtyByTier = append(t.qtyByTier, Quantities{})
			}
			t.qtyByTier[b.k.tier].Add(&b.Qty)
			t.sums[0].Add(b.officialAmount())
			t.sums[1].merge(&b.recorded)
			var tokens int64
			for u := range tariffs.NumTokenUsage {
				tokens += b.Qty[u]
			}
			t.periodTokens[b.periodName()] += tokens
		default:
			if o == Failed && !b.k.zero {
				t.failedSpended += b.Calls
			}
			t.outcomeCalls[o] += b.Calls
			t.outcomeSpend[o] = t.outcomeSpend[o].Add(b.Recorded())
			if o == CacheHit {
				for u := range tariffs.NumTokenUsage {
					t.cacheTokens += b.Qty[u]
				}
			}
		}
	}
	sort.Slice(tiered, func(i, j int) bool { return e.bucketLess(&tiered[i].k, &tiered[j].k) })
	for _, b := range tiered {
		t := byName[e.nameOf(&b.k)]
		if what := b.k.variantText(); !slices.Contains(t.tierWhat, what) {
			t.tierWhat = append(t.tierWhat, what)
		}
	}
	for _, t := range out {
		t.official, t.recorded = t.sums[0].Value(), t.sums[1].Value()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// hostUnpriced reports whether k's calls are unpriced for want of any
// tariff of their host: explained by host, not by model.
func (e *Engine) hostUnpriced(k *bucketKey) bool {
	return k.host != 0 && !e.cat.PricesHost(e.table.labels.of(k.host))
}

// explain finds, for each model, what accounts for its gap, and notes
// the calls priced on days its calendar does not know for certain; and for
// each host no tariff prices, the spend recorded for its calls.
func (e *Engine) explain() []Explanation {
	out := []Explanation{}
	unpriced := map[string][]UnpricedCalls{}
	for _, u := range e.UnpricedCalls() {
		if u.HostPriced {
			unpriced[u.Model] = append(unpriced[u.Model], u)
		}
	}
	for _, t := range e.tallies() {
		out = append(out, t.explain(unpriced[t.name])...)
		out = append(out, e.calendarNotes(t)...)
		out = append(out, e.promotionNotes(t)...)
	}
	for _, u := range e.Unpriced() {
		// Its amount is unknown (zero): the official cost leaves it out.
		x := Explanation{Kind: KindUnpricedQuantity, Model: u.Model, Amount: decimal.Zero, Detail: u.Detail()}
		if u.Kind == UnpricedUsage {
			x.Tokens = u.Quantity
		} else {
			x.Calls = u.Quantity
		}
		out = append(out, x)
	}
	out = append(out, e.gate.conflictExplanations()...)
	out = append(out, e.tierExplanations()...)
	return append(out, e.hostExplanations()...)
}

// hostExplanations accounts, host by host in name order, for the calls
// left unpriced because no tariff prices their host: what the gateway
// recorded for them is part of the gap.
func (e *Engine) hostExplanations() []Explanation {
	type tally struct {
		calls    int64
		recorded decimal.Decimal
		names    []string
	}
	byHost := map[string]*tally{}
	var hosts []string
	for _, b := range e.sortedBucketsWhere(func(b *bucket) bool { return e.hostUnpriced(&b.k) }) {
		host := e.table.labels.of(b.k.host)
		t := byHost[host]
		if t == nil {
			t = &tally{recorded: decimal.Zero}
			byHost[host] = t
			hosts = append(hosts, host)
		}
		t.calls += b.Calls
		t.recorded = t.recorded.Add(b.Recorded())
		if n := e.table.labels.of(b.k.unknown); len(t.names) == 0 || t.names[len(t.names)-1] != n {
			t.names = append(t.names, n)
		}
	}
	sort.Strings(hosts)
	out := make([]Explanation, 0, len(hosts))
	for _, h := range hosts {
		t := byHost[h]
		detail := fmt.Sprintf("no tariff for host %s: %d call(s), %s recorded (%s); a tariff file with hosts: [%s] prices them%s",
			h, t.calls, t.recorded, namesText(t.names), h, e.pricedElsewhere(t.names, h))
		if h == tariffs.UnknownHost {
			detail = fmt.Sprintf("host unknown: %d call(s), %s recorded (%s): CLIProxyAPI v6 exports name no provider, "+
				"and a vendor/model name comes from an openai-compatibility entry (a relay such as OpenRouter), "+
				"so no tariff is taken for them; CLIProxyAPI v7 records name the entry",
				t.calls, t.recorded, namesText(t.names))
		}
		out = append(out, Explanation{Kind: KindUnpricedHost, Host: h, Calls: t.calls, Amount: t.recorded.Neg(), Detail: detail})
	}
	return out
}

// pricedElsewhere names, for the first few names logged on host, the
// other hosts whose lists price them; "" when none does.
func (e *Engine) pricedElsewhere(names []string, host string) string {
	var parts []string
	for _, n := range slices.Compact(slices.Sorted(slices.Values(names))) {
		if hs := pricedOn(e.cat, n, host); len(hs) > 0 && len(parts) < 3 {
			parts = append(parts, n+" on "+hostsText(hs))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; the catalog prices " + strings.Join(parts, "; ")
}

// HostCalls is a host no tariff prices and how many calls naming it were
// left unpriced.
type HostCalls struct {
	Host  string // tariffs.UnknownHost when the calls name none a tariff could take
	Calls int64
}

// UnpricedHosts returns the hosts no tariff prices that calls named, with
// their unpriced calls, most calls first (then by name).
func (e *Engine) UnpricedHosts() []HostCalls {
	by := map[string]int64{}
	for _, b := range e.table.buckets.all() {
		if e.hostUnpriced(&b.k) {
			by[e.table.labels.of(b.k.host)] += b.Calls
		}
	}
	out := make([]HostCalls, 0, len(by))
	for h, n := range by {
		out = append(out, HostCalls{Host: h, Calls: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Calls != out[j].Calls {
			return out[i].Calls > out[j].Calls
		}
		return out[i].Host < out[j].Host
	})
	return out
}

// calendarNotes are the calendar explanations of a model: calls priced
// as ordinary days on days its calendar does not know for certain. They
// account for no part of the gap (their amount is zero): the official
// cost of those calls is the one the run reports, which a holiday or a
// make-up workday the calendar does not list would change.
func (e *Engine) calendarNotes(t *modelTally) []Explanation {
	var out []Explanation
	for _, d := range []tariffs.Coverage{tariffs.Uncovered, tariffs.Provisional} {
		n := t.unsureCalls[d]
		if n == 0 {
			continue
		}
		g := e.unsure[unsureKey{t.model, d}]
		x := Explanation{Kind: KindCalendarUncovered, Model: t.name, Calls: n, Amount: decimal.Zero,
			FirstDay: g.First, LastDay: g.Last}
		cal := &t.model.Provider.Calendar
		what := fmt.Sprintf("past the years %d to %d its calendar covers", cal.FirstYear, cal.LastYear)
		if d == tariffs.Provisional {
			x.Kind = KindCalendarProvisional
			what = "in a provisional year of its calendar (only the days it lists are certain)"
		}
		x.Detail = fmt.Sprintf("%d priced call(s) on local day(s) %s %s: priced as ordinary days; "+
			"a holiday or make-up workday the calendar does not list would change their official cost of %s",
			n, dayRange(g.First, g.Last), what, t.unsureCost[d])
		out = append(out, x)
	}
	return out
}

// promotionNotes are the explanations of a model's calls priced at a
// promotion's rates after the promotion's stated end. Like the calendar
// notes they account for no part of the gap: the official cost is the one
// reported, at the last rates the catalog knows.
func (e *Engine) promotionNotes(t *modelTally) []Explanation {
	var out []Explanation
	for _, g := range e.PromotionGaps() {
		if g.Model != t.model || t.model == nil {
			continue
		}
		out = append(out, Explanation{Kind: KindPromotionEnded, Model: t.name, Calls: g.Calls, Amount: decimal.Zero,
			Version: g.Version.Name, FirstDay: g.First, LastDay: g.Last,
			Detail: fmt.Sprintf("%d priced call(s) on local day(s) %s at the rates of version %s, a %s, "+
				"whose end had passed: the provider's price since is not in the catalog, so their official cost rests on rates it no longer promises",
				g.Calls, dayRange(g.First, g.Last), g.Version.Name, g.Version.PromotionOf(g.Model))})
	}
	return out
}

// dayRange writes a range of days, or the one day.
func dayRange(first, last tariffs.Date) string {
	if first == last {
		return first.String()
	}
	return first.String() + " to " + last.String()
}

// namesText lists the first few of the logged names, in sort order.
func namesText(names []string) string {
	sort.Strings(names)
	names = slices.Compact(names)
	const most = 3
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

// explain finds what accounts for the tally's gap; unpriced are the
// tally's calls left without a price, by host and cause.
func (t *modelTally) explain(unpriced []UnpricedCalls) []Explanation {
	var out []Explanation
	switch gap := t.official.Sub(t.recorded); {
	case t.calls == 0 || gap.IsZero():
	case closeTo(t.recorded, t.official):
		out = append(out, Explanation{Kind: KindRounding, Model: t.name, Calls: t.calls, Amount: gap,
			Detail: fmt.Sprintf("recorded %s against an official %s: equal to one part in a million, the rest is rounding", t.recorded, t.official)})
	default:
		out = append(out, t.flatPrice(gap))
	}
	if t.tierCalls > 0 {
		out = append(out, Explanation{Kind: KindTierOrRegion, Model: t.name, Calls: t.tierCalls, Amount: t.tierOfficial.Sub(t.tierRecorded),
			Detail: fmt.Sprintf("%d priced call(s) in %s: official %s, recorded %s; one flat price per model cannot price them (blend leaves them out)",
				t.tierCalls, strings.Join(t.tierWhat, ", "), t.tierOfficial, t.tierRecorded)})
	}
	if t.secondaryCalls > 0 {
		out = append(out, Explanation{Kind: KindSecondaryPrice, Model: t.name, Calls: t.secondaryCalls, Amount: decimal.Zero,
			Detail: fmt.Sprintf("%d call(s) priced at %s's tariff, official %s: the price rests on that imported table (secondary sources only), not on the provider's own page",
				t.secondaryCalls, t.secondaryOf, t.secondaryCost)})
	}
	if t.zeroCalls > 0 && !t.zeroOfficial.IsZero() {
		out = append(out, Explanation{Kind: KindZeroSpend, Model: t.name, Calls: t.zeroCalls, Amount: t.zeroOfficial,
			Detail: fmt.Sprintf("%d priced call(s) recorded with zero spend; their official cost is %s", t.zeroCalls, t.zeroOfficial)})
	}
	if t.noSpendCalls > 0 {
		out = append(out, Explanation{Kind: KindNotRecorded, Model: t.name, Calls: t.noSpendCalls, Amount: t.noSpendCost,
			Detail: fmt.Sprintf("%d priced call(s) from a gateway that records tokens but no spend; their official cost is %s", t.noSpendCalls, t.noSpendCost)})
	}
	if n := t.outcomeCalls[CacheHit]; n > 0 {
		spend := t.outcomeSpend[CacheHit]
		out = append(out, Explanation{Kind: KindCacheHits, Model: t.name, Calls: n, Amount: spend.Neg(), Tokens: t.cacheTokens,
			Detail: fmt.Sprintf("%d call(s) answered from the gateway's response cache: the provider was not called, no official cost, %d tokens saved; the gateway recorded %s for them", n, t.cacheTokens, spend)})
	}
	for _, o := range []struct {
		outcome Outcome
		kind    ExplanationKind
		what    string
	}{
		{Unpriced, KindUnpricedModel, ""},
		{Retired, KindRetiredModel, ""},
		{Failed, KindFailedWithSpend, "failed call(s) that carry recorded spend"},
	} {
		if o.outcome == Unpriced || o.outcome == Retired {
			out = append(out, unpricedExplanations(unpriced, o.outcome, o.kind)...)
			continue
		}
		calls, spend := t.outcomeCalls[o.outcome], t.outcomeSpend[o.outcome]
		if o.outcome == Failed {
			calls = t.failedSpended
		}
		if calls == 0 || (o.outcome == Failed && spend.IsZero()) {
			continue
		}
		out = append(out, Explanation{Kind: o.kind, Model: t.name, Calls: calls, Amount: spend.Neg(),
			Detail: fmt.Sprintf("%d %s; the gateway recorded %s for them", calls, o.what, spend)})
	}
	return out
}

// unpricedExplanations explains the calls of outcome left without a
// price, one explanation for each host and cause.
func unpricedExplanations(us []UnpricedCalls, outcome Outcome, kind ExplanationKind) []Explanation {
	var out []Explanation
	for i := range us {
		u := &us[i]
		if u.Outcome() != outcome || u.Calls == 0 {
			continue
		}
		out = append(out, Explanation{Kind: kind, Model: u.Model, Host: u.Host, Calls: u.Calls, Amount: u.Recorded.Neg(),
			Detail: u.Detail(), Unpriced: u})
	}
	return out
}

func closeTo(a, b decimal.Decimal) bool {
	diff := a.Sub(b).Abs()
	scale := decimal.Max(a.Abs(), b.Abs())
	return diff.LessThanOrEqual(scale.Mul(matchTolerance))
}

// candidate is a rate set the gateway may have recorded at: one period's
// rates of one version, with its prompt-size tiers.
type candidate struct {
	model   *tariffs.Model
	version *tariffs.Version
	prices  *tariffs.ModelPrices
	period  int
	cached  bool // cache reads at the input price
	oneHour bool // 1-hour cache writes at the 5-minute price (LiteLLM without cache_creation_input_token_cost_above_1hr)
	noTools bool // tool uses not recorded
}

// rates returns the candidate's rates for calls of tier i (as priced),
// or of its highest tier when it has fewer.
func (c *candidate) rates(i int) tariffs.Rates {
	r := *c.prices.RatesAt(c.period, min(i, len(c.prices.Tiers)))
	if c.cached {
		r.Set(tariffs.CacheRead, r.Price(tariffs.Input))
	}
	if c.oneHour {
		r.Set(tariffs.CacheWrite1h, r.Price(tariffs.CacheWrite))
	}
	if c.noTools {
		for _, u := range tariffs.Tools {
			r.Set(u, decimal.Zero)
		}
	}
	return r
}

// cost prices the tally's quantities at the candidate's rates, tier by tier.
func (c *candidate) cost(t *modelTally) decimal.Decimal {
	cost := decimal.Zero
	for i := range t.qtyByTier {
		r := c.rates(i)
		_, sum := CostOf(&r, &t.qtyByTier[i])
		cost = cost.Add(sum)
	}
	return cost
}

// flatPrice looks for one rate set of the provider's history that gives
// the recorded sum at every hour; the model's own rates come first, latest
// version first, the versions in force for the calls before later ones.
func (t *modelTally) flatPrice(gap decimal.Decimal) Explanation {
	x := Explanation{Kind: KindUnexplained, Model: t.name, Calls: t.calls, Amount: gap,
		Detail: fmt.Sprintf("recorded %s against an official %s; no single flat rate set of the tariff history matches", t.recorded, t.official)}
	for _, c := range t.candidates() {
		if !closeTo(c.cost(t), t.recorded) {
			continue
		}
		x.Kind, x.Version, x.Period = KindFlatPrice, c.version.Name, c.version.Periods[c.period]
		if c.cached {
			x.Kind = KindCachedAsInput
		}
		x.OneHourAtFiveMinute, x.NoToolFees = c.oneHour, c.noTools
		notes := cachedNote(c.cached)
		if c.oneHour {
			notes += ", with 1-hour cache writes at the 5-minute price"
		}
		if c.noTools {
			notes += ", with no tool fees"
		}
		whose := "its own"
		if c.model != t.model {
			x.RatesOf, whose = c.model.ID, c.model.ID+"'s"
		}
		base := c.rates(0)
		x.Detail = fmt.Sprintf("recorded at a flat price equal to %s %s rates of version %s (%s) at every hour%s; %s",
			whose, x.Period, x.Version, describeRates(&base), notes, t.periodMix())
		return x
	}
	return x
}

func cachedNote(cached bool) string {
	if cached {
		return ", with cache reads billed at the input price"
	}
	return ""
}

// periodMix describes the share of tokens in each period.
func (t *modelTally) periodMix() string {
	var total int64
	for _, n := range t.periodTokens {
		total += n
	}
	if total == 0 {
		return "no tokens"
	}
	names := make([]string, 0, len(t.periodTokens))
	for n := range t.periodTokens {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		share := decimal.NewFromInt(t.periodTokens[n]*100).DivRound(decimal.NewFromInt(total), 1)
		parts[i] = fmt.Sprintf("%s %s%%", n, share.StringFixed(1))
	}
	return "the official cost has tokens in " + strings.Join(parts, ", ")
}

func describeRates(r *tariffs.Rates) string {
	var parts []string
	for _, u := range []tariffs.Usage{tariffs.Input, tariffs.CacheRead, tariffs.CacheWrite, tariffs.Output} {
		parts = append(parts, fmt.Sprintf("%s %s", u, r.Price(u)))
	}
	return strings.Join(parts, ", ") + " per 1M"
}

// candidates lists every period's rates of every version of the model's
// provider, the model's own first, each also with cache reads at the input
// price.
func (t *modelTally) candidates() []candidate {
	if t.model == nil {
		return nil
	}
	var own, others, ownLater, othersLater []candidate
	versions := t.model.Provider.Versions
	for i := len(versions) - 1; i >= 0; i-- {
		v := versions[i]
		// A version that came into force after every call of the tally
		// explains them only where none in force for them does.
		later := t.latest != nil && v.Effective.After(t.latest.Effective)
		for _, m := range t.model.Provider.Models {
			mp := v.Prices[m]
			if mp == nil {
				continue
			}
			for p := range v.Periods {
				cs := t.variants(candidate{model: m, version: v, prices: mp, period: p})
				switch {
				case m == t.model && !later:
					own = append(own, cs...)
				case m == t.model:
					ownLater = append(ownLater, cs...)
				case !later:
					others = append(others, cs...)
				default:
					othersLater = append(othersLater, cs...)
				}
			}
		}
	}
	return slices.Concat(own, others, ownLater, othersLater)
}

// variants returns c and its readings by a gateway that lacks some of the
// tariff's prices: cache reads at the input price; where the tally has
// them, 1-hour writes at the 5-minute price and tool uses not recorded.
// The plainest reading comes first.
func (t *modelTally) variants(c candidate) []candidate {
	var q Quantities
	for i := range t.qtyByTier {
		q.Add(&t.qtyByTier[i])
	}
	out := []candidate{c}
	grow := func(set func(*candidate)) {
		for _, x := range out {
			set(&x)
			out = append(out, x)
		}
	}
	grow(func(x *candidate) { x.cached = true })
	if q[tariffs.CacheWrite1h] > 0 {
		grow(func(x *candidate) { x.oneHour = true })
	}
	if q[tariffs.WebSearch]+q[tariffs.WebFetch]+q[tariffs.FileSearch] > 0 {
		grow(func(x *candidate) { x.noTools = true })
	}
	return out
}

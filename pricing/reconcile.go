package pricing

import (
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Reconciliation compares what the gateway recorded with the official cost,
// in total and by the dimensions asked for. Gap is official minus recorded:
// positive when the gateway recorded too little. Ratio is recorded/official,
// not valid when the official cost is zero.
type Reconciliation struct {
	Rows         Rows
	Currencies   []string // currencies of the priced calls, sorted; more than one when totals mix them
	Totals       Totals
	By           []Dim // the dimensions of the groups, in the order asked for
	Groups       []Group
	Explanations []Explanation
	// Billed sums what priced calls were billed for beyond plain tokens:
	// 1-hour cache writes, tool uses, service tiers and regions (see
	// Modifier); empty when no call had any.
	Billed []Modifier
	// Failed splits Rows.Failed by cause class, when the run classified
	// its failed calls (package failures); nil otherwise.
	Failed *FailedSplit
}

// FailedSplit is the failed calls of a run by cause class: reached the
// provider (Upstream), refused by the gateway itself (Gateway), or not
// told by the log (Unknown). The three add up to Rows.Failed.
type FailedSplit struct {
	Upstream, Gateway, Unknown int64
}

// Totals are the sums over every call read.
type Totals struct {
	Calls     int64
	Official  decimal.Decimal
	Recorded  decimal.Decimal
	Gap       decimal.Decimal
	Ratio     decimal.NullDecimal
	Explained decimal.Decimal // the part of the gap the explanations other than "unexplained" account for
}

// Group is one row of the reconciliation by the dimensions asked for.
type Group struct {
	Key         GroupKey
	KeyAlias    string   // alias of Key.Key when grouped by key and one is known
	Currencies  []string // currencies of the group's priced calls, sorted; none when nothing was priced
	Calls       int64
	PricedCalls int64
	Tokens      TokenCounts
	Official    decimal.Decimal
	Recorded    decimal.Decimal
	Gap         decimal.Decimal
	Ratio       decimal.NullDecimal
	// TimedTokens are the priced tokens of usage types whose price differs
	// between the periods of their tariff version; PeakTokens those of them
	// billed in the dearest period. See PeakShare.
	TimedTokens int64
	PeakTokens  int64
	// CacheHitTokens are the tokens of the calls the gateway answered from
	// its own cache (CacheHit): no provider billed them, so they are kept
	// out of Tokens, whose counts are of usage that reached a provider.
	CacheHitTokens int64

	currencies map[string]bool
}

// PeakShare returns the share of the group's timed tokens billed in the
// dearest period, rounded to RatioPlaces; not valid without timed tokens.
func (g *Group) PeakShare() decimal.NullDecimal {
	return ratio(decimal.NewFromInt(g.PeakTokens), decimal.NewFromInt(g.TimedTokens))
}

// TokenCounts are token totals by usage type, and the uses of each tool;
// Output includes Reasoning; CacheWrite and CacheWrite1h are disjoint.
type TokenCounts struct {
	Input        int64
	CacheRead    int64
	CacheWrite   int64
	Output       int64
	Reasoning    int64
	CacheWrite1h int64
	WebSearch    int64
	WebFetch     int64
	FileSearch   int64
}

func (t *TokenCounts) add(q *Quantities) {
	t.Input += q[tariffs.Input]
	t.CacheRead += q[tariffs.CacheRead]
	t.CacheWrite += q[tariffs.CacheWrite]
	t.CacheWrite1h += q[tariffs.CacheWrite1h]
	t.Output += q[tariffs.Output] + q[tariffs.Reasoning]
	t.Reasoning += q[tariffs.Reasoning]
	t.WebSearch += q[tariffs.WebSearch]
	t.WebFetch += q[tariffs.WebFetch]
	t.FileSearch += q[tariffs.FileSearch]
}

// Add adds o's counts to t.
func (t *TokenCounts) Add(o *TokenCounts) {
	t.Input += o.Input
	t.CacheRead += o.CacheRead
	t.CacheWrite += o.CacheWrite
	t.Output += o.Output
	t.Reasoning += o.Reasoning
	t.CacheWrite1h += o.CacheWrite1h
	t.WebSearch += o.WebSearch
	t.WebFetch += o.WebFetch
	t.FileSearch += o.FileSearch
}

// Total returns every token counted: the prompt's parts (uncached, cache
// read, both cache-write lifetimes) and the output (reasoning is inside it).
func (t *TokenCounts) Total() int64 {
	return t.Input + t.CacheRead + t.CacheWrite + t.CacheWrite1h + t.Output
}

// Tools reports whether any tool was used.
func (t *TokenCounts) Tools() bool { return t.WebSearch+t.WebFetch+t.FileSearch > 0 }

// Reconcile builds the reconciliation of everything the engine priced,
// grouped by the engine's dimensions. Groups come sorted by their values,
// dimension by dimension in the order of the dimensions' names.
func (e *Engine) Reconcile() *Reconciliation {
	r := e.reconcileGroups()
	r.Explanations = e.explain()
	explained := decimal.Zero
	for _, x := range r.Explanations {
		if x.Kind != KindUnexplained {
			explained = explained.Add(x.Amount)
		}
	}
	r.Totals.Explained = explained
	return r
}

// reconcileGroups is Reconcile without the explanations.
func (e *Engine) reconcileGroups() *Reconciliation {
	r := e.groupsBy(e.groupKeyOf)
	e.sortGroups(r.Groups)
	return r
}

// groupsBy is reconcileGroups with the buckets grouped by keyOf, the
// groups in the order of their first bucket.
func (e *Engine) groupsBy(keyOf func(*bucket) GroupKey) *Reconciliation {
	r := &Reconciliation{Rows: e.rows, By: append([]Dim{}, e.opts.Dims...), Groups: []Group{}}
	groups := map[GroupKey]*Group{}
	var order []*Group
	official, recorded := decimal.Zero, decimal.Zero
	currencies := map[string]bool{}
	var calls int64
	for _, b := range e.sortedBuckets() {
		o, rec := b.Official(), b.Recorded()
		official, recorded = official.Add(o), recorded.Add(rec)
		k := keyOf(b)
		g := groups[k]
		if g == nil {
			g = &Group{Key: k, Official: decimal.Zero, Recorded: decimal.Zero, currencies: map[string]bool{}}
			groups[k] = g
			order = append(order, g)
		}
		if b.k.outcome != Duplicate { // a call logged twice counts once
			g.Calls += b.Calls
			calls += b.Calls
		}
		if b.Model != nil && b.k.outcome == Priced {
			g.PricedCalls += b.Calls
			currencies[b.Model.Provider.Currency] = true
			g.currencies[b.Model.Provider.Currency] = true
			timed, peak := timedTokens(b)
			g.TimedTokens += timed
			g.PeakTokens += peak
		}
		if b.k.outcome == CacheHit {
			g.CacheHitTokens += b.Qty.Tokens()
		} else {
			g.Tokens.add(&b.Qty)
		}
		g.Official, g.Recorded = g.Official.Add(o), g.Recorded.Add(rec)
		g.KeyAlias = firstAlias(g.KeyAlias, b.KeyAlias)
	}
	for _, g := range order {
		g.Gap, g.Ratio = g.Official.Sub(g.Recorded), ratio(g.Recorded, g.Official)
		g.Currencies, g.currencies = sortedSet(g.currencies), nil
		r.Groups = append(r.Groups, *g)
	}
	r.Currencies = sortedSet(currencies)
	r.Explanations = []Explanation{}
	r.Totals = Totals{Calls: calls, Official: official, Recorded: recorded,
		Gap: official.Sub(recorded), Ratio: ratio(recorded, official), Explained: decimal.Zero}
	r.Billed = e.modifiers()
	return r
}

func sortedSet(set map[string]bool) []string {
	list := make([]string, 0, len(set))
	for c := range set {
		list = append(list, c)
	}
	sort.Strings(list)
	return list
}

// groupKeyOf names the bucket's group in each dimension asked for.
func (e *Engine) groupKeyOf(b *bucket) GroupKey {
	var k GroupKey
	for _, d := range e.opts.Dims {
		switch d {
		case DimModel:
			k.Model = b.k.name()
		case DimGroup:
			k.Group = b.k.group
		case DimKey:
			k.Key = b.k.key
		case DimTeam:
			k.Team = b.k.team
		case DimUser:
			k.User = b.k.user
		case DimDay, DimHour:
			k.Start = time.Unix(b.k.slot, 0).In(e.zone)
		case DimPeriod:
			k.Period, k.Outcome = b.periodName(), b.k.outcome
		case DimVersion:
			if b.k.version != nil {
				k.Version = b.k.version.Name
			}
		case DimHost:
			k.Host = b.k.served
		case DimTag:
			k.Tag = b.k.tag
		case DimMeta:
			k.Meta = b.k.meta
		}
	}
	return k
}

// SortByOfficial orders groups by official cost, dearest first; groups of
// equal official cost by recorded spend, larger first; groups equal in
// both keep the order they came in (Reconcile's: by their values), so
// the order is the same on every run.
func SortByOfficial(gs []Group) {
	sort.SliceStable(gs, func(i, j int) bool {
		if c := gs[i].Official.Cmp(gs[j].Official); c != 0 {
			return c > 0
		}
		return gs[i].Recorded.GreaterThan(gs[j].Recorded)
	})
}

// sortGroups orders groups by their values, compared dimension by
// dimension in the order of the dimensions' names.
func (e *Engine) sortGroups(gs []Group) {
	dims := append([]Dim{}, e.opts.Dims...)
	sort.Slice(dims, func(i, j int) bool { return dims[i].String() < dims[j].String() })
	keys := make([]string, len(gs))
	for i := range gs {
		var sb strings.Builder
		for _, d := range dims {
			sb.WriteString(gs[i].Key.Value(d))
			sb.WriteByte(0)
		}
		keys[i] = sb.String()
	}
	sort.Sort(groupsByKey{gs, keys})
}

// groupsByKey sorts groups by their sort keys.
type groupsByKey struct {
	gs   []Group
	keys []string
}

func (s groupsByKey) Len() int           { return len(s.gs) }
func (s groupsByKey) Less(i, j int) bool { return s.keys[i] < s.keys[j] }
func (s groupsByKey) Swap(i, j int) {
	s.gs[i], s.gs[j] = s.gs[j], s.gs[i]
	s.keys[i], s.keys[j] = s.keys[j], s.keys[i]
}

// sortedBuckets returns the buckets in a fixed order, so that output and
// sums do not depend on map order.
func (e *Engine) sortedBuckets() []*bucket {
	bs := e.allBuckets()
	sort.Slice(bs, func(i, j int) bool { return bucketLess(&bs[i].k, &bs[j].k) })
	return bs
}

func bucketLess(a, b *bucketKey) bool {
	if an, bn := a.name(), b.name(); an != bn {
		return an < bn
	}
	av, bv := versionTime(a.version), versionTime(b.version)
	switch {
	case a.host != b.host:
		return a.host < b.host
	case av != bv:
		return av < bv
	case a.period != b.period:
		return a.period < b.period
	case a.tier != b.tier:
		return a.tier < b.tier
	case a.variant != b.variant:
		va, vb := variants.of(a.variant), variants.of(b.variant)
		if va.service != vb.service {
			return va.service < vb.service
		}
		return va.region < vb.region
	case a.outcome != b.outcome:
		return a.outcome < b.outcome
	case a.day != b.day:
		return a.day < b.day
	case a.zero != b.zero:
		return !a.zero
	case a.noSpend != b.noSpend:
		return !a.noSpend
	case a.group != b.group:
		return a.group < b.group
	}
	if c := a.holder.compare(&b.holder); c != 0 {
		return c < 0
	}
	return a.slot < b.slot
}

func versionTime(v *tariffs.Version) int64 {
	if v == nil {
		return -1 << 63
	}
	return v.Effective.UnixNano()
}

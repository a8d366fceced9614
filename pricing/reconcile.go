package pricing

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Reconciliation compares what the gateway recorded with the official cost,
// in total and by the dimensions asked for. Gap is official minus recorded:
// positive when the gateway recorded too little. Ratio is recorded/official,
// not valid when the official cost is zero.
//
// Its groups are read with Groups (or GroupsWithMoney), whether they are
// listed or streamed from the runs of an engine that spilled them
// (Options.Runs); such a reconciliation holds its own reference to the
// runs, which Close lets go of. Close it once read.
type Reconciliation struct {
	Rows         Rows
	Currencies   []string // currencies of the priced calls, sorted; more than one when totals mix them
	Totals       Totals
	By           []Dim // the dimensions of the groups, in the order asked for
	Explanations []Explanation
	// Billed sums what priced calls were billed for beyond plain tokens:
	// 1-hour cache writes, tool uses, service tiers and regions (see
	// Modifier); empty when no call had any.
	Billed []Modifier
	// Failed splits Rows.Failed by cause class, when the run classified
	// its failed calls (package failures); nil otherwise.
	Failed *FailedSplit
	// Unpriced are the calls left without a price (unpriced and retired),
	// by model, host and cause (Engine.UnpricedCalls); empty when none.
	Unpriced []UnpricedCalls
	// Daily compares, for each database whose gateway keeps daily tables,
	// the daily table with the spend logs (set by the caller, which reads
	// the database); nil otherwise.
	Daily []*ledger.DailyComparison

	groups  []Group      // the groups in order, when listed
	stream  *groupStream // the groups, when streamed from the engine's runs (Options.Runs)
	aliased bool         // a streamed group has a key alias
	closed  bool         // Close was called: the groups cannot be read
}

// Groups yields the groups in order, listed or streamed from the
// engine's runs alike, and last, with a nil group, the error of reading
// them back (ErrSpill), or ErrClosed after Close. A group yielded is
// valid until the next: copy what is kept. A streamed reconciliation
// can be gone over as often as wanted, nested or not, its engine closed
// or not, until it is closed itself; a loop left early leaves nothing
// open.
func (r *Reconciliation) Groups() iter.Seq2[*Group, error] {
	return func(yield func(*Group, error) bool) {
		switch {
		case r.closed:
			yield(nil, fmt.Errorf("the groups of a closed reconciliation: %w", ErrClosed))
		case r.stream == nil:
			for i := range r.groups {
				if !yield(&r.groups[i], nil) {
					return
				}
			}
		default:
			var g Group
			for s, err := range r.stream.sums() {
				if err != nil {
					yield(nil, err)
					return
				}
				g = s.done()
				if !yield(&g, nil) {
					return
				}
			}
		}
	}
}

// SetGroups lists gs as the groups of r, a reconciliation made by hand
// (of sums read elsewhere, or in a test); Groups yields them in order.
func (r *Reconciliation) SetGroups(gs []Group) { r.groups, r.stream = gs, nil }

// Close lets go of the runs the groups stream from, if they do: the runs
// are removed once their engine and every other result reading them are
// closed too. Groups yields ErrClosed after. Closing again does nothing.
func (r *Reconciliation) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.stream == nil {
		return nil
	}
	return r.stream.ref.release()
}

// HasKeyAlias reports whether a group has a key alias.
func (r *Reconciliation) HasKeyAlias() bool {
	if r.stream != nil {
		return r.aliased
	}
	for i := range r.groups {
		if r.groups[i].KeyAlias != "" {
			return true
		}
	}
	return false
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

// AddQuantities adds the quantities q: reasoning into Output as well as
// Reasoning.
func (t *TokenCounts) AddQuantities(q *Quantities) {
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

// reconcileGroups is Reconcile without the explanations: the groups
// sorted by their values (sortedGroups), or streamed from the runs and
// the buckets when the engine spills (Options.Runs), the stream holding
// a reference to the runs (released by Reconciliation.Close).
func (e *Engine) reconcileGroups() *Reconciliation {
	r := e.newReconciliation()
	if e.opts.Runs == nil {
		r.groups = e.sortedGroups(nil)
		return r
	}
	r.stream, r.aliased = e.groupStream(), e.runs.aliased
	r.stream.ref = e.runs.ref.hold()
	for _, b := range e.liveBuckets() {
		r.aliased = r.aliased || b.KeyAlias != ""
	}
	return r
}

// newReconciliation starts the engine's reconciliation: its rows,
// dimensions, totals, currencies and billed modifiers, without groups or
// explanations. Money is summed exactly in integers while it fits
// (ExactSum) and made decimal once.
func (e *Engine) newReconciliation() *Reconciliation {
	r := &Reconciliation{Rows: e.rows, By: append([]Dim{}, e.opts.Dims...), Explanations: []Explanation{}, Currencies: []string{}}
	var official, recorded ExactSum
	var calls int64
	for _, b := range e.table.buckets.all() {
		official.Add(b.officialAmount())
		recorded.merge(&b.recorded)
		calls += b.Calls
		if b.Model != nil && b.k.outcome == Priced {
			r.Currencies = addCurrency(r.Currencies, b.Model.Provider.Currency)
		}
	}
	o, rec := official.Value(), recorded.Value()
	r.Totals = Totals{Calls: calls, Official: o, Recorded: rec, Gap: o.Sub(rec), Ratio: ratio(rec, o), Explained: decimal.Zero}
	r.Billed = e.modifiers()
	r.Unpriced = e.UnpricedCalls()
	return r
}

// groupSum sums the buckets of one group.
type groupSum struct {
	g                  Group
	official, recorded ExactSum
	blend              blendParts // when the engine keeps them (OutputChargeback)
	// ids are the numbers of the group's texts among its engine's runs'
	// (runTexts), by slot (textOf), when numbered: read back from a run.
	ids      [runStrings]text
	numbered bool
	// from is the first bucket of a group summed from buckets (a spill's
	// cursor), nil for one read back: its texts' numbers among the
	// engine's values find their numbers in the runs (runTexts.valueID).
	from *bucket
}

// add adds bucket b to the group.
func (s *groupSum) add(b *bucket) {
	g := &s.g
	s.official.Add(b.officialAmount())
	s.recorded.merge(&b.recorded)
	g.Calls += b.Calls
	if b.Model != nil && b.k.outcome == Priced {
		g.PricedCalls += b.Calls
		g.Currencies = addCurrency(g.Currencies, b.Model.Provider.Currency)
		timed, peak := timedTokens(b)
		g.TimedTokens += timed
		g.PeakTokens += peak
	}
	if b.k.outcome == CacheHit {
		g.CacheHitTokens += b.Qty.Tokens()
	} else {
		g.Tokens.AddQuantities(&b.Qty)
	}
	g.KeyAlias = firstAlias(g.KeyAlias, b.KeyAlias)
}

// done returns the group whole, its money made decimal.
func (s *groupSum) done() Group {
	g := s.g
	g.Official, g.Recorded = s.official.Value(), s.recorded.Value()
	g.Gap, g.Ratio = gapOfSums(&s.official, &s.recorded, g.Official, g.Recorded), ratioOfSums(&s.recorded, &s.official, g.Recorded, g.Official)
	if g.Currencies == nil {
		g.Currencies = []string{}
	}
	return g
}

// groupsBy is the engine's reconciliation with the buckets grouped by
// keyOf, the groups in no particular order.
func (e *Engine) groupsBy(keyOf func(*bucket) GroupKey) *Reconciliation {
	r := e.newReconciliation()
	index := map[GroupKey]int{}
	var sums []groupSum
	for _, b := range e.table.buckets.all() {
		k := keyOf(b)
		i, ok := index[k]
		if !ok {
			i = len(sums)
			index[k] = i
			sums = append(sums, groupSum{g: Group{Key: k}})
		}
		sums[i].add(b)
	}
	r.groups = make([]Group, len(sums))
	for i := range sums {
		r.groups[i] = sums[i].done()
	}
	return r
}

// addCurrency adds c to the sorted set cs: a group has one currency but
// for a model group priced by two providers.
func addCurrency(cs []string, c string) []string {
	if len(cs) == 0 {
		return onlyCurrency(c)
	}
	i, found := slices.BinarySearch(cs, c)
	if found {
		return cs
	}
	return slices.Insert(cs, i, c)
}

// lastOnly is the list onlyCurrency returned last.
var lastOnly atomic.Pointer[[]string]

// onlyCurrency returns the list of c alone, the last one made when it is
// of c: a million groups of one currency share a few lists, where each
// made its own. Its length is its capacity, so that addCurrency, which
// adds by slices.Insert, makes a new list rather than writing into it.
func onlyCurrency(c string) []string {
	if p := lastOnly.Load(); p != nil && (*p)[0] == c {
		return *p
	}
	l := []string{c}
	lastOnly.Store(&l)
	return l
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
func (e *Engine) groupKeyOf(b *bucket) GroupKey { return e.groupKeyBy(b, e.opts.Dims) }

// groupKeyBy names the bucket's group in each of dims.
func (e *Engine) groupKeyBy(b *bucket, dims []Dim) GroupKey {
	var k GroupKey
	e.keyInto(&k, b, dims)
	return k
}

// keyInto sets the fields of *k of each of dims to bucket b's group's:
// in place, where a key returned is copied twice into a group's sum.
func (e *Engine) keyInto(k *GroupKey, b *bucket, dims []Dim) {
	for _, d := range dims {
		switch d {
		case DimModel:
			k.Model = e.nameOf(&b.k)
		case DimGroup:
			k.Group = e.table.values.of(b.k.group)
		case DimKey:
			k.Key = e.table.values.of(b.k.holder.key)
		case DimTeam:
			k.Team = e.table.values.of(b.k.holder.team)
		case DimUser:
			k.User = e.table.values.of(b.k.holder.user)
		case DimDay, DimHour:
			k.Start = time.Unix(b.k.slot, 0).In(e.zone)
		case DimPeriod:
			k.Period, k.Outcome = b.periodName(), b.k.outcome
		case DimVersion:
			if b.k.version != nil {
				k.Version = b.k.version.Name
			}
		case DimHost:
			k.Host = e.table.values.of(b.k.served)
		case DimTag:
			k.Tag = e.table.values.of(b.k.holder.tag)
		case DimMeta:
			k.Meta = e.table.values.of(b.k.holder.meta)
		}
	}
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

// The Unix seconds of 1000-01-02 and 9999-12-30, UTC: days between them
// are written with four-digit years in every zone.
const (
	minFourDigitYear = -30610224000 + 86400
	maxFourDigitYear = 253402214400 - 86400
)

// compareValue compares the values of two group keys in dimension d as
// their texts (GroupKey.Value) compare, without writing the texts where
// the fields order alike: a day's text is its date, in the order of its
// start in the one zone of a run.
func compareValue(a, b *GroupKey, d Dim) int {
	switch d {
	case DimModel:
		return strings.Compare(a.Model, b.Model)
	case DimGroup:
		return strings.Compare(a.Group, b.Group)
	case DimKey:
		return strings.Compare(a.Key, b.Key)
	case DimTeam:
		return strings.Compare(a.Team, b.Team)
	case DimUser:
		return strings.Compare(a.User, b.User)
	case DimVersion:
		return strings.Compare(a.Version, b.Version)
	case DimHost:
		return strings.Compare(a.Host, b.Host)
	case DimDay:
		// Dates of four-digit years compare as their starts do; the
		// bounds leave a day for any zone's offset.
		if ua, ub := a.Start.Unix(), b.Start.Unix(); ua > minFourDigitYear && ua < maxFourDigitYear &&
			ub > minFourDigitYear && ub < maxFourDigitYear && a.Start.Location() == b.Start.Location() {
			return cmp.Compare(ua, ub)
		}
	case DimPeriod:
		if a.Outcome == Priced && b.Outcome == Priced {
			return strings.Compare(a.Period, b.Period)
		}
	}
	return strings.Compare(a.Value(d), b.Value(d))
}

// sortedBuckets returns the buckets in a fixed order, so that output and
// sums do not depend on map order.
func (e *Engine) sortedBuckets() []*bucket {
	bs := e.allBuckets()
	sort.Slice(bs, func(i, j int) bool { return e.bucketLess(&bs[i].k, &bs[j].k) })
	return bs
}

// sortedBucketsWhere returns the buckets keep keeps, sorted as
// sortedBuckets sorts them.
func (e *Engine) sortedBucketsWhere(keep func(*bucket) bool) []*bucket {
	var bs []*bucket
	for _, b := range e.table.buckets.all() {
		if keep(b) {
			bs = append(bs, b)
		}
	}
	sort.Slice(bs, func(i, j int) bool { return e.bucketLess(&bs[i].k, &bs[j].k) })
	return bs
}

// bucketLess orders bucket keys by their model's name, host, version,
// period, tier, service tier and region, outcome and the like, then their
// groupings' strings.
func (e *Engine) bucketLess(a, b *bucketKey) bool {
	if an, bn := e.nameOf(a), e.nameOf(b); an != bn {
		return an < bn
	}
	av, bv := versionTime(a.version), versionTime(b.version)
	switch {
	case a.host != b.host:
		return e.table.labels.of(a.host) < e.table.labels.of(b.host)
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
		return e.table.values.of(a.group) < e.table.values.of(b.group)
	}
	if a.holder != b.holder {
		ha, hb := e.holderOf(&a.holder), e.holderOf(&b.holder)
		if c := ha.compare(&hb); c != 0 {
			return c < 0
		}
	}
	return a.slot < b.slot
}

func versionTime(v *tariffs.Version) int64 {
	if v == nil {
		return -1 << 63
	}
	return v.Effective.UnixNano()
}

package pricing

import (
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// MonthDims are the dimensions an engine behind a Month groups by: every
// view of the month rolls up from them.
var MonthDims = []Dim{DimModel, DimGroup, DimHost, DimKey, DimTeam, DimUser, DimDay}

// BlendDays is the length of the blend window of a Month, in days before
// its end.
const BlendDays = 28

// Month is what a monthly report shows, built from one pass over the calls.
type Month struct {
	From, Until time.Time // [From, Until): midnight of the first days of the month and the next, in Zone
	Zone        *time.Location
	// Reconciliation is reconcile by model: rows, totals, explanations.
	Reconciliation *Reconciliation
	ByModel        []Group // by model, model group and host
	ByKey          []Group // by key, team and user, dearest first (SortByOfficial)
	ByTeam         []Group // by team, dearest first
	// ByProvider is by the tariff provider of the calls' models (Key.Provider),
	// dearest first; each group's currency is its provider's. The calls of
	// models no tariff knows make a group of their own, with Provider "".
	ByProvider []Group
	// ByTag is by request tag, dearest first, when the engine grouped by
	// tags (DimTag): a call's cost and tokens split evenly among its tags
	// as Chargeback splits them, its calls counted under each; nil
	// otherwise. Groups carry the month's currencies.
	ByTag      []Group
	Daily      []Group // by day
	ModelDaily []Group // by model and day
	// Blend is the per-model blend of the BlendDays calendar days before
	// Until, from BlendFrom, every call priced at the tariff in force at
	// Until, as the blend command does by default.
	Blend     *Blend
	BlendFrom time.Time
	Versions  []VersionUse // tariff versions that priced calls, by model then effective instant
	// Span is the first and last billing instant of the month's calls.
	Span Span
}

// Partial reports whether the calls end before the month's last day
// begins (in Zone): the data covers only part of the month. A month with
// no call is not partial, it is empty.
func (m *Month) Partial() bool {
	if m.Span.Last.IsZero() {
		return false
	}
	return m.Span.Last.Before(m.lastDay())
}

// lastDay is the start of the month's last day in Zone.
func (m *Month) lastDay() time.Time {
	lt := m.Until.In(m.Zone)
	return time.Date(lt.Year(), lt.Month(), lt.Day()-1, 0, 0, 0, 0, m.Zone)
}

// Days returns the days of the month, and the days its calls cover: from
// its first day through the day of the last billing instant, that day
// counted whole (all of them when the month is not Partial).
func (m *Month) Days() (month, covered int) {
	month = calendarDays(m.From, m.Until, m.Zone)
	if !m.Partial() {
		return month, month
	}
	lt := m.Span.Last.In(m.Zone)
	next := time.Date(lt.Year(), lt.Month(), lt.Day()+1, 0, 0, 0, 0, m.Zone)
	return month, calendarDays(m.From, next, m.Zone)
}

// calendarDays counts the days in zone from from's to until's midnight.
func calendarDays(from, until time.Time, zone *time.Location) int {
	a, b := from.In(zone), until.In(zone)
	da := time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
	db := time.Date(b.Year(), b.Month(), b.Day(), 0, 0, 0, 0, time.UTC)
	return int(db.Sub(da).Hours() / 24)
}

// VersionUse is a tariff version that priced calls of a model in the month.
type VersionUse struct {
	Model    *tariffs.Model
	Version  *tariffs.Version
	Calls    int64
	Official decimal.Decimal
}

// BlendFrom returns the start of a month's blend window: BlendDays
// calendar days in zone before until, and not before from.
func BlendFrom(from, until time.Time, zone *time.Location) time.Time {
	lt := until.In(zone)
	start := time.Date(lt.Year(), lt.Month(), lt.Day()-BlendDays, 0, 0, 0, 0, zone)
	if start.Before(from) {
		return from
	}
	return start
}

// ChangedProviders returns the providers of cat with a version taking
// effect in (from, until]: only for their models does pricing the calls of
// [from, until) at the tariff in force at until differ from pricing each
// at its own version.
func ChangedProviders(cat *tariffs.Catalog, from, until time.Time) map[*tariffs.Provider]bool {
	out := map[*tariffs.Provider]bool{}
	for _, p := range cat.Providers {
		for _, v := range p.Versions {
			if v.Effective.After(from) && !v.Effective.After(until) {
				out[p] = true
			}
		}
	}
	return out
}

// A MonthBuilder builds a Month from one pass over its calls. It owns what
// the month needs besides the month's own engine: when a provider's
// tariff changes within the blend window (BlendFrom to the month's end), a
// second engine that prices the window's calls of that provider's models
// at the tariff in force at the month's end, as the blend command does,
// fed by Observe. Otherwise the month's own sums serve, and the calls need
// not be observed (NeedsCalls is false): a database may sum them.
type MonthBuilder struct {
	opts    Options // the month engine's
	changed map[*tariffs.Provider]bool
	blend   *Engine // nil when no provider changed
}

// NewMonthBuilder returns the builder of the month [month.Since,
// month.Until), its days in month.Zone, billed as month.Billing says.
func NewMonthBuilder(cat *tariffs.Catalog, month Options) *MonthBuilder {
	month.Dims = MonthDims
	b := &MonthBuilder{opts: month}
	from := BlendFrom(month.Since, month.Until, month.Zone)
	if b.changed = ChangedProviders(cat, from, month.Until); len(b.changed) > 0 {
		b.blend = New(cat, Options{Billing: month.Billing, Since: from, Until: month.Until, Dims: []Dim{DimModel},
			Zone: month.Zone, Seen: allNew{}, TariffAt: month.Until})
	}
	return b
}

// Options returns the options of the month's own engine, the one Build
// takes: the month's, grouped by MonthDims.
func (b *MonthBuilder) Options() Options { return b.opts }

// NeedsCalls reports whether Build needs Observe to have seen the month's
// calls: whether a provider's tariff changes in the blend window.
func (b *MonthBuilder) NeedsCalls() bool { return b.blend != nil }

// Observe prices again, at the tariff in force at the month's end, each
// call of a changed provider's model that the month's engine found new
// and billed in the month.
func (b *MonthBuilder) Observe(c *ledger.Call, pc *PricedCall) error {
	if b.blend == nil {
		return nil
	}
	m := pc.Quote.Model
	if m != nil && b.changed[m.Provider] && pc.Outcome != Duplicate && pc.Outcome != Overlap && pc.Outcome != Outside {
		b.blend.AddPriced(c)
	}
	return b.blend.Err()
}

// Fill gives fill the engine Observe feeds, with its options, when
// NeedsCalls: a store of calls summed when read (tokenfare's state) adds
// them there instead of the calls going by Observe. The engine's sums of
// other providers' models are not used.
func (b *MonthBuilder) Fill(fill func(e *Engine, opts Options) error) error {
	if b.blend == nil {
		return nil
	}
	return fill(b.blend, b.blend.opts)
}

// Build builds the month from e, the engine that priced its calls with
// Options, after every call went by Observe when NeedsCalls.
func (b *MonthBuilder) Build(e *Engine) (*Month, error) {
	return MonthOf(e, b.opts.Since, b.opts.Until, b.blend)
}

// allNew is the Seen of an engine fed only calls another engine found new.
type allNew struct{}

func (allNew) FirstSeen(uint64, int64) (bool, error) { return true, nil }

// MonthOf builds the month [from, until) from an engine that priced its
// calls grouped by MonthDims, in the month's zone. The blend comes from the
// month's own sums, except for the models of the ChangedProviders of the
// blend window (BlendFrom to until): blend must have priced their calls of
// the window, grouped by model, at the tariff in force at until; it may be
// nil when no provider changed. A MonthBuilder gives it the blend it
// needs; MonthOf alone serves a month whose own sums hold the blend.
func MonthOf(e *Engine, from, until time.Time, blend *Engine) (*Month, error) {
	for _, d := range MonthDims {
		if !e.dims.has(d) {
			return nil, fmt.Errorf("month: the engine does not group by %s", d)
		}
	}
	m := &Month{From: from, Until: until, Zone: e.zone}
	byModel := e.Rollup([]Dim{DimModel})
	m.Reconciliation = byModel.Reconcile()
	if err := m.byGroupings(e); err != nil {
		return nil, err
	}
	SortByOfficial(m.ByKey)
	SortByOfficial(m.ByTeam)
	m.ByProvider = byModel.providerGroups()
	m.Span = e.Span()
	m.Daily = e.Rollup([]Dim{DimDay}).groups()
	m.ModelDaily = e.Rollup([]Dim{DimModel, DimDay}).groups()
	m.BlendFrom = BlendFrom(from, until, e.zone)
	within := e.Within(m.BlendFrom, until)
	within.opts.TariffAt = until // the same prices, but for the changed providers'
	w := within.Rollup([]Dim{DimModel})
	if changed := ChangedProviders(e.cat, m.BlendFrom, until); len(changed) > 0 {
		if blend == nil {
			return nil, fmt.Errorf("month: a tariff changes within the blend window %s to %s: price the window at the tariff in force at its end", m.BlendFrom, until)
		}
		w.table.buckets.deleteWhere(func(b *bucket) bool { return b.Model != nil && changed[b.Model.Provider] })
		for _, b := range blend.Rollup([]Dim{DimModel}).table.buckets.all() {
			if b.Model != nil && changed[b.Model.Provider] {
				w.mergeBucket(b.k, b)
			}
		}
	}
	m.Blend = w.BlendWindow(m.BlendFrom, until, ModePerModel)
	m.Versions = byModel.versionsUsed()
	return m, nil
}

// providerGroups returns the engine's calls grouped by the tariff
// provider of their model, dearest first.
func (e *Engine) providerGroups() []Group {
	gs := e.groupsBy(func(b *bucket) GroupKey {
		if b.Model == nil {
			return GroupKey{}
		}
		return GroupKey{Provider: b.Model.Provider.Name}
	}).groups
	sort.SliceStable(gs, func(i, j int) bool { return gs[i].Key.Provider < gs[j].Key.Provider })
	SortByOfficial(gs)
	return gs
}

// byGroupings fills the month's views by model group and host, by key,
// by team and by tag, in Reconcile's order, from the engine's buckets, or
// from the groups it spilled (Options.Runs) when it did: a spill
// keeps the day of its buckets, not their keys, teams or model groups.
func (m *Month) byGroupings(e *Engine) error {
	views := [][]Dim{{DimModel, DimGroup, DimHost}, {DimKey, DimTeam, DimUser}, {DimTeam}}
	if e.dims.has(DimTag) {
		views = append(views, []Dim{DimTag})
	}
	var groups [][]Group
	if err := e.runs.readable(); err != nil {
		return err // its groups went with its runs
	}
	if e.runs.files() > 0 {
		var err error
		if groups, err = e.streamedRollups(views...); err != nil {
			return err
		}
	} else {
		for _, v := range views {
			groups = append(groups, e.Rollup(v).groups())
		}
	}
	m.ByModel, m.ByKey, m.ByTeam = groups[0], groups[1], groups[2]
	if len(groups) > 3 {
		m.ByTag = tagGroups(groups[3], m.Reconciliation.Currencies)
	}
	return nil
}

// tagGroups returns the groups by tag split as Chargeback splits the
// calls of several tags, dearest first, each with the month's currencies.
func tagGroups(byTag []Group, currencies []string) []Group {
	lines := make([]*ChargebackLine, len(byTag))
	for i := range byTag {
		g := &byTag[i]
		lines[i] = &ChargebackLine{Key: g.Key, Calls: g.Calls, Tokens: g.Tokens, CacheHitTokens: g.CacheHitTokens,
			Official: g.Official, Recorded: g.Recorded, AtBlended: decimal.Zero}
	}
	split := splitTags(lines)
	out := make([]Group, len(split))
	for i, l := range split {
		out[i] = Group{Key: l.Key, Currencies: currencies, Calls: l.Calls, Tokens: l.Tokens, CacheHitTokens: l.CacheHitTokens,
			Official: l.Official, Recorded: l.Recorded, Gap: l.Diff, Ratio: ratio(l.Recorded, l.Official)}
	}
	SortByOfficial(out)
	return out
}

// groups returns the reconciliation groups of the engine's dimensions,
// of an engine that lists them (no Options.Runs: a rolled-up one).
func (e *Engine) groups() []Group { return e.sortedGroups(nil) }

// versionsUsed lists the versions that priced the engine's calls.
func (e *Engine) versionsUsed() []VersionUse {
	type mv struct {
		m *tariffs.Model
		v *tariffs.Version
	}
	uses := map[mv]*VersionUse{}
	for _, b := range e.table.buckets.all() {
		if b.k.outcome != Priced {
			continue
		}
		k := mv{b.Model, b.k.version}
		u := uses[k]
		if u == nil {
			u = &VersionUse{Model: b.Model, Version: b.k.version, Official: decimal.Zero}
			uses[k] = u
		}
		u.Calls += b.Calls
		u.Official = u.Official.Add(b.Official())
	}
	out := make([]VersionUse, 0, len(uses))
	for _, u := range uses {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Model.ID != out[j].Model.ID {
			return out[i].Model.ID < out[j].Model.ID
		}
		return out[i].Version.Effective.Before(out[j].Version.Effective)
	})
	return out
}

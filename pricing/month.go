package pricing

import (
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// MonthDims are the dimensions an engine behind a Month groups by: every
// view of the month rolls up from them.
var MonthDims = []Dim{DimModel, DimGroup, DimKey, DimTeam, DimUser, DimDay}

// BlendDays is the length of the blend window of a Month, in days before
// its end.
const BlendDays = 28

// Month is what a monthly report shows, built from one pass over the calls.
type Month struct {
	From, Until time.Time // [From, Until): midnight of the first days of the month and the next, in Zone
	Zone        *time.Location
	// Reconciliation is reconcile by model: rows, totals, explanations.
	Reconciliation *Reconciliation
	ByModel        []Group // by model and model group
	ByKey          []Group // by key, team and user
	Daily          []Group // by day
	ModelDaily     []Group // by model and day
	// Blend is the per-model blend of the BlendDays calendar days before
	// Until, from BlendFrom, every call priced at the tariff in force at
	// Until, as the blend command does by default.
	Blend     *Blend
	BlendFrom time.Time
	Versions  []VersionUse // tariff versions that priced calls, by model then effective instant
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

// TariffChangesWithin reports whether a version of cat takes effect in
// (from, until]: only then does pricing the calls of [from, until) at the
// tariff in force at until differ from pricing each at its own version.
func TariffChangesWithin(cat *tariffs.Catalog, from, until time.Time) bool {
	for _, p := range cat.Providers {
		for _, v := range p.Versions {
			if v.Effective.After(from) && !v.Effective.After(until) {
				return true
			}
		}
	}
	return false
}

// MonthOf builds the month [from, until) from an engine that priced its
// calls grouped by MonthDims, in the month's zone. blend, when not nil,
// priced the calls of the blend window (BlendFrom to until) grouped by
// model at the tariff in force at until; it is needed only when
// TariffChangesWithin that window, and the month's own buckets serve
// otherwise.
func MonthOf(e *Engine, from, until time.Time, blend *Engine) (*Month, error) {
	for _, d := range MonthDims {
		if !e.dims.has(d) {
			return nil, fmt.Errorf("month: the engine does not group by %s", d)
		}
	}
	m := &Month{From: from, Until: until, Zone: e.zone}
	byModel := e.Rollup([]Dim{DimModel})
	m.Reconciliation = byModel.Reconcile()
	m.ByModel = e.Rollup([]Dim{DimModel, DimGroup}).groups()
	m.ByKey = e.Rollup([]Dim{DimKey, DimTeam, DimUser}).groups()
	m.Daily = e.Rollup([]Dim{DimDay}).groups()
	m.ModelDaily = e.Rollup([]Dim{DimModel, DimDay}).groups()
	m.BlendFrom = BlendFrom(from, until, e.zone)
	if blend != nil {
		m.Blend = blend.Rollup([]Dim{DimModel}).BlendWindow(m.BlendFrom, until, ModePerModel)
	} else {
		if TariffChangesWithin(e.cat, m.BlendFrom, until) {
			return nil, fmt.Errorf("month: a tariff changes within the blend window %s to %s: price the window at the tariff in force at its end", m.BlendFrom, until)
		}
		w := e.Within(m.BlendFrom, until)
		w.opts.TariffAt = until // the same prices: no version changes in the window
		m.Blend = w.Rollup([]Dim{DimModel}).BlendWindow(m.BlendFrom, until, ModePerModel)
	}
	m.Versions = byModel.versionsUsed()
	return m, nil
}

// groups returns the reconciliation groups of the engine's dimensions.
func (e *Engine) groups() []Group { return e.reconcileGroups().Groups }

// versionsUsed lists the versions that priced the engine's calls.
func (e *Engine) versionsUsed() []VersionUse {
	type mv struct {
		m *tariffs.Model
		v *tariffs.Version
	}
	uses := map[mv]*VersionUse{}
	for _, b := range e.buckets {
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

package tariffs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

const defaultPeriodName = "standard"

// The years an instant in Unix nanoseconds can hold, whole.
const (
	minYear = 1678
	maxYear = 2261
)

// version converts one raw version. A version whose effective instant is
// missing or malformed is still checked through (its periods, prices and
// retirements), so one pass finds every problem, but placed is false: it
// cannot be put in order with the others.
func (c *converter) version(p *Provider, r *rawVersion, i int) (v *Version, placed bool) {
	line := c.lineOf("versions", i)
	v = &Version{Name: r.Name.Value, Note: r.Note.Value, Source: r.Source.Value,
		Zone: p.Zone, calendar: &p.Calendar, Line: line, named: r.Name.Value != ""}
	if r.Effective.Set {
		v.Line = r.Effective.Line
	}
	eff, placed := c.effective(r.Effective, line)
	if v.Name == "" {
		v.Name = r.Effective.Value
	}
	if v.Name == "" {
		v.Name = fmt.Sprintf("at line %d", line)
	}
	c.versionSources(p, v, r)
	if placed {
		v.Effective = eff.UTC()
		if eff.Second() != 0 || eff.Nanosecond() != 0 {
			c.warnf(r.Effective.Line, "version %s: effective %s is not on a whole minute (tariffs change on whole minutes: a typo?)", v.Name, r.Effective.Value)
		}
	}
	if r.Timezone.Set {
		v.Zone = c.zone(r.Timezone, r.Timezone.Line, "timezone")
	}
	if _, off := eff.In(v.Zone).Zone(); placed && off%60 != 0 {
		c.warnf(r.Effective.Line, "version %s: zone %s has an offset that is not whole minutes (a local mean time before standard time?)", v.Name, v.Zone)
	}
	c.promotion(v, r.Promotion)
	c.periods(v, r)
	if c.refusedAt("versions", i, "prices") {
		c.noPrices[v] = true
	}
	c.prices(v, r)
	c.tools(v, r)
	c.variants(v, r)
	c.retire(v, r)
	return v, placed
}

// versionSources reads the sources a version names (source, or the list
// sources) and sets its basis: the strongest kind among them, else the
// weakest of the provider's. A version given its own list should rest on
// two sources, one of them the provider's own word.
func (c *converter) versionSources(p *Provider, v *Version, r *rawVersion) {
	v.Basis = p.weakestSource()
	if r.Source.Set && len(r.Sources) > 0 {
		c.errorf(r.Source.Line, "version %s: give source or sources, not both", v.Name)
	}
	list := r.Sources
	if r.Source.Set && len(list) == 0 {
		list = []scalar{r.Source}
	}
	if len(list) == 0 {
		return
	}
	v.Basis = SourceUnstated
	for _, s := range list {
		if s.Value == "" {
			continue
		}
		v.Sources = append(v.Sources, s.Value)
		v.Basis = max(v.Basis, c.sourceKind(p, s, "version "+v.Name))
	}
	if len(v.Sources) > 0 {
		v.Source = v.Sources[0]
	}
	c.checkBasis(v, r)
}

// checkBasis warns when a version that lists its sources rests on fewer
// than two, or on secondary sources alone.
func (c *converter) checkBasis(v *Version, r *rawVersion) {
	if len(r.Sources) == 0 {
		return
	}
	line := r.Sources[0].Line
	if len(v.Sources) < 2 {
		c.warnf(line, "version %s: rests on one source; every version needs two independent sources", v.Name)
	}
	v.Unreadable = r.Unreadable.Value
	if v.Basis == SourceSecondary && v.Unreadable == "" {
		c.warnf(line, "version %s: rests on secondary sources only; add the provider's own page or announcement, or say why it cannot be read (official_unreadable)", v.Name)
	}
}

// effective reads a version's effective instant; ok is false, with the
// problem reported, when it is missing, malformed or out of range.
func (c *converter) effective(s scalar, line int) (time.Time, bool) {
	if !c.required(s, line, "version effective instant") {
		return time.Time{}, false
	}
	eff, err := time.Parse(time.RFC3339Nano, s.Value)
	if err != nil {
		c.errorf(s.Line, "effective %q is not an RFC 3339 instant with offset (e.g. 2026-08-16T16:00:00Z)", s.Value)
		return time.Time{}, false
	}
	if eff.Year() < minYear || eff.Year() > maxYear {
		c.errorf(s.Line, "effective %s is outside the years %d to %d that instants can hold", s.Value, minYear, maxYear)
		return time.Time{}, false
	}
	return eff, true
}

func firstLine(ss ...scalar) int {
	for _, s := range ss {
		if s.Set {
			return s.Line
		}
	}
	return 0
}

// periods reads the version's named periods into per-weekday day plans.
func (c *converter) periods(v *Version, r *rawVersion) {
	def := defaultPeriodName
	if r.DefaultPeriod.Set && !r.DefaultPeriod.bad {
		def = r.DefaultPeriod.Value
		if def == "" {
			c.errorf(r.DefaultPeriod.Line, "version %s: default_period is empty", v.Name)
		}
	}
	v.Periods = []string{def}
	var byMinute [7][24 * 60]uint8
	for _, rp := range r.Periods {
		if !c.required(rp.Name, max(firstLine(rp.Weekdays...), firstLine(rp.Windows...), v.Line), "period name") {
			continue
		}
		if indexOf(v.Periods, rp.Name.Value) >= 0 {
			c.errorf(rp.Name.Line, "version %s: period %q is defined twice", v.Name, rp.Name.Value)
			continue
		}
		if len(v.Periods) == 255 {
			c.errorf(rp.Name.Line, "version %s: too many periods", v.Name)
			return
		}
		v.Periods = append(v.Periods, rp.Name.Value)
		c.fillPeriod(v, rp, uint8(len(v.Periods)-1), &byMinute)
	}
	for wd := range byMinute {
		v.plans[wd] = planOf(&byMinute[wd])
	}
	for wd := range v.plans {
		v.dayMatters[wd] = !slices.Equal(v.plans[wd], v.plans[v.calendar.HolidaysAs]) ||
			!slices.Equal(v.plans[wd], v.plans[v.calendar.WorkdaysAs])
	}
}

func (c *converter) fillPeriod(v *Version, rp rawPeriod, idx uint8, byMinute *[7][24 * 60]uint8) {
	days := []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
	if len(rp.Weekdays) > 0 {
		days = days[:0]
		for _, s := range rp.Weekdays {
			wd, err := ParseWeekday(s.Value)
			if err != nil {
				c.errorf(s.Line, "version %s: period %q: %v", v.Name, rp.Name.Value, err)
				continue
			}
			days = append(days, wd)
		}
	}
	def := PeriodDef{Name: rp.Name.Value}
	if len(rp.Weekdays) > 0 {
		def.Weekdays = days
	}
	defer func() { v.Defs = append(v.Defs, def) }()
	if len(rp.Windows) == 0 {
		c.errorf(rp.Name.Line, "version %s: period %q has no windows", v.Name, rp.Name.Value)
	}
	for _, s := range rp.Windows {
		w, err := ParseWindow(s.Value)
		if err != nil {
			c.errorf(s.Line, "version %s: period %q: %v", v.Name, rp.Name.Value, err)
			continue
		}
		def.Windows = append(def.Windows, w)
		clash := uint8(0)
		for _, wd := range days {
			w.minutes(func(m int) {
				if cur := byMinute[wd][m]; cur != 0 && cur != idx {
					clash = cur
				}
				byMinute[wd][m] = idx
			})
		}
		if clash != 0 {
			c.errorf(s.Line, "version %s: window %s of period %q overlaps period %q", v.Name, w, rp.Name.Value, v.Periods[clash])
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// prices reads the version's rates per model, period and tier.
func (c *converter) prices(v *Version, r *rawVersion) {
	v.Prices = map[*Model]*ModelPrices{}
	if len(r.Prices) == 0 && !c.noPrices[v] {
		c.errorf(v.Line, "version %s prices no model (prices is required)", v.Name)
	}
	for _, e := range r.Prices {
		m := c.models[e.Model.Value]
		if m == nil {
			c.errorf(e.Model.Line, "version %s: prices for model %q, which is not defined under models", v.Name, e.Model.Value)
			continue
		}
		if v.Prices[m] != nil {
			c.errorf(e.Model.Line, "version %s: model %q is priced twice", v.Name, m.ID)
			continue
		}
		v.Prices[m] = &ModelPrices{Periods: c.periodRates(v, m.ID, e.Model.Line, e.Rates)}
	}
	c.tiers(v, v.Prices, r.Tiers, "this version")
}

// tiers reads the prompt-size tiers of the models of prices; whose names
// what prices them in messages ("this version", "service tier batch").
func (c *converter) tiers(v *Version, prices map[*Model]*ModelPrices, raws rawTiers, whose string) {
	for _, e := range raws {
		m := c.models[e.Model.Value]
		if m == nil || prices[m] == nil {
			c.errorf(e.Model.Line, "version %s: tiers for model %q, which %s does not price", v.Name, e.Model.Value, whose)
			continue
		}
		mp := prices[m]
		for _, t := range e.Tiers {
			if t.Above.bad {
				continue
			}
			above, err := strconv.ParseInt(t.Above.Value, 10, 64)
			if err != nil || above <= 0 {
				c.errorf(t.Line, "version %s: tier of %q: above %q is not a positive whole number of tokens", v.Name, m.ID, t.Above.Value)
				continue
			}
			if n := len(mp.Tiers); n > 0 && above <= mp.Tiers[n-1].Above {
				c.errorf(t.Above.Line, "version %s: tiers of %q must be in ascending order of above", v.Name, m.ID)
			}
			mp.Tiers = append(mp.Tiers, Tier{Above: above, Periods: c.periodRates(v, m.ID, t.Line, t.Prices)})
		}
	}
}

// periodRates reads one model's rates for every period of the version.
func (c *converter) periodRates(v *Version, model string, line int, r rawPeriodRates) []Rates {
	out := make([]Rates, len(v.Periods))
	seen := make([]bool, len(v.Periods))
	for i, name := range r.Periods {
		p := indexOf(v.Periods, name.Value)
		if p < 0 {
			c.errorf(name.Line, "version %s: model %q is priced for period %q, which is not defined (periods: %s)", v.Name, model, name.Value, strings.Join(v.Periods, ", "))
			continue
		}
		seen[p] = true
		out[p] = c.rates(v, model, name.Value, r.Rates[i])
	}
	for p, ok := range seen {
		if !ok {
			c.errorf(line, "version %s: model %q has no prices for period %q", v.Name, model, v.Periods[p])
		}
	}
	return out
}

func (c *converter) rates(v *Version, model, period string, r rawRates) Rates {
	var out Rates
	for u, s := range r.Price {
		if !s.Set || s.bad {
			continue
		}
		if d, ok := c.decimal(s, model+" "+period+" "+Usage(u).String()+" price"); ok {
			out.Set(Usage(u), d)
		}
	}
	for _, u := range []Usage{Input, Output} {
		if !r.Price[u].Set && !c.refused[r.Line] {
			c.errorf(r.Line, "version %s: model %q period %q: %s price is required", v.Name, model, period, u)
		}
	}
	return out
}

func (c *converter) retire(v *Version, r *rawVersion) {
	v.Retired = map[*Model]bool{}
	for _, s := range r.Retire {
		m := c.models[s.Value]
		switch {
		case m == nil:
			c.errorf(s.Line, "version %s: retires model %q, which is not defined under models", v.Name, s.Value)
		case v.Prices[m] != nil:
			c.errorf(s.Line, "version %s: model %q is both priced and retired", v.Name, s.Value)
		default:
			v.Retired[m] = true
		}
	}
}

// checkVersions checks the order of versions and that no model silently
// drops out of the price list.
func (c *converter) checkVersions(p *Provider, raws []rawVersion) {
	if len(raws) == 0 && !c.refusedAt("versions") {
		c.errorf(1, "versions: at least one version is required")
	}
	names := map[string]int{}
	for _, v := range p.Versions {
		if first, dup := names[v.Name]; dup {
			c.errorf(v.Line, "version name %q is used twice (first at line %d)", v.Name, first)
		}
		names[v.Name] = v.Line
	}
	for i := 1; i < len(p.Versions); i++ {
		prev, v := p.Versions[i-1], p.Versions[i]
		if !v.Effective.After(prev.Effective) {
			how := "is not after"
			if v.Effective.Equal(prev.Effective) {
				how = "takes effect at the same instant as"
			}
			c.errorf(v.Line, "%s %s %s: versions must be in order and may not overlap", v.label(), how, prev.label())
			continue
		}
		prev.End = v.Effective
		for _, m := range p.Models {
			if prev.Prices[m] != nil && v.Prices[m] == nil && !v.Retired[m] && !c.noPrices[v] {
				c.errorf(v.Line, "%s: model %q was priced in %s and is neither priced nor retired here", v.label(), m.ID, prev.label())
			}
		}
	}
}

// label names a version for a message, its instant once: "version NAME
// (INSTANT)" when it has a name of its own, else "version INSTANT" as the
// file writes it.
func (v *Version) label() string {
	if v.named {
		return fmt.Sprintf("version %s (%s)", v.Name, v.Effective.Format(time.RFC3339Nano))
	}
	return "version " + v.Name
}

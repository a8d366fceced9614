package litellm

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/tariffs"
)

// dayMinutes is which minutes of a UTC day are off-peak.
type dayMinutes [24 * 60]bool

// OffPeakRule is one rule of an off_peak_pricing block: UTC hours, on some
// weekdays of the weekday zone (every day when empty), or only on some
// dates of that zone (YYYY-MM-DD) when Dates is set.
type OffPeakRule struct {
	Hours    dayMinutes
	Weekdays []time.Weekday
	Dates    []string
}

// OffPeak is LiteLLM's off_peak_pricing block as meaning: the zone that
// decides weekdays and dates, the rules (off-peak when any matches; on a
// date some rule lists, only the rules listing it count), and the
// off-peak rates per 1M tokens.
type OffPeak struct {
	Zone  string
	Rules []OffPeakRule
	Rates tariffs.Rates
}

// isOffPeak reports whether minute u (UTC) of a day that is weekday wd and
// date d in the block's zone is off-peak.
func (o *OffPeak) isOffPeak(d string, wd time.Weekday, u int) bool {
	listed := false
	for _, r := range o.Rules {
		listed = listed || slices.Contains(r.Dates, d)
	}
	for _, r := range o.Rules {
		if listed {
			if slices.Contains(r.Dates, d) && r.Hours[u] {
				return true
			}
			continue
		}
		if len(r.Dates) > 0 || !r.Hours[u] {
			continue
		}
		if len(r.Weekdays) == 0 || slices.Contains(r.Weekdays, wd) {
			return true
		}
	}
	return false
}

// dates returns every date some rule lists, sorted.
func (o *OffPeak) dates() []string {
	seen := map[string]bool{}
	for _, r := range o.Rules {
		for _, d := range r.Dates {
			seen[d] = true
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// Diff describes the first way o and want differ in when they are
// off-peak, or "" when they agree on every weekday and listed date. The
// zone is compared as written; rates are compared apart.
func (o *OffPeak) Diff(want *OffPeak) string {
	if o.Zone != want.Zone {
		return fmt.Sprintf("weekday_timezone %q, want %q", o.Zone, want.Zone)
	}
	for wd := time.Sunday; wd <= time.Saturday; wd++ {
		for u := range 24 * 60 {
			if got, w := o.isOffPeak("", wd, u), want.isOffPeak("", wd, u); got != w {
				return fmt.Sprintf("on %s at %02d:%02d UTC the block says %s, the tariff %s", weekdayName(wd), u/60, u%60, peakWord(got), peakWord(w))
			}
		}
	}
	dates := append(o.dates(), want.dates()...)
	slices.Sort(dates)
	for _, d := range slices.Compact(dates) {
		t, err := time.Parse(time.DateOnly, d)
		if err != nil {
			return fmt.Sprintf("override date %q is not YYYY-MM-DD", d)
		}
		for u := range 24 * 60 {
			if got, w := o.isOffPeak(d, t.Weekday(), u), want.isOffPeak(d, t.Weekday(), u); got != w {
				return fmt.Sprintf("on %s at %02d:%02d UTC the block says %s, the tariff %s", d, u/60, u%60, peakWord(got), peakWord(w))
			}
		}
	}
	return ""
}

func peakWord(off bool) string {
	if off {
		return "off-peak"
	}
	return "peak"
}

var weekdayOrder = []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday, time.Sunday}

func weekdayName(wd time.Weekday) string { return strings.ToLower(wd.String()[:3]) }

// TimeOfUse returns the version of m in force at t and the indexes of its
// cheap and dear periods, when m is priced at t with two periods whose
// rates differ; ok is false for a flat-priced (or unpriced) model.
func TimeOfUse(m *tariffs.Model, t time.Time) (v *tariffs.Version, cheap, dear int, ok bool) {
	q := m.At(t)
	if q.Status != tariffs.Priced || len(q.Version.Periods) < 2 {
		return q.Version, 0, 0, false
	}
	mp := q.Prices
	for p := range q.Version.Periods {
		in := mp.Periods[p].Price(tariffs.Input)
		if in.LessThan(mp.Periods[cheap].Price(tariffs.Input)) {
			cheap = p
		}
		if in.GreaterThan(mp.Periods[dear].Price(tariffs.Input)) {
			dear = p
		}
		ok = ok || !mp.Periods[p].Equal(&mp.Periods[0])
	}
	return q.Version, cheap, dear, ok
}

// OffPeakFromTariff builds the block that makes LiteLLM charge m's tariff
// in force at t directly: the dear period's rates stay the entry's
// standard prices (returned as dear) and the block holds the cheap
// period's windows, converted to UTC hours, and rates. Holidays and
// make-up workdays from the local date of t on become override_dates.
// It fails where LiteLLM's block cannot say what the tariff says: more
// than two periods, tiers by prompt size, a zone whose UTC offset changes
// within a year of t, or a listed day with no off-peak minute.
func OffPeakFromTariff(m *tariffs.Model, t time.Time) (*OffPeak, *tariffs.Rates, error) {
	v, cheap, dear, ok := TimeOfUse(m, t)
	if !ok {
		return nil, nil, fmt.Errorf("%s is not priced by time of day at %s", m.ID, t.UTC().Format(time.RFC3339))
	}
	if len(v.Periods) != 2 {
		return nil, nil, fmt.Errorf("%s: version %s has %d periods; off_peak_pricing holds one off-peak rate set", m.ID, v.Name, len(v.Periods))
	}
	mp := v.Prices[m]
	if len(mp.Tiers) > 0 {
		return nil, nil, fmt.Errorf("%s: version %s has tiers by prompt size, which off_peak_pricing replaces", m.ID, v.Name)
	}
	_, off := t.In(v.Zone).Zone()
	for mo := 1; mo <= 12; mo++ {
		if _, o := t.AddDate(0, mo, 0).In(v.Zone).Zone(); o != off {
			return nil, nil, fmt.Errorf("%s: zone %s changes its UTC offset (daylight saving): UTC hours cannot follow its windows", m.ID, v.Zone)
		}
	}
	local := localPlan(v)
	utc := func(wd time.Weekday) dayMinutes {
		var d dayMinutes
		for u := range 24 * 60 {
			l := ((u+off/60)%(24*60) + 24*60) % (24 * 60)
			d[u] = local[wd][l] == cheap
		}
		return d
	}
	o := &OffPeak{Zone: v.Zone.String(), Rates: mp.Periods[cheap]}
	for _, wd := range weekdayOrder {
		h := utc(wd)
		if h == (dayMinutes{}) {
			continue
		}
		if i := o.ruleWith(h, false); i >= 0 {
			o.Rules[i].Weekdays = append(o.Rules[i].Weekdays, wd)
			continue
		}
		o.Rules = append(o.Rules, OffPeakRule{Hours: h, Weekdays: []time.Weekday{wd}})
	}
	y, mo, d := t.In(v.Zone).Date()
	from := tariffs.DateOf(y, mo, d)
	cal := &m.Provider.Calendar
	for _, days := range []struct {
		dates map[tariffs.Date]string
		as    time.Weekday
	}{{cal.Holidays, cal.HolidaysAs}, {cal.Workdays, cal.WorkdaysAs}} {
		var list []string
		for dt := range days.dates {
			if dt >= from {
				list = append(list, dt.String())
			}
		}
		if len(list) == 0 {
			continue
		}
		sort.Strings(list)
		h := utc(days.as)
		if h == (dayMinutes{}) {
			return nil, nil, fmt.Errorf("%s: on %s no minute is off-peak, which override_dates cannot say", m.ID, list[0])
		}
		if i := o.ruleWith(h, true); i >= 0 {
			o.Rules[i].Dates = append(o.Rules[i].Dates, list...)
			sort.Strings(o.Rules[i].Dates)
			continue
		}
		o.Rules = append(o.Rules, OffPeakRule{Hours: h, Dates: list})
	}
	return o, &mp.Periods[dear], nil
}

// datesRunOut says when the holidays an off_peak_pricing block knows run
// out within tariffs.CalendarNotice of at (or have run out before it):
// the block's last override date, or the day the tariff's calendar stops
// being certain, whichever comes first. After it, LiteLLM charges every
// day by its weekday. It returns "" when neither is near, or when the
// tariff has no calendar and the block lists no date.
func datesRunOut(o *OffPeak, m *tariffs.Model, at time.Time) string {
	cal := &m.Provider.Calendar
	final := cal.FinalUntil()
	dates := o.dates()
	if final == 0 && len(dates) == 0 {
		return ""
	}
	zone := m.Provider.Zone
	why := ""
	var until time.Time
	if final != 0 {
		until = time.Date(int(final/10000), time.Month(final/100%100), int(final%100), 0, 0, 0, 0, zone)
		why = fmt.Sprintf("the tariff's holiday calendar is certain only until %s", until.AddDate(0, 0, -1).Format(time.DateOnly))
		if cal.Provisional[until.Year()] {
			why += fmt.Sprintf(" (%d is provisional)", until.Year())
		}
	}
	if n := len(dates); n > 0 {
		last, err := time.ParseInLocation(time.DateOnly, dates[n-1], zone)
		if end := last.AddDate(0, 0, 1); err == nil && (until.IsZero() || end.Before(until)) {
			until, why = end, "the block's override_dates run out on "+dates[n-1]
		}
	}
	if until.Sub(at) > tariffs.CalendarNotice {
		return ""
	}
	return why + ": after it LiteLLM charges holidays and make-up workdays by their weekday; " +
		"rewrite the block with `tokenfare blend --off-peak-pricing` once the tariff lists the next dates"
}

// ruleWith returns the rule with hours h (a dated one when dated), or -1.
func (o *OffPeak) ruleWith(h dayMinutes, dated bool) int {
	for i, r := range o.Rules {
		if r.Hours == h && (len(r.Dates) > 0) == dated {
			return i
		}
	}
	return -1
}

// localPlan returns the period of each local minute of each weekday.
func localPlan(v *tariffs.Version) [7][24 * 60]int {
	var plan [7][24 * 60]int
	for i, def := range v.Defs {
		p := slices.Index(v.Periods, def.Name)
		if p < 0 {
			p = i + 1
		}
		days := def.Weekdays
		if len(days) == 0 {
			days = weekdayOrder
		}
		for _, wd := range days {
			for _, w := range def.Windows {
				for mi := w.Start; mi != w.End; mi = (mi + 1) % (24 * 60) {
					plan[wd][mi] = p
					if w.End == 24*60 && mi == 24*60-1 {
						break
					}
				}
			}
		}
	}
	return plan
}

// hoursText writes a day's off-peak minutes as LiteLLM's "HH:MM-HH:MM"
// windows: runs in order, a run to midnight ending "00:00", the whole day
// "00:00-00:00".
func hoursText(h dayMinutes) []string {
	var out []string
	for s := 0; s < 24*60; s++ {
		if !h[s] {
			continue
		}
		e := s
		for e < 24*60 && h[e] {
			e++
		}
		out = append(out, fmt.Sprintf("%02d:%02d-%02d:%02d", s/60, s%60, e/60%24, e%60))
		s = e
	}
	return out
}

// Lines renders the block's content as YAML lines (relative indentation),
// in the layout of LiteLLM's documentation. Rates are per token.
func (o *OffPeak) Lines() []string {
	out := []string{"weekday_timezone: " + o.Zone, "windows:"}
	for _, r := range o.Rules {
		hs := hoursText(r.Hours)
		quoted := make([]string, len(hs))
		for i, h := range hs {
			quoted[i] = strconv.Quote(h)
		}
		if len(quoted) == 1 {
			out = append(out, "  - hours_utc: "+quoted[0])
		} else {
			out = append(out, "  - hours_utc: ["+strings.Join(quoted, ", ")+"]")
		}
		if len(r.Weekdays) > 0 {
			names := make([]string, len(r.Weekdays))
			for i, wd := range r.Weekdays {
				names[i] = weekdayName(wd)
			}
			out = append(out, "    weekdays: ["+strings.Join(names, ", ")+"]")
		}
		if len(r.Dates) > 0 {
			ds := make([]string, len(r.Dates))
			for i, d := range r.Dates {
				ds[i] = strconv.Quote(d)
			}
			out = append(out, "    override_dates: ["+strings.Join(ds, ", ")+"]")
		}
	}
	for _, f := range Fields {
		if f.Usage == tariffs.Reasoning && !o.Rates.Listed(tariffs.Reasoning) {
			continue
		}
		out = append(out, f.Key+": "+FormatPerToken(o.Rates.Price(f.Usage)))
	}
	return out
}

// ReadOffPeak reads an off_peak_pricing block as LiteLLM would: malformed
// windows, weekdays or dates never match, and are reported in problems.
func ReadOffPeak(n *yaml.Node) (*OffPeak, []string) {
	o := &OffPeak{Zone: "UTC"}
	var problems []string
	if z := scalarOf(n, "weekday_timezone"); z != "" {
		o.Zone = z
	}
	if _, h := lookup(n, "hours_utc"); h != nil {
		hours, ps := readHours(h)
		problems = append(problems, ps...)
		o.Rules = append(o.Rules, OffPeakRule{Hours: hours})
	}
	if _, ws := lookup(n, "windows"); ws != nil && ws.Kind == yaml.SequenceNode {
		for _, w := range ws.Content {
			w = deref(w)
			var r OffPeakRule
			_, h := lookup(w, "hours_utc")
			hours, ps := readHours(h)
			problems = append(problems, ps...)
			r.Hours = hours
			if _, wd := lookup(w, "weekdays"); wd != nil {
				for _, s := range listOf(wd) {
					d, ok := parseISOWeekday(s)
					if !ok {
						problems = append(problems, fmt.Sprintf("weekday %q is not a weekday", s))
						continue
					}
					r.Weekdays = append(r.Weekdays, d)
				}
				if len(r.Weekdays) == 0 {
					continue // a rule whose weekdays all fail never matches
				}
			}
			if _, od := lookup(w, "override_dates"); od != nil {
				for _, s := range listOf(od) {
					if _, err := time.Parse(time.DateOnly, s); err != nil {
						problems = append(problems, fmt.Sprintf("override date %q is not YYYY-MM-DD", s))
						continue
					}
					r.Dates = append(r.Dates, s)
				}
			}
			o.Rules = append(o.Rules, r)
		}
	}
	for _, f := range Fields {
		if _, v := lookup(n, f.Key); v != nil {
			if d, err := PerMillion(v); err == nil {
				o.Rates.Set(f.Usage, d)
			} else {
				problems = append(problems, fmt.Sprintf("%s: %v", f.Key, err))
			}
		}
	}
	return o, problems
}

func listOf(n *yaml.Node) []string {
	n = deref(n)
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, c := range n.Content {
		if c = deref(c); c.Kind == yaml.ScalarNode {
			out = append(out, c.Value)
		}
	}
	return out
}

func readHours(n *yaml.Node) (dayMinutes, []string) {
	var d dayMinutes
	var problems []string
	for _, s := range listOf(n) {
		w, err := parseUTCWindow(s)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for mi := w[0]; ; mi = (mi + 1) % (24 * 60) {
			d[mi] = true
			if (mi+1)%(24*60) == w[1] {
				break
			}
		}
	}
	return d, problems
}

// parseUTCWindow reads LiteLLM's "HH:MM-HH:MM": start inclusive, end
// exclusive, wrapping midnight when the end is not after the start;
// "00:00-00:00" is the whole day.
func parseUTCWindow(s string) ([2]int, error) {
	a, b, ok := strings.Cut(s, "-")
	sm, err1 := clock(a)
	em, err2 := clock(b)
	if !ok || err1 != nil || err2 != nil {
		return [2]int{}, fmt.Errorf("window %q is not HH:MM-HH:MM", s)
	}
	return [2]int{sm, em}, nil
}

func clock(s string) (int, error) {
	t, err := time.Parse("15:04", strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	return t.Hour()*60 + t.Minute(), nil
}

// parseISOWeekday reads 1-7 (Monday = 1) or an English name or
// abbreviation.
func parseISOWeekday(s string) (time.Weekday, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > 7 {
			return 0, false
		}
		return time.Weekday(n % 7), true
	}
	wd, err := tariffs.ParseWeekday(s)
	return wd, err == nil
}

// RatesDiff names the first off-peak rate of o that differs from want,
// or "". A rate the block leaves out is the entry's standard rate (std).
func (o *OffPeak) RatesDiff(want, std *tariffs.Rates) (field, got, bound string) {
	for _, f := range Fields {
		w := want.Price(f.Usage)
		g := decimal.Decimal{}
		switch {
		case o.Rates.Listed(f.Usage):
			g = o.Rates.Price(f.Usage)
		case f.Usage == tariffs.Reasoning && !want.Listed(tariffs.Reasoning):
			continue
		case std != nil:
			g = std.Price(f.Usage)
		}
		if !g.Equal(w) {
			return f.Key, FormatPerToken(g), FormatPerToken(w)
		}
	}
	return "", "", ""
}

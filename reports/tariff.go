package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/tokenfare/tokenfare/reports/textout"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Tariff writes what model m costs, as `tariffs show` prints it: its
// provider, zone and billing instant, every version with the model's
// status in it, and for the version in force at at the periods with their
// local windows and the rates per period, its prompt tiers, service tiers
// and regions; at on the tariff's local clock and the holiday or make-up
// workday that decides its periods; with calendar the whole holiday
// calendar; and the provider's sources. Formats: Table, JSON.
func Tariff(w io.Writer, f Format, m *tariffs.Model, at time.Time, calendar bool) error {
	doc := newTariffDoc(m, at, calendar)
	switch f {
	case Table:
		return textTariff(&textout.Escaping{W: w}, doc) // names from tariff files act on no terminal
	case JSON:
		return writeJSON(w, doc)
	}
	return errFormat("a tariff", f)
}

// tariffDoc is the stable JSON shape of `tariffs show`: a model, the
// version in force at an instant with its periods and rates, and its
// provider's versions, calendar and sources.
type tariffDoc struct {
	Model       string         `json:"model"`
	Provider    string         `json:"provider"`
	Names       []string       `json:"names"`
	Currency    string         `json:"currency"`
	Timezone    string         `json:"timezone"`
	BillingTime string         `json:"billing_time"`
	At          string         `json:"at"`
	Local       string         `json:"local"`         // At on the local clock of the version in force (else the provider's)
	Day         *specialDayDoc `json:"day,omitempty"` // the holiday or make-up workday that decides the periods
	Status      string         `json:"status"`
	Version     *versionDoc    `json:"version,omitempty"`
	Period      string         `json:"period,omitempty"`
	Periods     []periodDoc    `json:"periods,omitempty"`
	Rates       []ratesDoc     `json:"rates,omitempty"`
	Tiers       []tierDoc      `json:"tiers,omitempty"`
	// Variants are the model's service tiers and regions in the version:
	// each by the multiplier of the token prices, or with rates of its own.
	Variants []variantDoc `json:"variants,omitempty"`
	Calendar *calendarDoc `json:"calendar,omitempty"` // with --calendar
	days     [2]int       // holidays and make-up workdays of the calendar
	local    time.Time    // At on the local clock, for text`
	Versions []versionDoc `json:"versions"`
	Sources  []sourceDoc  `json:"sources"`
}

type versionDoc struct {
	Name      string        `json:"name"`
	Effective string        `json:"effective"`
	End       string        `json:"end,omitempty"`
	Timezone  string        `json:"timezone"`
	Status    string        `json:"status"`
	Note      string        `json:"note,omitempty"`
	Source    string        `json:"source,omitempty"`    // the version's first own source, if the file names one
	Sources   []string      `json:"sources,omitempty"`   // every source the version names
	Basis     string        `json:"basis"`               // the kind of source its rates rest on
	Promotion *promotionDoc `json:"promotion,omitempty"` // the version's prices are a promotion
}

// promotionDoc is a version's promotion: its last day ("" until further
// notice) and whether that end had passed at the instant shown.
type promotionDoc struct {
	Until string `json:"until"`
	Note  string `json:"note,omitempty"`
	Ended bool   `json:"ended"`
}

type periodDoc struct {
	Name     string   `json:"name"`
	Weekdays []string `json:"weekdays,omitempty"`
	Windows  []string `json:"windows"`
	Default  bool     `json:"default,omitempty"`
}

type ratesDoc struct {
	Period string            `json:"period"`
	Prices map[string]string `json:"prices"` // usage → price per 1M tokens (request: per call)
}

type tierDoc struct {
	Above int64      `json:"above"`
	Rates []ratesDoc `json:"rates"`
}

type variantDoc struct {
	ServiceTier string     `json:"service_tier"`
	Region      string     `json:"region,omitempty"`
	Multiplier  string     `json:"multiplier,omitempty"` // of the standard token prices; absent with rates of its own
	Rates       []ratesDoc `json:"rates,omitempty"`      // the tier's own rates (base prompt tier)
}

// variantDocs lists the model's service tiers alone and regions alone;
// a tier in a region combines the two.
func variantDocs(ver *tariffs.Version, mp *tariffs.ModelPrices) []variantDoc {
	var out []variantDoc
	for _, x := range mp.Variants {
		if x.Region != "" && x.Service != tariffs.Standard {
			continue
		}
		vv := variantDoc{ServiceTier: x.Service.String(), Region: x.Region}
		if x.Multiplier.IsZero() {
			vv.Rates = ratesDocs(ver, x.Prices.Periods)
		} else {
			vv.Multiplier = x.Multiplier.String()
		}
		out = append(out, vv)
	}
	return out
}

type calendarDoc struct {
	HolidaysAs  string   `json:"holidays_as"`
	WorkdaysAs  string   `json:"workdays_as"`
	FirstYear   int      `json:"first_year"`  // the years the calendar covers
	LastYear    int      `json:"last_year"`   //
	Provisional []int    `json:"provisional"` // years of which only the listed days are certain
	Holidays    []dayDoc `json:"holidays"`
	Workdays    []dayDoc `json:"workdays"`
}

// specialDayDoc is a holiday or make-up workday and the weekday whose
// periods apply on it.
type specialDayDoc struct {
	Kind string `json:"kind"` // holiday or workday
	Name string `json:"name,omitempty"`
	As   string `json:"as"` // mon..sun
}

type dayDoc struct {
	Date string `json:"date"`
	Name string `json:"name,omitempty"`
}

type sourceDoc struct {
	URL     string `json:"url"`
	Kind    string `json:"kind"` // official, changelog, secondary or unstated
	Checked string `json:"checked"`
	Note    string `json:"note,omitempty"`
}

func newTariffDoc(m *tariffs.Model, at time.Time, calendar bool) tariffDoc {
	p := m.Provider
	q := m.At(at)
	v := tariffDoc{Model: m.ID, Provider: p.Name, Names: m.Names, Currency: p.Currency, Timezone: p.Zone.String(),
		BillingTime: p.Billing.String(), At: at.Format(time.RFC3339), local: at.In(p.Zone), // the version's clock below
		Status: q.Status.String(), days: [2]int{len(p.Calendar.Holidays), len(p.Calendar.Workdays)}}
	if calendar && v.days[0]+v.days[1] > 0 {
		v.Calendar = newCalendarDoc(&p.Calendar)
	}
	for _, ver := range p.Versions {
		v.Versions = append(v.Versions, newVersionDoc(m, ver, at))
	}
	for _, s := range p.Sources {
		v.Sources = append(v.Sources, sourceDoc{URL: s.URL, Kind: s.Kind.String(), Checked: s.Checked, Note: s.Note})
	}
	if q.Version == nil {
		v.Local = v.local.Format(time.RFC3339Nano)
		return v
	}
	vv := newVersionDoc(m, q.Version, at)
	v.Version = &vv
	v.Period = q.PeriodName()
	v.Periods = periodDocs(q.Version)
	day := q.Version.DayOf(at)
	v.local = day.Local
	v.Local = v.local.Format(time.RFC3339Nano)
	if day.Kind != "" {
		v.Day = &specialDayDoc{Kind: day.Kind, Name: day.Name, As: weekdayName(day.As)}
	}
	if q.Prices != nil {
		v.Rates = ratesDocs(q.Version, q.Prices.Periods)
		for _, t := range q.Prices.Tiers {
			v.Tiers = append(v.Tiers, tierDoc{Above: t.Above, Rates: ratesDocs(q.Version, t.Periods)})
		}
		v.Variants = variantDocs(q.Version, q.Prices)
	}
	return v
}

func newVersionDoc(m *tariffs.Model, ver *tariffs.Version, at time.Time) versionDoc {
	vv := versionDoc{Name: ver.Name, Effective: ver.Effective.Format(time.RFC3339), Timezone: ver.Zone.String(),
		Status: m.StatusIn(ver).String(), Note: ver.Note, Source: ver.Source, Sources: ver.Sources, Basis: ver.Basis.String()}
	if pr := ver.PromotionOf(m); pr != nil {
		vv.Promotion = &promotionDoc{Note: pr.Note, Ended: pr.EndedBy(at)}
		if !pr.Open() {
			vv.Promotion.Until = pr.LastDay.String()
		}
	}
	if !ver.End.IsZero() {
		vv.End = ver.End.Format(time.RFC3339)
	}
	return vv
}

func periodDocs(ver *tariffs.Version) []periodDoc {
	out := []periodDoc{{Name: ver.Periods[0], Windows: []string{"all other time"}, Default: true}}
	for _, d := range ver.Defs {
		pv := periodDoc{Name: d.Name}
		for _, wd := range d.Weekdays {
			pv.Weekdays = append(pv.Weekdays, weekdayName(wd))
		}
		for _, w := range d.Windows {
			pv.Windows = append(pv.Windows, w.String())
		}
		out = append(out, pv)
	}
	return out
}

func ratesDocs(ver *tariffs.Version, rates []tariffs.Rates) []ratesDoc {
	var out []ratesDoc
	for i := range rates {
		r := &rates[i]
		prices := map[string]string{}
		for u := range tariffs.NumUsage {
			// 1-hour writes and tools appear only where the tariff prices
			// them: elsewhere they are unpriced, not free.
			if shownAlways(tariffs.Usage(u)) || r.Priced(tariffs.Usage(u)) {
				prices[tariffs.Usage(u).String()] = r.Price(tariffs.Usage(u)).String()
			}
		}
		out = append(out, ratesDoc{Period: ver.Periods[i], Prices: prices})
	}
	return out
}

func newCalendarDoc(c *tariffs.Calendar) *calendarDoc {
	days := func(m map[tariffs.Date]string) []dayDoc {
		out := []dayDoc{}
		for d, n := range m {
			out = append(out, dayDoc{Date: d.String(), Name: n})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Date < out[j].Date })
		return out
	}
	v := &calendarDoc{HolidaysAs: weekdayName(c.HolidaysAs), WorkdaysAs: weekdayName(c.WorkdaysAs),
		FirstYear: c.FirstYear, LastYear: c.LastYear, Provisional: []int{},
		Holidays: days(c.Holidays), Workdays: days(c.Workdays)}
	for y := range c.Provisional {
		v.Provisional = append(v.Provisional, y)
	}
	sort.Ints(v.Provisional)
	return v
}

// years says which years the calendar covers and which are provisional.
func (c *calendarDoc) years() string {
	out := fmt.Sprintf("%d to %d", c.FirstYear, c.LastYear)
	if c.FirstYear == c.LastYear {
		out = fmt.Sprint(c.FirstYear)
	}
	for _, y := range c.Provisional {
		out += fmt.Sprintf(", %d provisional (only its listed days are certain)", y)
	}
	return out
}

// weekdayName writes a weekday as tariff files do: mon..sun.
func weekdayName(wd time.Weekday) string { return strings.ToLower(wd.String()[:3]) }

// textTariff writes a tariff document for reading.
func textTariff(out io.Writer, v tariffDoc) error {
	w := &textout.Writer{W: out}
	w.Printf("model     %s (%s)\n", v.Model, v.Provider)
	w.Printf("names     %s\n", strings.Join(v.Names, ", "))
	w.Printf("currency  %s   zone %s   billed at call %s\n", v.Currency, v.Timezone, v.BillingTime)
	w.Printf("at        %s: %s", v.At, v.Status)
	if v.Period != "" {
		w.Printf(", period %s", v.Period)
	}
	tz := v.Timezone
	if v.Version != nil {
		tz = v.Version.Timezone
	}
	w.Printf("\nlocal     %s (%s)\n", v.local.Format("Mon 2006-01-02 15:04:05 -07:00"), tz)
	if v.Day != nil {
		name := v.Day.Name
		if name == "" {
			name = "(no name in the calendar)"
		}
		w.Printf("%-9s %s: periods as on %s\n", v.Day.Kind, name, v.Day.As)
	}
	w.Printf("\nversions\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, ver := range v.Versions {
		mark := " "
		if v.Version != nil && ver.Name == v.Version.Name {
			mark = "*"
		}
		fmt.Fprintf(tw, " %s %s\tfrom %s\t%s\t%s source%s\n", mark, ver.Name, ver.Effective, ver.Status, ver.Basis, ver.Promotion.text())
	}
	tw.Flush()
	if v.Version != nil {
		w.Printf("\nperiods of %s (local time, %s)\n", v.Version.Name, v.Version.Timezone)
		for _, p := range v.Periods {
			days := "every day"
			if len(p.Weekdays) > 0 {
				days = strings.Join(p.Weekdays, " ")
			}
			if p.Default {
				days = ""
			}
			w.Printf("  %-10s %-22s %s\n", p.Name, days, strings.Join(p.Windows, ", "))
		}
	}
	if len(v.Rates) > 0 {
		unit := "request: per call"
		for _, u := range tariffs.Tools {
			if _, ok := v.Rates[0].Prices[u.String()]; ok {
				unit += "; tools: per use"
				break
			}
		}
		w.Printf("\nrates in %s per 1M tokens (%s), resting on a%s %s source", v.Currency, unit, article(v.Version.Basis), v.Version.Basis)
		if len(v.Version.Sources) > 0 {
			w.Printf(": %s", strings.Join(v.Version.Sources, ", "))
		}
		w.Printf("\n")
		if pr := v.Version.Promotion; pr != nil && pr.Ended {
			w.Printf("note: these rates rest on a promotion whose stated end (%s) has passed; the price since is not in the catalog\n", pr.Until)
		}
		textRates(w, "", v.Rates)
		for _, t := range v.Tiers {
			textRates(w, fmt.Sprintf("prompt > %d: ", t.Above), t.Rates)
		}
		textVariants(w, v.Variants)
	}
	if v.Calendar == nil && v.days[0]+v.days[1] > 0 {
		w.Printf("\ncalendar: %d holiday(s), %d make-up workday(s); --calendar lists them\n", v.days[0], v.days[1])
	}
	if v.Calendar != nil {
		w.Printf("\ncalendar: holidays as %s, make-up workdays as %s; covers %s\n", v.Calendar.HolidaysAs, v.Calendar.WorkdaysAs, v.Calendar.years())
		for _, d := range v.Calendar.Holidays {
			w.Printf("  holiday  %s  %s\n", d.Date, d.Name)
		}
		for _, d := range v.Calendar.Workdays {
			w.Printf("  workday  %s  %s\n", d.Date, d.Name)
		}
	}
	w.Printf("\nsources\n")
	for _, s := range v.Sources {
		w.Printf("  %-9s %s (checked %s)\n", s.Kind, s.URL, s.Checked)
	}
	return w.Err
}

// shownAlways reports whether a usage type is shown for every rate set:
// the tokens and the request fee; 1-hour writes and tools are shown where
// a rate set prices them.
func shownAlways(u tariffs.Usage) bool { return u != tariffs.CacheWrite1h && !u.IsTool() }

func textRates(w *textout.Writer, prefix string, rates []ratesDoc) {
	var cols []string
	for u := range tariffs.NumUsage {
		name := tariffs.Usage(u).String()
		shown := shownAlways(tariffs.Usage(u))
		for _, r := range rates {
			_, priced := r.Prices[name]
			shown = shown || priced
		}
		if shown {
			cols = append(cols, name)
		}
	}
	// Columns at least 22 and 12 wide, wider for a longer name, so that a
	// tier's prefix or cache_write_1h does not run into its neighbour.
	first := len(prefix + "period")
	for _, r := range rates {
		first = max(first, utf8.RuneCountInString(prefix+r.Period))
	}
	first = max(first, 22)
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = max(12, len(c)+1)
	}
	w.Printf("  %-*s", first, prefix+"period")
	for i, c := range cols {
		w.Printf(" %*s", widths[i], c)
	}
	w.Printf("\n")
	for _, r := range rates {
		w.Printf("  %-*s", first, prefix+r.Period)
		for i, c := range cols {
			p, ok := r.Prices[c]
			if !ok {
				p = "-"
			}
			w.Printf(" %*s", widths[i], p)
		}
		w.Printf("\n")
	}
}

// article is "n" before a kind that starts with a vowel sound.
func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "n"
	}
	return ""
}

// textVariants lists the model's service tiers and regions: a multiplier
// of the token prices, or a tier's own rates.
func textVariants(w *textout.Writer, vs []variantDoc) {
	if len(vs) == 0 {
		return
	}
	w.Printf("\nservice tiers and regions (tools and request fees unchanged)\n")
	for _, x := range vs {
		name := x.ServiceTier
		if x.Region != "" {
			name = "region " + x.Region
		}
		if x.Multiplier != "" {
			w.Printf("  %-22s × %s of the token prices\n", name, x.Multiplier)
			continue
		}
		w.Printf("  %-22s rates of its own:\n", name)
		textRates(w, name+": ", x.Rates)
	}
}

// text is the promotion as the list of versions shows it: "; promotion
// through 2026-11-21 (ended)", or "" for no promotion.
func (p *promotionDoc) text() string {
	if p == nil {
		return ""
	}
	s := "; promotion until further notice"
	if p.Until != "" {
		s = "; promotion through " + p.Until
	}
	if p.Ended {
		s += " (ended)"
	}
	return s
}

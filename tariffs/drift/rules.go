package drift

import (
	"fmt"
	"sort"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
)

// span is a range of instants [from, until).
type span struct{ from, until time.Time }

// compareRules compares when the cheaper rates apply. The catalog's cheaper
// rates are those of its cheapest period (by input, then output price) in
// the version in force at at; the other side's are LiteLLM's off-peak
// block or genai-prices' cheaper time-of-day price.
func compareRules(db *Database, p pair, q *tariffs.Quote, at time.Time) []Finding {
	v := q.Version
	cheap, flat := cheapestPeriod(q.Prices)
	other := p.e.timeOfUse(at)
	switch {
	case flat && !other:
		return nil
	case flat:
		return []Finding{{Kind: RulesDiffer, Database: db, Model: p.m, Entry: p.e, Period: q.PeriodName(),
			Note: fmt.Sprintf("%s charges by time of day; the catalog has one price in version %s", p.e.Format, v.Name)}}
	case !other:
		return []Finding{{Kind: RulesDiffer, Database: db, Model: p.m, Entry: p.e, Period: q.PeriodName(),
			Note: fmt.Sprintf("the catalog charges by time of day (%d periods in version %s); %s has one price", len(v.Periods), v.Name, p.e.Format)}}
	}
	var out []Finding
	more := 0
	for _, s := range rulesSpans(p, v, at) {
		scan(s, func(from, until time.Time, catName, otherName string) {
			if len(out) == maxIntervals {
				more++
				return
			}
			out = append(out, Finding{Kind: RulesDiffer, Database: db, Model: p.m, Entry: p.e, Period: catName, From: from, Until: until,
				Note: fmt.Sprintf("catalog %s, %s %s", catName, p.e.Format, otherName)})
		}, func(t time.Time) (bool, bool, string, string) {
			cq := p.m.At(t)
			if cq.Version != v || cq.Status != tariffs.Priced {
				return false, false, "", ""
			}
			o, name := p.e.cheapAt(t)
			return true, (cq.Period == cheap) != o, cq.PeriodName(), name
		})
	}
	if more > 0 {
		out = append(out, Finding{Kind: RulesDiffer, Database: db, Model: p.m, Entry: p.e,
			Note: fmt.Sprintf("and %d more intervals where they disagree", more)})
	}
	return out
}

// cheapestPeriod returns the index of the period with the lowest input
// (then output) price, and whether every period charges the same.
func cheapestPeriod(mp *tariffs.ModelPrices) (int, bool) {
	best, flat := 0, true
	for i := 1; i < len(mp.Periods); i++ {
		r, b := &mp.Periods[i], &mp.Periods[best]
		if !r.Equal(b) {
			flat = false
		}
		in, bin := r.Price(tariffs.Input), b.Price(tariffs.Input)
		if in.LessThan(bin) || (in.Equal(bin) && r.Price(tariffs.Output).LessThan(b.Price(tariffs.Output))) {
			best = i
		}
	}
	return best, flat
}

// rulesSpans returns the instants to compare: the week from at's UTC day,
// and each calendar date either side names (the catalog's holidays and
// make-up workdays, LiteLLM's override dates) within a year of at, as a
// local day of the version, merged and in order.
func rulesSpans(p pair, v *tariffs.Version, at time.Time) []span {
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	spans := []span{{day, day.AddDate(0, 0, 7)}}
	var dates []string
	c := &p.m.Provider.Calendar
	for _, set := range []map[tariffs.Date]string{c.Holidays, c.Workdays} {
		for d := range set {
			dates = append(dates, d.String())
		}
	}
	if p.e.offPeak != nil {
		for _, r := range p.e.offPeak.rules {
			for d := range r.dates {
				dates = append(dates, d)
			}
		}
	}
	end := v.End
	if end.IsZero() {
		end = at.AddDate(1, 0, 0)
	}
	for _, d := range dates {
		t, err := time.ParseInLocation(time.DateOnly, d, v.Zone)
		if err != nil {
			continue
		}
		s := span{t.UTC(), t.AddDate(0, 0, 1).UTC()}
		if s.until.After(v.Effective) && s.from.Before(end) && s.from.After(at.AddDate(-1, 0, 0)) {
			spans = append(spans, s)
		}
	}
	return mergeSpans(spans)
}

func mergeSpans(spans []span) []span {
	sort.Slice(spans, func(i, j int) bool { return spans[i].from.Before(spans[j].from) })
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 && !s.from.After(out[n-1].until) {
			if s.until.After(out[n-1].until) {
				out[n-1].until = s.until
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// scan walks s minute by minute. probe says whether a minute counts, whether
// the two sides disagree there and how each names it; emit gets each
// maximal run of disagreeing minutes with the same names.
func scan(s span, emit func(from, until time.Time, catName, otherName string),
	probe func(time.Time) (ok, differ bool, catName, otherName string)) {
	var run *span
	var runCat, runOther string
	flush := func(t time.Time) {
		if run != nil {
			emit(run.from, t, runCat, runOther)
			run = nil
		}
	}
	for t := s.from; t.Before(s.until); t = t.Add(time.Minute) {
		ok, differ, cn, on := probe(t)
		if !ok || !differ {
			flush(t)
			continue
		}
		if run != nil && (cn != runCat || on != runOther) {
			flush(t)
		}
		if run == nil {
			run, runCat, runOther = &span{from: t}, cn, on
		}
	}
	flush(s.until)
}

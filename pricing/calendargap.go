package pricing

import (
	"sort"

	"github.com/tokenfare/tokenfare/tariffs"
)

// CalendarGap counts the priced calls of one model on local days its
// provider's calendar does not know for certain: past the years it
// covers (Day is Uncovered), or unlisted days of a provisional year (Day
// is Provisional). Those calls are priced as ordinary days; a holiday or
// make-up workday the calendar does not list would change their cost.
type CalendarGap struct {
	Model       *tariffs.Model
	Day         tariffs.Coverage
	Calls       int64
	First, Last tariffs.Date // local days, on the clock of the version that priced them
}

// noteUnsure notes the local day of a priced call (or of a group of calls
// sharing one quote, so one local day) that its calendar does not know for
// certain. The calls themselves are counted in their buckets, which keep
// such days apart.
func (e *Engine) noteUnsure(pc *PricedCall) {
	k := unsureKey{pc.Quote.Model, pc.Quote.Day}
	lt := pc.At.In(pc.Quote.Version.Zone)
	d := tariffs.DateOf(lt.Date())
	g := e.unsure[k]
	if g == nil {
		g = &CalendarGap{Model: k.model, Day: k.day, First: d, Last: d}
		e.unsure[k] = g
	}
	g.First, g.Last = min(g.First, d), max(g.Last, d)
}

// CalendarGaps returns the calls priced on days their calendar does not
// know for certain, by model and coverage, in order of provider, model and
// coverage.
func (e *Engine) CalendarGaps() []CalendarGap {
	calls := map[unsureKey]int64{}
	for _, b := range e.table.buckets.all() {
		if b.k.outcome == Priced && b.k.day != tariffs.Covered {
			calls[unsureKey{b.k.model, b.k.day}] += b.Calls
		}
	}
	out := make([]CalendarGap, 0, len(e.unsure))
	for k, g := range e.unsure {
		x := *g
		x.Calls = calls[k]
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		switch {
		case a.Model.Provider.Name != b.Model.Provider.Name:
			return a.Model.Provider.Name < b.Model.Provider.Name
		case a.Model.ID != b.Model.ID:
			return a.Model.ID < b.Model.ID
		}
		return a.Day < b.Day
	})
	return out
}

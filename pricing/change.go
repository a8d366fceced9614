package pricing

import (
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// MonthChange is a month against the one before it: the official cost
// and recorded spend of each model, team and provider in both, and the
// change.
type MonthChange struct {
	PreviousFrom, PreviousUntil time.Time
	Previous                    Totals // the previous month's totals
	PreviousRows                Rows   // the previous month's row accounting
	Models, Teams, Providers    []Change
	Total                       Change // every call of both months
}

// Change is one model, team or provider in two months. Change is
// Official − PreviousOfficial; Share is Change ÷ PreviousOfficial, not
// valid when the previous month cost nothing.
type Change struct {
	Name                    string // model id, team, or provider ("" : no tariff, or no team)
	Currency                string // of its priced calls in either month; several joined with "+"
	PreviousCalls, Calls    int64
	PreviousOfficial        decimal.Decimal
	Official                decimal.Decimal
	PreviousRecorded        decimal.Decimal
	Recorded                decimal.Decimal
	Change                  decimal.Decimal
	Share                   decimal.NullDecimal
	NewThisMonth, GoneSince bool // only in this month; only in the previous one
}

// CompareMonths sets m against prev, an engine that priced the calls of
// the month before, [from, until), grouped by at least model and team.
// Rows come dearest first by this month's official cost, then by the
// previous month's, then by name.
func (m *Month) CompareMonths(prev *Engine, from, until time.Time) *MonthChange {
	byModel := prev.Rollup([]Dim{DimModel})
	rec := byModel.reconcileGroups()
	mc := &MonthChange{PreviousFrom: from, PreviousUntil: until, Previous: rec.Totals, PreviousRows: prev.Rows()}
	name := func(d Dim) func(*Group) string { return func(g *Group) string { return g.Key.Value(d) } }
	mc.Models = changes(m.Reconciliation.groups, rec.groups, name(DimModel))
	mc.Teams = changes(m.ByTeam, prev.Rollup([]Dim{DimTeam}).groups(), name(DimTeam))
	mc.Providers = changes(m.ByProvider, byModel.providerGroups(), func(g *Group) string { return g.Key.Provider })
	cur := m.Reconciliation.Totals
	mc.Total = Change{Name: "Total", Currency: strings.Join(sortedSet(setOfAll(m.Reconciliation.Currencies, rec.Currencies)), "+"),
		PreviousCalls: rec.Totals.Calls, Calls: cur.Calls, PreviousOfficial: rec.Totals.Official, Official: cur.Official,
		PreviousRecorded: rec.Totals.Recorded, Recorded: cur.Recorded, Change: cur.Official.Sub(rec.Totals.Official),
		Share: ratio(cur.Official.Sub(rec.Totals.Official), rec.Totals.Official)}
	return mc
}

// setOfAll is the set of the strings of lists.
func setOfAll(lists ...[]string) map[string]bool {
	out := map[string]bool{}
	for _, l := range lists {
		for _, s := range l {
			out[s] = true
		}
	}
	return out
}

// changes pairs the groups of two months by name.
func changes(cur, prev []Group, name func(*Group) string) []Change {
	byName := map[string]*Change{}
	var out []*Change
	get := func(g *Group) *Change {
		n := name(g)
		c := byName[n]
		if c == nil {
			c = &Change{Name: n, PreviousOfficial: decimal.Zero, Official: decimal.Zero, PreviousRecorded: decimal.Zero, Recorded: decimal.Zero}
			byName[n] = c
			out = append(out, c)
		}
		return c
	}
	curs := map[*Change]map[string]bool{}
	note := func(c *Change, g *Group) {
		if curs[c] == nil {
			curs[c] = map[string]bool{}
		}
		for _, x := range g.Currencies {
			curs[c][x] = true
		}
	}
	seenNow := map[*Change]bool{}
	for i := range cur {
		c := get(&cur[i])
		c.Calls += cur[i].Calls
		c.Official, c.Recorded = c.Official.Add(cur[i].Official), c.Recorded.Add(cur[i].Recorded)
		note(c, &cur[i])
		seenNow[c] = true
	}
	seenBefore := map[*Change]bool{}
	for i := range prev {
		c := get(&prev[i])
		c.PreviousCalls += prev[i].Calls
		c.PreviousOfficial, c.PreviousRecorded = c.PreviousOfficial.Add(prev[i].Official), c.PreviousRecorded.Add(prev[i].Recorded)
		note(c, &prev[i])
		seenBefore[c] = true
	}
	res := make([]Change, 0, len(out))
	for _, c := range out {
		c.Change = c.Official.Sub(c.PreviousOfficial)
		c.Share = ratio(c.Change, c.PreviousOfficial)
		c.NewThisMonth, c.GoneSince = !seenBefore[c], !seenNow[c]
		cs := sortedSet(curs[c])
		for i, x := range cs {
			if i > 0 {
				c.Currency += "+"
			}
			c.Currency += x
		}
		res = append(res, *c)
	}
	sort.SliceStable(res, func(i, j int) bool {
		a, b := &res[i], &res[j]
		if c := a.Official.Cmp(b.Official); c != 0 {
			return c > 0
		}
		if c := a.PreviousOfficial.Cmp(b.PreviousOfficial); c != 0 {
			return c > 0
		}
		return a.Name < b.Name
	})
	return res
}

package reports

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
)

// budget sets each budget of the budgets file against the month's
// official cost, with the month-end projection.
func (wb *workbook) budget() *table {
	month, covered := wb.m.Days()
	pace := fmt.Sprintf("projection at the pace of the %d days of data over the month's %d", covered, month)
	if covered == month {
		pace = "whole month: projection = actual"
	}
	t := &table{sheet: SheetBudget, caption: wb.caption("Budgets against official cost (" + pace + ")"),
		cols: []column{{"For", kindText}, {"Team or key", kindText}, {"Monthly budget", kindMoney}, {"Calls", kindInt},
			{"Actual (official cost)", kindMoney}, {"Remaining", kindMoney}, {"Share used", kindRatio},
			{"Projected month end", kindMoney}, {"Projected share", kindRatio}, {"Recorded spend", kindMoney},
			{"Currency", kindText}, {"Note", kindNote}, {"Budget set at", kindText}},
		titleCols: 2, noPrint: 1, empty: "the budgets file holds no budget"}
	for i := range wb.x.Budgets {
		l := &wb.x.Budgets[i]
		cur := orDefault(l.Currency, wb.cur)
		t.rows = append(t.rows, []cell{{v: l.Kind.String()}, {v: l.Name}, moneyCell(l.Monthly, cur), {v: l.Calls},
			moneyCell(l.Actual, cur), moneyCell(l.Remaining, cur), ratioCell(l.Used), moneyCell(l.Projected, cur),
			ratioCell(l.ProjectedUsed), moneyCell(l.Recorded, cur), {v: cur}, {v: budgetNote(l)}, {v: l.Source}})
	}
	return t
}

// budgetNote says what a reader must know of a budget line.
func budgetNote(l *pricing.BudgetLine) string {
	switch {
	case l.MixedCurrencies:
		return "its calls are priced in more than one currency: actual adds them and cannot be set against the budget"
	case l.OtherCurrency:
		return "its calls are priced in " + l.Currency + ", not in the budgets file's currency"
	case l.Calls == 0:
		return "no call in the month"
	case l.Remaining.IsNegative():
		return "over budget"
	case l.ProjectedUsed.Valid && l.ProjectedUsed.Decimal.GreaterThan(decimal.NewFromInt(1)):
		return "on course to exceed the budget"
	}
	return ""
}

// change sets the month against the one before, by model, team and
// provider: three sections, one below the other.
func (wb *workbook) change() *table {
	c := wb.x.Change
	prev := c.PreviousFrom.In(wb.m.Zone).Format("January 2006")
	cols := func(what string) []column {
		return []column{{what, kindText}, {"Calls " + prev, kindInt}, {"Calls", kindInt}, {"Official " + prev, kindMoney},
			{"Official", kindMoney}, {"Change", kindMoney}, {"Change %", kindRatio}, {"Recorded " + prev, kindMoney},
			{"Recorded", kindMoney}, {"Currency", kindText}, {"Note", kindText}}
	}
	rows := func(cs []pricing.Change, blank string) [][]cell {
		var out [][]cell
		for i := range cs {
			x := &cs[i]
			cur := orDefault(x.Currency, wb.cur)
			note := ""
			switch {
			case x.NewThisMonth:
				note = "new this month"
			case x.GoneSince:
				note = "no call this month"
			}
			out = append(out, []cell{{v: orDefault(x.Name, blank)}, {v: x.PreviousCalls}, {v: x.Calls},
				moneyCell(x.PreviousOfficial, cur), moneyCell(x.Official, cur), moneyCell(x.Change, cur), ratioCell(x.Share),
				moneyCell(x.PreviousRecorded, cur), moneyCell(x.Recorded, cur), {v: cur}, {v: note}})
		}
		return out
	}
	if len(c.Models) == 0 {
		c.Models = []pricing.Change{}
	}
	t := &table{sheet: SheetChange, caption: wb.caption("Month over month by model, against " + prev + " (change = official − official " + prev + ")"),
		cols: cols("Model"), rows: rows(c.Models, "(none)"), titleCols: 1}
	t.total = bold(rows([]pricing.Change{c.Total}, "Total")[0])
	teams := &section{caption: "By team", cols: cols("Team"), rows: rows(c.Teams, "(no team)")}
	providers := &section{caption: "By provider (each in the provider's currency)", cols: cols("Provider"), rows: rows(c.Providers, "(no tariff)")}
	t.below = teams
	teams.next = providers
	return t
}

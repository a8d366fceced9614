package reports

import (
	"github.com/tokenfare/tokenfare/pricing/savings"
)

// SheetSavings is the workbook's sheet of what each lever would save, by
// key: only when the report weighed the levers (Extras.Savings).
const SheetSavings = "Savings"

// savingsSheet ranks the keys by their combined saving (each call under
// its best lever, beside the cost as served and the cost under the
// levers), each lever alone side by side, the offpeak delays, and below
// it what each lever assumes.
func (wb *workbook) savingsSheet() *table {
	res := wb.x.Savings
	cols := []column{{"Key (alias, else hash)", kindText}, {"Priced calls", kindInt}, {"Cost as served", kindMoney},
		{"Saving, each call under its best lever", kindMoney}, {"Cost under the levers", kindMoney}}
	for _, lv := range res.Levers {
		cols = append(cols, column{"Saving: " + lv.String() + " alone", kindMoney})
	}
	for d := range savings.NumDelays {
		cols = append(cols, column{"Off-peak calls, delay " + delayText[d], kindInt})
	}
	cols = append(cols, column{"Calls under no lever (unpriced, failed, cache hit)", kindInt}, column{"Currency", kindText},
		column{"Key (SHA-256)", kindText})
	t := &table{sheet: SheetSavings, cols: cols, noPrint: 1, titleCols: 1, empty: "no priced call in the month",
		caption: wb.caption("What the same calls would cost under each lever, by key, largest saving first")}
	for _, l := range res.Lines {
		t.rows = append(t.rows, wb.savingsRow(res, l, keyName(l.Key.Key, l.KeyAlias), l.Key.Key))
	}
	t.total = bold(wb.savingsRow(res, res.Total, "Total", ""))
	t.below = wb.leverSection(res)
	return t
}

// savingsRow is one key's cells, or the total's.
func (wb *workbook) savingsRow(res *savings.Result, l *savings.Line, name, hash string) []cell {
	cur := currencyText(res.Currencies)
	row := []cell{{v: name}, {v: l.Priced}, moneyCell(l.Served, cur), moneyCell(l.Saving(), cur), moneyCell(l.Levered, cur)}
	for _, lv := range res.Levers {
		row = append(row, moneyCell(l.Levers[lv].Saving(), cur))
	}
	for _, n := range l.Levers[savings.Offpeak].Delays {
		row = append(row, cell{v: n})
	}
	return append(row, cell{v: l.Outside.Total()}, cell{v: cur}, cell{v: hash})
}

// leverSection says what each lever assumes, with its calls and saving
// over the month.
func (wb *workbook) leverSection(res *savings.Result) *section {
	cur := currencyText(res.Currencies)
	s := &section{caption: "What each lever assumes (a call counts in the best-lever saving once)",
		cols: []column{{"Lever", kindText}, {"Calls it applies to", kindInt}, {"Cost as served", kindMoney},
			{"Cost under the lever", kindMoney}, {"Saving alone", kindMoney}, {"Calls for which it is best", kindInt},
			{"Assumes", kindNote}}}
	for _, lv := range res.Levers {
		sum := &res.Total.Levers[lv]
		s.rows = append(s.rows, []cell{{v: lv.String()}, {v: sum.Calls}, moneyCell(sum.Served, cur), moneyCell(sum.Under, cur),
			moneyCell(sum.Saving(), cur), {v: res.Total.BestBy[lv]}, {v: LeverCondition(lv)}})
	}
	return s
}

package reports

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/tariffs"
)

// summary writes the first sheet: the period, the totals (as numbers and
// as exact text), the row accounting, the tariff versions used and where
// the workbook comes from. It is short, so it is written cell by cell.
func (wb *workbook) summary(f *excelize.File, s *styles) error {
	const sheet = SheetSummary
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return err
	}
	m, rec := wb.m, wb.m.Reconciliation
	official, recorded, gap, explained := rec.Totals.Official, rec.Totals.Recorded, rec.Totals.Gap, rec.Totals.Explained
	r := rec.Rows
	zone := m.Zone.String()
	lines := [][]cell{
		{{v: "tokenfare monthly report — " + wb.monthName()}},
		{},
		{{v: "Period"}, {v: periodText(m.From, m.Until, m.Zone)}},
		{{v: "Time zone"}, {v: zone + " (days, the Daily and Peak share sheets, FOCUS charge periods)"}},
		{{v: "Currency"}, {v: orDefault(wb.cur, "none priced")}},
		{},
		{{v: "Totals", bold: true}, {v: "Amount", bold: true}, {v: "Exact", bold: true}},
		{{v: "Official cost (provider tariffs)"}, moneyCell(official, wb.cur), {v: official.String(), right: true}},
		{{v: "Recorded spend (gateway)"}, moneyCell(recorded, wb.cur), {v: recorded.String(), right: true}},
		{{v: "Gap (official − recorded)"}, moneyCell(gap, wb.cur), {v: gap.String(), right: true}},
		{{v: "Recorded ÷ official"}, ratioCell(rec.Totals.Ratio), {v: ratioText(rec.Totals.Ratio), right: true}},
		{{v: "Gap explained (Discrepancies)"}, moneyCell(explained, wb.cur), {v: explained.String(), right: true}},
		{{v: "Calls"}, {v: rec.Totals.Calls}},
		{},
		{{v: "Rows read", bold: true}, {v: r.Read, bold: true}},
		{{v: "priced"}, {v: r.Priced}},
		{{v: "unpriced (no tariff)"}, {v: r.Unpriced}},
		{{v: "retired model"}, {v: r.Retired}},
		{{v: "failed"}, {v: r.Failed}},
	}
	if f := rec.Failed; f != nil && r.Failed > 0 {
		lines = append(lines,
			[]cell{{v: "  failed: upstream (reached the provider)"}, {v: f.Upstream}},
			[]cell{{v: "  failed: gateway (refused by the gateway)"}, {v: f.Gateway}},
			[]cell{{v: "  failed: unknown"}, {v: f.Unknown}})
	}
	lines = append(lines, [][]cell{
		{{v: "duplicate"}, {v: r.Duplicate}},
		{{v: "rejected (bad rows)"}, {v: r.Rejected}},
		{{v: "cache hit (gateway's cache)"}, {v: r.CacheHit}},
		{{v: "outside the month"}, {v: r.Outside}},
		{},
	}...)
	lines = append(lines, wb.versionLines()...)
	lines = append(lines, []cell{}, []cell{{v: "Produced", bold: true}})
	lines = append(lines,
		[]cell{{v: "at (UTC)"}, {v: wb.p.Produced.UTC()}},
		[]cell{{v: "by"}, {v: wb.p.Program}},
		[]cell{{v: "from"}, {v: strings.Join(wb.p.Sources, ", ")}},
		[]cell{{v: "tariffs"}, {v: wb.p.Tariffs}},
		[]cell{},
		[]cell{{v: "Notes", bold: true}},
		[]cell{{v: fmt.Sprintf("Money cells hold the exact amount rounded to %d significant digits, as far as a spreadsheet number reaches; the Exact column gives totals to the last digit.", SignificantDigits)}},
		[]cell{{v: "Official cost prices each call at the tariff version and period in force at its billing instant. Recorded ÷ official below 100% means the gateway under-records."}},
		[]cell{{v: "Peak share is the share of tokens, of usage types priced differently by period, billed in the dearest period."}},
	)
	for i, line := range lines {
		for j, c := range line {
			if c.v == nil {
				continue
			}
			v, err := s.value(c, kindOf(c))
			if err != nil {
				return err
			}
			ref, _ := excelize.CoordinatesToCellName(j+1, i+1)
			ec := v.(excelize.Cell)
			if c.right {
				ec.StyleID = s.exact
			}
			if err := f.SetCellValue(sheet, ref, ec.Value); err != nil {
				return err
			}
			if err := f.SetCellStyle(sheet, ref, ref, ec.StyleID); err != nil {
				return err
			}
		}
	}
	if err := f.SetCellStyle(sheet, "A1", "A1", s.caption); err != nil {
		return err
	}
	for col, w := range map[string]float64{"A": 34, "B": 24, "C": 30, "D": 20, "E": 10, "F": 18} {
		if err := f.SetColWidth(sheet, col, col, w); err != nil {
			return err
		}
	}
	return pageSetup(f, sheet)
}

// versionLines lists the tariff versions that priced calls, with their
// sources and the dates those were checked.
func (wb *workbook) versionLines() [][]cell {
	out := [][]cell{{{v: "Tariff versions used", bold: true}, {v: "Model", bold: true}, {v: "Version", bold: true},
		{v: "In force from (UTC)", bold: true}, {v: "Calls", bold: true}, {v: "Official cost", bold: true}, {v: "Rates rest on", bold: true}}}
	var providers []*tariffs.Provider
	seen := map[*tariffs.Provider]bool{}
	for _, u := range wb.m.Versions {
		p := u.Model.Provider
		if !seen[p] {
			seen[p] = true
			providers = append(providers, p)
		}
		out = append(out, []cell{{v: p.Name}, {v: u.Model.ID}, {v: u.Version.Name}, {v: u.Version.Effective.UTC()},
			{v: u.Calls}, moneyCell(u.Official, p.Currency), {v: u.Version.Basis.String() + " source"}})
	}
	if len(wb.m.Versions) == 0 {
		out = append(out, []cell{{}, {v: "no call was priced"}})
	}
	out = append(out, []cell{}, []cell{{v: "Tariff sources", bold: true}, {v: "Kind", bold: true}, {v: "Checked", bold: true},
		{v: "Address", bold: true}})
	for _, p := range providers {
		for _, src := range p.Sources {
			out = append(out, []cell{{v: p.Name}, {v: src.Kind.String()}, {v: src.Checked}, {v: src.URL}})
		}
		if p.File != "" {
			out = append(out, []cell{{v: p.Name}, {}, {}, {v: "tariff file " + p.File}})
		}
	}
	return out
}

// kindOf is the kind of a Summary cell, from its value: a decimal without
// a currency is a ratio.
func kindOf(c cell) cellKind {
	switch c.v.(type) {
	case decimal.Decimal:
		if c.currency == "" {
			return kindRatio
		}
		return kindMoney
	case time.Time:
		return kindInstant
	}
	return kindText
}

// periodText is the period [from, until) on zone's clock and, when that
// clock reads other than UTC's, in UTC too.
func periodText(from, until time.Time, zone *time.Location) string {
	const minute = "2006-01-02 15:04"
	local := fmt.Sprintf("%s 00:00 to %s 00:00 (%s)", from.In(zone).Format("2006-01-02"), until.In(zone).Format("2006-01-02"), zone)
	if from.In(zone).Format(minute) == from.UTC().Format(minute) && until.In(zone).Format(minute) == until.UTC().Format(minute) {
		return local
	}
	return fmt.Sprintf("%s, %s to %s UTC", local, from.UTC().Format(minute), until.UTC().Format(minute))
}

package reports

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/pricing/threeway"
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
		{{v: "Data from"}, wb.instantCell(m.Span.First), {v: "the first call's billing instant"}},
		{{v: "Data through"}, wb.instantCell(m.Span.Last), {v: "the last call's billing instant"}},
		wb.coverageLine(),
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
	}
	lines = append(lines, wb.savingsLine()...)
	lines = append(lines, []cell{})
	lines = append(lines, wb.providerLines()...)
	lines = append(lines, [][]cell{
		{{v: "Rows read", bold: true}, {v: r.Read, bold: true}},
		{{v: "priced"}, {v: r.Priced}},
		{{v: "unpriced (no tariff)"}, {v: r.Unpriced}},
		{{v: "retired model"}, {v: r.Retired}},
		{{v: "failed"}, {v: r.Failed}},
	}...)
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
		note(fmt.Sprintf("Money cells hold the exact amount rounded to %d significant digits, as far as a spreadsheet number reaches; the Exact column gives totals to the last digit.", SignificantDigits)),
		note("Official cost prices each call at the tariff version and period in force at its billing instant. Recorded ÷ official below 100% means the gateway under-records."),
		note("Peak share is the share of tokens, of usage types priced differently by period, billed in the dearest period."),
		note("Token columns count usage that reached a provider; the tokens of calls the gateway answered from its own cache (cache hits) have a column of their own."),
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
			if c.wrap {
				ec.StyleID = s.note
			}
			if c.span > 1 {
				end, _ := excelize.CoordinatesToCellName(j+c.span, i+1)
				if err := f.MergeCell(sheet, ref, end); err != nil {
					return err
				}
				// A merged cell is not fitted to its text: give its lines room.
				var width float64
				for _, w := range summaryWidths[j:min(j+c.span, len(summaryWidths))] {
					width += w
				}
				perLine := int(width * 1.1)
				lines := (utf8.RuneCountInString(fmt.Sprint(c.v)) + perLine - 1) / perLine
				if err := f.SetRowHeight(sheet, i+1, float64(max(lines, 1))*14); err != nil {
					return err
				}
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
	if err := setDimension(f, sheet, summaryCols(lines), len(lines)); err != nil {
		return err
	}
	for i, w := range summaryWidths {
		col, _ := excelize.ColumnNumberToName(i + 1)
		if err := f.SetColWidth(sheet, col, col, w); err != nil {
			return err
		}
	}
	return pageSetup(f, sheet, 1, "")
}

// summaryCols is the number of the Summary's last column used: a merged
// cell reaches to the end of its span.
func summaryCols(lines [][]cell) int {
	n := 1
	for _, line := range lines {
		for j, c := range line {
			if c.v != nil {
				n = max(n, j+max(c.span, 1))
			}
		}
	}
	return n
}

// summaryWidths are the widths of the Summary's columns, A to G.
var summaryWidths = []float64{34, 24, 30, 22, 12, 20, 20}

// note is a line of the Summary's notes, wrapped across its columns.
func note(text string) []cell { return []cell{{v: text, wrap: true, span: 7}} }

// instantCell is an instant in UTC, or a dash when there is none.
func (wb *workbook) instantCell(t time.Time) cell {
	if t.IsZero() {
		return cell{v: "-"}
	}
	return cell{v: t.UTC().Format("2006-01-02 15:04:05") + " UTC"}
}

// coverageLine says whether the data covers the whole month.
func (wb *workbook) coverageLine() []cell {
	m := wb.m
	month, covered := m.Days()
	switch {
	case m.Span.Last.IsZero():
		return []cell{{v: "Coverage"}, {v: "no call in the month"}}
	case m.Partial():
		last := m.Span.Last.In(m.Zone)
		return []cell{{v: "Coverage", bold: true}, {v: fmt.Sprintf("partial month: data through %s (%s), %d of %d days",
			last.Format("2006-01-02 15:04"), m.Zone, covered, month), bold: true}}
	}
	return []cell{{v: "Coverage"}, {v: fmt.Sprintf("whole month: data through its last day (%d days)", month)}}
}

// providerLines are the month's totals per provider, each in its
// currency, with what the provider billed when its cost exports were read.
func (wb *workbook) providerLines() [][]cell {
	billed := map[string]*threeway.ProviderTotals{}
	head := []cell{{v: "By provider", bold: true}, {v: "Official cost", bold: true}, {v: "Recorded spend", bold: true},
		{v: "Calls", bold: true}, {v: "Currency", bold: true}}
	if tw := wb.x.ThreeWay; tw != nil {
		for i := range tw.Providers {
			billed[tw.Providers[i].Provider] = &tw.Providers[i]
		}
		head = append(head, cell{v: "Billed by the provider", bold: true}, cell{v: "Billed − recorded", bold: true})
	}
	out := [][]cell{head}
	for i := range wb.m.ByProvider {
		g := &wb.m.ByProvider[i]
		cur := wb.curOf(g)
		line := []cell{{v: providerName(g.Key.Provider)}, moneyCell(g.Official, cur), moneyCell(g.Recorded, cur), {v: g.Calls}, {v: cur}}
		if p := billed[g.Key.Provider]; p != nil && p.HasBilled {
			line = append(line, moneyCell(p.Billed, p.Currency), nullMoney(p.Gap, p.Currency))
		} else if wb.x.ThreeWay != nil {
			line = append(line, cell{v: "no cost export"})
		}
		out = append(out, line)
	}
	if tw := wb.x.ThreeWay; tw != nil {
		// Providers the exports bill that priced no call of the month.
		for i := range tw.Providers {
			p := &tw.Providers[i]
			if p.HasBilled && !wb.hasProvider(p.Provider) {
				out = append(out, []cell{{v: p.Provider}, {}, moneyCell(p.Recorded, p.Currency), {v: p.GatewayCalls}, {v: p.Currency},
					moneyCell(p.Billed, p.Currency), nullMoney(p.Gap, p.Currency)})
			}
		}
	}
	return append(out, []cell{})
}

func (wb *workbook) hasProvider(name string) bool {
	for _, g := range wb.m.ByProvider {
		if g.Key.Provider == name {
			return true
		}
	}
	return false
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
			out = append(out, []cell{{v: p.Name}, {v: src.Kind.String()}, {v: src.Checked}, {v: src.URL, wrap: true, span: 4}})
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

// savingsLine names the month's combined saving (the Savings sheet), when
// the levers were weighed.
func (wb *workbook) savingsLine() [][]cell {
	if wb.x.Savings == nil {
		return nil
	}
	t := wb.x.Savings.Total
	return [][]cell{{{v: "Saving under the levers (Savings)"}, moneyCell(t.Saving(), wb.cur), {v: t.Saving().String(), right: true}}}
}

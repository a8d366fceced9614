package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Sheet names of the monthly workbook, in order.
const (
	SheetSummary       = "Summary"
	SheetByModel       = "By model"
	SheetByProvider    = "By provider"
	SheetByKey         = "By key"
	SheetByTeam        = "By team"
	SheetBudget        = "Budget"           // only with a budgets file
	SheetChange        = "Month over month" // only with the previous month
	SheetDaily         = "Daily"
	SheetPeakShare     = "Peak share"
	SheetBlended       = "Blended prices"
	SheetDiscrepancies = "Discrepancies"
	SheetBilled        = "Billed beyond tokens"
	SheetProvider      = "Provider usage" // only with the provider's exports
	SheetTariffs       = "Tariffs"
)

// Sheets lists the workbook's sheets in order; SheetBudget and
// SheetChange come after SheetByTeam, SheetProvider after SheetBilled and
// SheetSavings after it, when the workbook has them.
var Sheets = []string{SheetSummary, SheetByModel, SheetByProvider, SheetByKey, SheetByTeam, SheetDaily, SheetPeakShare, SheetBlended, SheetDiscrepancies, SheetBilled, SheetTariffs}

// Extras are the workbook's optional inputs, each adding a sheet.
type Extras struct {
	// ThreeWay is the month's calls against the provider's exports:
	// SheetProvider, and the billed figures in the Summary.
	ThreeWay *threeway.Reconciliation
	// Budgets are the budgets file's budgets against the month: SheetBudget.
	Budgets []pricing.BudgetLine
	// Change is the month against the one before: SheetChange.
	Change *pricing.MonthChange
	// Savings are the month's calls under each lever, by key:
	// SheetSavings, and the combined saving in the Summary.
	Savings *savings.Result
}

// Provenance says when, by what and from what a report was produced.
type Provenance struct {
	Produced time.Time // UTC
	Program  string    // e.g. "tokenfare dev"
	Sources  []string  // the inputs read, as named on the command line
	Tariffs  string    // "embedded catalog" or the folder given
}

// WriteWorkbook writes the month's FinOps workbook in XLSX, with the
// sheets of the extras given.
func WriteWorkbook(w io.Writer, m *pricing.Month, p Provenance, x Extras) error {
	f := excelize.NewFile()
	defer func() { _ = f.Close() }() // its temporary files only: the workbook is written to w
	s, err := newStyles(f)
	if err != nil {
		return err
	}
	wb := &workbook{m: m, p: p, x: x, cur: currencyText(m.Reconciliation.Currencies)}
	if err := wb.summary(f, s); err != nil {
		return fmt.Errorf("workbook: %s: %w", SheetSummary, err)
	}
	tables := []*table{wb.byModel(), wb.byProvider(), wb.byKey(), wb.byTeam()}
	if x.Budgets != nil {
		tables = append(tables, wb.budget())
	}
	if x.Change != nil {
		tables = append(tables, wb.change())
	}
	tables = append(tables, wb.daily(), wb.peakShare(), wb.blended(), wb.discrepancies(), wb.billed())
	if x.ThreeWay != nil {
		tables = append(tables, wb.providerUsage(x.ThreeWay))
	}
	if x.Savings != nil {
		tables = append(tables, wb.savingsSheet())
	}
	for _, t := range append(tables, wb.tariffs()) {
		if err := t.write(f, s); err != nil {
			return fmt.Errorf("workbook: %s: %w", t.sheet, err)
		}
	}
	f.SetActiveSheet(0)
	if err := f.SetDocProps(&excelize.DocProperties{Title: "tokenfare " + wb.monthName(), Creator: p.Program,
		Created: p.Produced.UTC().Format(time.RFC3339), Description: "Official cost against recorded spend for " + wb.monthName()}); err != nil {
		return err
	}
	return f.Write(w)
}

// workbook holds what every sheet needs.
type workbook struct {
	m   *pricing.Month
	p   Provenance
	x   Extras
	cur string
}

// monthName is e.g. "October 2026 (Asia/Shanghai)".
// A partial month says so: "December 2026 (UTC), partial: data through
// 2026-12-01 10:00".
func (wb *workbook) monthName() string {
	name := fmt.Sprintf("%s (%s)", wb.m.From.In(wb.m.Zone).Format("January 2006"), wb.m.Zone)
	if wb.m.Partial() {
		name += ", partial: data through " + wb.m.Span.Last.In(wb.m.Zone).Format("2006-01-02 15:04")
	}
	return name
}

func (wb *workbook) caption(what string) string {
	c := what + " — " + wb.monthName()
	if wb.cur != "" && !strings.HasPrefix(what, "Share") {
		c += ", money in " + wb.cur
	}
	return c
}

// curOf is a group's currency; the report's for a group with nothing
// priced, whose recorded spend is in the gateway's currency.
func (wb *workbook) curOf(g *pricing.Group) string {
	return orDefault(currencyText(g.Currencies), wb.cur)
}

// ratioCell is a ratio or share; empty when not defined.
func ratioCell(r decimal.NullDecimal) cell {
	if !r.Valid {
		return cell{}
	}
	return cell{v: r.Decimal}
}

func moneyCell(d decimal.Decimal, cur string) cell { return cell{v: d, currency: cur} }

func bold(cs []cell) []cell {
	for i := range cs {
		cs[i].bold = true
	}
	return cs
}

func (wb *workbook) byModel() *table {
	t := &table{sheet: SheetByModel, caption: wb.caption("Official cost against recorded spend by model, model group and host"),
		cols: []column{{"Model", kindText}, {"Model group", kindText}, {"Host", kindText}, {"Calls", kindInt}, {"Priced calls", kindInt},
			{"Input tokens", kindInt}, {"Cache read tokens", kindInt}, {"Cache write tokens", kindInt}, {"Cache write 1h tokens", kindInt},
			{"Output tokens", kindInt}, {"of which reasoning", kindInt}, {"Cache-hit tokens (not billed)", kindInt},
			{"Official cost", kindMoney}, {"Recorded spend", kindMoney},
			{"Gap (official − recorded)", kindMoney}, {"Recorded ÷ official", kindRatio}, {"Peak share of tokens", kindRatio}, {"Currency", kindText}}}
	for i := range wb.m.ByModel {
		s := &wb.m.ByModel[i]
		t.rows = append(t.rows, []cell{{v: s.Key.Model}, {v: s.Key.Group}, {v: s.Key.Host}, {v: s.Calls}, {v: s.PricedCalls},
			{v: s.Tokens.Input}, {v: s.Tokens.CacheRead}, {v: s.Tokens.CacheWrite}, {v: s.Tokens.CacheWrite1h}, {v: s.Tokens.Output}, {v: s.Tokens.Reasoning},
			{v: s.CacheHitTokens}, moneyCell(s.Official, wb.curOf(s)), moneyCell(s.Recorded, wb.curOf(s)), moneyCell(s.Gap, wb.curOf(s)),
			ratioCell(s.Ratio), ratioCell(s.PeakShare()), {v: wb.curOf(s)}})
	}
	t.total = wb.totalRow(len(t.cols), 3, 12)
	t.titleCols = 1
	return t
}

// totalRow is a bold row with "Total", the calls at callsAt and the
// official, recorded, gap and ratio from moneyAt on, from the reconciliation.
func (wb *workbook) totalRow(n, callsAt, moneyAt int) []cell {
	rec := wb.m.Reconciliation
	row := make([]cell, n)
	row[0] = cell{v: "Total"}
	row[callsAt] = cell{v: rec.Totals.Calls}
	row[moneyAt] = moneyCell(rec.Totals.Official, wb.cur)
	row[moneyAt+1] = moneyCell(rec.Totals.Recorded, wb.cur)
	row[moneyAt+2] = moneyCell(rec.Totals.Gap, wb.cur)
	row[moneyAt+3] = ratioCell(rec.Totals.Ratio)
	return bold(row)
}

// keyName is how a key is shown where a reader looks for it: its alias,
// else its hash shortened (the full hash is in the sheet's last column).
func keyName(hash, alias string) string {
	if alias != "" {
		return alias
	}
	return shortHash(hash)
}

func (wb *workbook) byKey() *table {
	t := &table{sheet: SheetByKey, caption: wb.caption("Chargeback by API key at official prices, dearest first"),
		cols: []column{{"Key (alias, else hash)", kindText}, {"Team", kindText}, {"User", kindText}, {"Calls", kindInt},
			{"Tokens", kindInt}, {"Cache-hit tokens (not billed)", kindInt}, {"Official cost", kindMoney}, {"Recorded spend", kindMoney},
			{"Difference (official − recorded)", kindMoney}, {"Recorded ÷ official", kindRatio},
			{"Peak share of tokens", kindRatio}, {"Currency", kindText}, {"Key (SHA-256)", kindText}},
		noPrint: 1, titleCols: 1}
	for i := range wb.m.ByKey {
		s := &wb.m.ByKey[i]
		tk := s.Tokens
		t.rows = append(t.rows, []cell{{v: keyName(s.Key.Key, s.KeyAlias)}, {v: s.Key.Team}, {v: s.Key.User}, {v: s.Calls},
			{v: tk.Total()}, {v: s.CacheHitTokens},
			moneyCell(s.Official, wb.curOf(s)), moneyCell(s.Recorded, wb.curOf(s)), moneyCell(s.Gap, wb.curOf(s)),
			ratioCell(s.Ratio), ratioCell(s.PeakShare()), {v: wb.curOf(s)}, {v: s.Key.Key}})
	}
	t.total = wb.totalRow(len(t.cols), 3, 6)
	return t
}

// groupCols are the columns of a group's calls, tokens and money, after
// the columns that name it.
var groupCols = []column{{"Calls", kindInt}, {"Priced calls", kindInt}, {"Input tokens", kindInt}, {"Cache read tokens", kindInt},
	{"Cache write tokens", kindInt}, {"Output tokens", kindInt}, {"Cache-hit tokens (not billed)", kindInt},
	{"Official cost", kindMoney}, {"Recorded spend", kindMoney}, {"Gap (official − recorded)", kindMoney},
	{"Recorded ÷ official", kindRatio}, {"Peak share of tokens", kindRatio}, {"Currency", kindText}}

// groupCells are a group's cells under groupCols; the 1-hour cache writes
// count with the cache writes.
func (wb *workbook) groupCells(g *pricing.Group) []cell {
	tk, cur := g.Tokens, wb.curOf(g)
	return []cell{{v: g.Calls}, {v: g.PricedCalls}, {v: tk.Input}, {v: tk.CacheRead}, {v: tk.CacheWrite + tk.CacheWrite1h},
		{v: tk.Output}, {v: g.CacheHitTokens}, moneyCell(g.Official, cur), moneyCell(g.Recorded, cur), moneyCell(g.Gap, cur),
		ratioCell(g.Ratio), ratioCell(g.PeakShare()), {v: cur}}
}

// byTeam charges the month back by team, dearest first.
func (wb *workbook) byTeam() *table {
	t := &table{sheet: SheetByTeam, caption: wb.caption("Chargeback by team at official prices, dearest first"),
		cols: append([]column{{"Team", kindText}}, groupCols...), titleCols: 1}
	for i := range wb.m.ByTeam {
		g := &wb.m.ByTeam[i]
		t.rows = append(t.rows, append([]cell{{v: orDefault(g.Key.Team, "(no team)")}}, wb.groupCells(g)...))
	}
	t.total = wb.totalRow(len(t.cols), 1, 8)
	return t
}

// byProvider is the month by tariff provider, each in its own currency,
// as the providers invoice it.
func (wb *workbook) byProvider() *table {
	t := &table{sheet: SheetByProvider, caption: wb.caption("Official cost by provider (each in the provider's currency), dearest first"),
		cols: append([]column{{"Provider", kindText}}, groupCols...), titleCols: 1}
	for i := range wb.m.ByProvider {
		g := &wb.m.ByProvider[i]
		t.rows = append(t.rows, append([]cell{{v: providerName(g.Key.Provider)}}, wb.groupCells(g)...))
	}
	if len(wb.m.Reconciliation.Currencies) <= 1 {
		t.total = wb.totalRow(len(t.cols), 1, 8)
	}
	return t
}

// providerName is a provider as the sheets show it.
func providerName(p string) string { return orDefault(p, "(no tariff)") }

func (wb *workbook) daily() *table {
	t := &table{sheet: SheetDaily, caption: wb.caption(fmt.Sprintf("Official cost against recorded spend by day in %s", wb.m.Zone)),
		cols: []column{{"Day", kindDay}, {"Calls", kindInt}, {"Priced calls", kindInt}, {"Official cost", kindMoney},
			{"Recorded spend", kindMoney}, {"Gap (official − recorded)", kindMoney}, {"Recorded ÷ official", kindRatio},
			{"Peak share of tokens", kindRatio}}}
	t.titleCols = 1
	for i := range wb.m.Daily {
		s := &wb.m.Daily[i]
		t.rows = append(t.rows, []cell{{v: s.Key.Start}, {v: s.Calls}, {v: s.PricedCalls}, moneyCell(s.Official, wb.curOf(s)),
			moneyCell(s.Recorded, wb.curOf(s)), moneyCell(s.Gap, wb.curOf(s)), ratioCell(s.Ratio), ratioCell(s.PeakShare())})
	}
	total := wb.totalRow(len(t.cols), 1, 3)
	total[0] = cell{v: "Total", bold: true}
	t.total = total
	if n := len(t.rows); n > 0 {
		last := firstRow + n - 1
		ref := func(col string) string {
			return fmt.Sprintf("'%s'!$%s$%d:$%s$%d", SheetDaily, col, firstRow, col, last)
		}
		t.charts = []*excelize.Chart{{
			Type: excelize.Col,
			Series: []excelize.ChartSeries{
				{Name: fmt.Sprintf("'%s'!$D$%d", SheetDaily, headerRow), Categories: ref("A"), Values: ref("D")},
				{Name: fmt.Sprintf("'%s'!$E$%d", SheetDaily, headerRow), Categories: ref("A"), Values: ref("E")},
			},
			Title:     chartTitle("Official cost and recorded spend by day"),
			XAxis:     dayAxis(wb.m),
			YAxis:     excelize.ChartAxis{Title: chartTitle(orDefault(wb.cur, "cost")), MajorGridLines: true, Font: axisFont, NumFmt: excelize.ChartNumFmt{CustomNumFmt: "#,##0.##"}},
			Legend:    excelize.ChartLegend{Position: "bottom"},
			Dimension: excelize.ChartDimension{Width: 720, Height: 360},
		}}
	}
	return t
}

// axisFont keeps tick labels readable when printed.
var axisFont = excelize.Font{Color: "404040", Size: 9}

// dayAxis is the category axis of a chart by day: the day of the month.
func dayAxis(m *pricing.Month) excelize.ChartAxis {
	return excelize.ChartAxis{Title: chartTitle(m.From.In(m.Zone).Format("January 2006") + " (" + m.Zone.String() + ")"),
		Font: axisFont, NumFmt: excelize.ChartNumFmt{CustomNumFmt: "d"}}
}

func chartTitle(s string) excelize.ChartTitle {
	return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s}}}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// peakShare lays the share of tokens at peak out by day (rows) and model
// (columns), for the models whose prices differ between periods.
func (wb *workbook) peakShare() *table {
	var models []string
	seen := map[string]bool{}
	for _, s := range wb.m.ModelDaily {
		if s.TimedTokens > 0 && !seen[s.Key.Model] {
			seen[s.Key.Model] = true
			models = append(models, s.Key.Model)
		}
	}
	sort.Strings(models)
	t := &table{sheet: SheetPeakShare, caption: wb.caption("Share of tokens billed in the dearest period, by day and model"),
		cols: []column{{"Day", kindDay}, {"All models", kindRatio}}}
	t.titleCols = 1
	for _, m := range models {
		t.cols = append(t.cols, column{m, kindRatio})
	}
	index := map[string]int{}
	for i, m := range models {
		index[m] = i + 2
	}
	byDay := map[time.Time][]cell{}
	for i := range wb.m.Daily {
		s := &wb.m.Daily[i]
		row := make([]cell, len(t.cols))
		row[0], row[1] = cell{v: s.Key.Start}, ratioCell(s.PeakShare())
		byDay[s.Key.Start] = row
		t.rows = append(t.rows, row)
	}
	for i := range wb.m.ModelDaily {
		s := &wb.m.ModelDaily[i]
		if row, ok := byDay[s.Key.Start]; ok && index[s.Key.Model] > 0 {
			row[index[s.Key.Model]] = ratioCell(s.PeakShare())
		}
	}
	if n := len(t.rows); n > 0 {
		last := firstRow + n - 1
		chart := &excelize.Chart{
			Type:      excelize.Line,
			Title:     chartTitle("Share of tokens billed at peak, by day"),
			XAxis:     dayAxis(wb.m),
			YAxis:     excelize.ChartAxis{Title: chartTitle("Peak share"), MajorGridLines: true, Font: axisFont, Minimum: ptr(0.0), Maximum: ptr(1.0), NumFmt: excelize.ChartNumFmt{CustomNumFmt: "0%"}},
			Legend:    excelize.ChartLegend{Position: "bottom"},
			Dimension: excelize.ChartDimension{Width: 720, Height: 360},
		}
		for c := 2; c <= len(t.cols); c++ {
			col, _ := excelize.ColumnNumberToName(c)
			chart.Series = append(chart.Series, excelize.ChartSeries{
				Name:       fmt.Sprintf("'%s'!$%s$%d", SheetPeakShare, col, headerRow),
				Categories: fmt.Sprintf("'%s'!$A$%d:$A$%d", SheetPeakShare, firstRow, last),
				Values:     fmt.Sprintf("'%s'!$%s$%d:$%s$%d", SheetPeakShare, col, firstRow, col, last),
			})
		}
		t.charts = []*excelize.Chart{chart}
	}
	return t
}

// blended lists each model's blended prices beside the rates the gateway's
// recorded spend matches, when one rate set does.
func (wb *workbook) blended() *table {
	bl := wb.m.Blend
	t := &table{sheet: SheetBlended,
		caption: wb.caption(fmt.Sprintf("Blended prices per 1M tokens (a tool: uses, per use) over %s to %s (%d days before the month's end)",
			wb.m.BlendFrom.In(wb.m.Zone).Format("2006-01-02"), wb.m.Until.In(wb.m.Zone).AddDate(0, 0, -1).Format("2006-01-02"), pricing.BlendDays)),
		cols: []column{{"Model", kindText}, {"Usage", kindText}, {"Tokens", kindInt}, {"Peak share of tokens", kindRatio},
			{"Off-peak price", kindPrice}, {"Peak price", kindPrice}, {"Blended price", kindPrice},
			{"Gateway recorded at", kindPrice}, {"Recorded rate set", kindNote}, {"Model recorded ÷ official (month)", kindRatio}, {"Currency", kindText}}}
	t.titleCols = 2
	t.empty = wb.noBlend()
	matched := wb.recordedRates()
	ratios := map[string]cell{}
	// A month's reconciliation lists its groups (pricing.MonthOf), and
	// is not closed: reading them cannot fail.
	for g, err := range wb.m.Reconciliation.Groups() {
		if err != nil {
			break
		}
		ratios[g.Key.Model] = ratioCell(g.Ratio)
	}
	for _, bm := range bl.WithCalls().Models {
		mr := matched[bm.Model]
		for _, p := range bm.Prices {
			share := cell{v: p.PeakShare}
			if p.OffPeak.Equal(p.Peak) {
				share = cell{} // one price at all hours: no peak
			}
			row := []cell{{v: bm.Model}, {v: p.Usage.String()}, {v: p.Tokens}, share, moneyCell(p.OffPeak, bm.Currency),
				moneyCell(p.Peak, bm.Currency), moneyCell(p.Blended, bm.Currency), {}, {v: mr.label},
				ratios[bm.Model], {v: bm.Currency}}
			if mr.label == "" {
				// No flat rate set was looked for: recorded equals official
				// (to rounding) on the model's priced calls.
				row[8] = cell{v: "recorded equals official on priced calls"}
				if p.OffPeak.Equal(p.Peak) {
					row[7] = moneyCell(p.Peak, bm.Currency)
				}
			}
			if mr.rates != nil {
				row[7] = moneyCell(mr.rates.Price(p.Usage), bm.Currency)
			}
			t.rows = append(t.rows, row)
		}
	}
	return t
}

// noBlend says why the blend has no row.
func (wb *workbook) noBlend() string {
	m := wb.m
	day := func(t time.Time) string { return t.In(m.Zone).Format("2006-01-02 15:04") }
	switch {
	case m.Span.Last.IsZero():
		return "No blended prices: no call in the month."
	case m.Span.Last.Before(m.BlendFrom):
		return fmt.Sprintf("No blended prices: the blend window starts %s, %d days before the month's end, and the data ends %s, before it. Blend the days there are with tokenfare blend --as-of.",
			day(m.BlendFrom), pricing.BlendDays, day(m.Span.Last))
	}
	return fmt.Sprintf("No blended prices: no priced call of a model in the blend window %s to %s.", day(m.BlendFrom), day(m.Until))
}

// matchedRates is the rate set a model's recorded spend matches.
type matchedRates struct {
	rates *tariffs.Rates
	label string
}

// recordedRates finds, per model, the rates of the flat_price or
// cached_as_input explanation: the price the gateway recorded at; or says
// that none matches. Models with neither recorded their official cost.
func (wb *workbook) recordedRates() map[string]matchedRates {
	out := map[string]matchedRates{}
	models := map[string]*tariffs.Model{}
	for _, u := range wb.m.Versions {
		models[u.Model.ID] = u.Model
	}
	for _, x := range wb.m.Reconciliation.Explanations {
		if x.Kind == pricing.KindUnexplained {
			out[x.Model] = matchedRates{label: "no single flat rate set matches"}
		}
		if x.Kind != pricing.KindFlatPrice && x.Kind != pricing.KindCachedAsInput {
			continue
		}
		m := models[x.Model]
		if m == nil {
			continue
		}
		whose := m
		if x.RatesOf != "" {
			whose = nil
			for _, o := range m.Provider.Models {
				if o.ID == x.RatesOf {
					whose = o
				}
			}
		}
		r := versionRates(m.Provider, x.Version, whose, x.Period)
		if r == nil {
			continue
		}
		cp := *r
		if x.Kind == pricing.KindCachedAsInput {
			cp.Set(tariffs.CacheRead, cp.Price(tariffs.Input))
		}
		if x.OneHourAtFiveMinute {
			cp.Set(tariffs.CacheWrite1h, cp.Price(tariffs.CacheWrite))
		}
		if x.NoToolFees {
			for _, u := range tariffs.Tools {
				cp.Set(u, decimal.Zero)
			}
		}
		r = &cp
		label := fmt.Sprintf("%s, version %s", x.Period, x.Version)
		if x.RatesOf != "" {
			label = x.RatesOf + "'s " + label
		}
		if x.Kind == pricing.KindCachedAsInput {
			label += ", cache reads at the input price"
		}
		if x.OneHourAtFiveMinute {
			label += ", 1-hour cache writes at the 5-minute price"
		}
		if x.NoToolFees {
			label += ", no tool fees"
		}
		out[x.Model] = matchedRates{rates: r, label: label}
	}
	return out
}

// versionRates returns the base rates of model m in period of the named version.
func versionRates(p *tariffs.Provider, version string, m *tariffs.Model, period string) *tariffs.Rates {
	if m == nil {
		return nil
	}
	for _, v := range p.Versions {
		if v.Name != version || v.Prices[m] == nil {
			continue
		}
		for i, name := range v.Periods {
			if name == period {
				return v.Prices[m].RatesAt(i, 0)
			}
		}
	}
	return nil
}

func (wb *workbook) discrepancies() *table {
	rec := wb.m.Reconciliation
	t := &table{sheet: SheetDiscrepancies, caption: wb.caption("What explains the gap (amounts are parts of official − recorded)"),
		cols: []column{{"Kind", kindText}, {"Model", kindText}, {"Calls", kindInt}, {"Amount", kindMoney},
			{"Version", kindText}, {"Period", kindText}, {"Rates of", kindText}, {"Detail", kindNote}, {"What to do", kindNote}}}
	t.titleCols = 2
	for _, x := range rec.Explanations {
		t.rows = append(t.rows, []cell{{v: x.Kind.String()}, {v: explained(x)}, {v: x.Calls}, moneyCell(x.Amount, wb.cur),
			{v: x.Version}, {v: x.Period}, {v: x.RatesOf}, {v: x.Detail}, {v: x.Hint()}})
	}
	t.total = bold([]cell{{v: "Gap"}, {}, {}, moneyCell(rec.Totals.Gap, wb.cur), {}, {}, {},
		{v: fmt.Sprintf("of which explained %s", rec.Totals.Explained)}, {}})
	return t
}

// billed lists what priced calls were billed for beyond plain tokens:
// 1-hour cache writes and tool uses with their cost, the calls of each
// service tier and region with theirs, and what the tariff does not price.
func (wb *workbook) billed() *table {
	t := &table{sheet: SheetBilled, caption: wb.caption("Billed beyond tokens: 1-hour cache writes, tool uses, service tiers and regions"),
		cols: []column{{"What", kindText}, {"Quantity", kindInt}, {"Unit", kindText}, {"Official cost", kindMoney},
			{"Not priced by the tariff", kindInt}, {"Currency", kindText}}}
	for _, m := range wb.m.Reconciliation.Billed {
		t.rows = append(t.rows, []cell{{v: m.What()}, {v: m.Quantity}, {v: m.Unit()}, moneyCell(m.Official, m.Currency),
			{v: m.Unpriced}, {v: m.Currency}})
	}
	return t
}

// tariffs lists the rates in force during the month of every model that
// priced calls: by version, period and prompt-size tier.
func (wb *workbook) tariffs() *table {
	t := &table{sheet: SheetTariffs, caption: wb.caption("Rates in force during the month, per 1M tokens (per call for requests)"),
		cols: []column{{"Provider", kindText}, {"Model", kindText}, {"Version", kindText}, {"In force from (UTC)", kindInstant},
			{"Until (UTC)", kindInstant}, {"Period", kindText}, {"Period hours (provider time)", kindText}, {"Prompt tier", kindText},
			{"Input", kindPrice}, {"Cache read", kindPrice}, {"Cache write", kindPrice}, {"Cache write 1h", kindPrice}, {"Output", kindPrice},
			{"Reasoning", kindPrice}, {"Request", kindPrice}, {"Web search (per use)", kindPrice}, {"Web fetch (per use)", kindPrice},
			{"File search (per use)", kindPrice}, {"Currency", kindText}, {"Source", kindText}, {"Source kind", kindText}, {"Promotion", kindText}}}
	t.titleCols = 2
	seen := map[*tariffs.Model]bool{}
	for _, u := range wb.m.Versions {
		if seen[u.Model] {
			continue
		}
		seen[u.Model] = true
		for _, v := range u.Model.Provider.Versions {
			mp := v.Prices[u.Model]
			if mp == nil || !v.Effective.Before(wb.m.Until) || (!v.End.IsZero() && !v.End.After(wb.m.From)) {
				continue
			}
			for tier := 0; tier <= len(mp.Tiers); tier++ {
				for p, name := range v.Periods {
					t.rows = append(t.rows, wb.rateRow(u.Model, v, p, name, tier, mp))
				}
			}
		}
	}
	return t
}

func (wb *workbook) rateRow(m *tariffs.Model, v *tariffs.Version, p int, name string, tier int, mp *tariffs.ModelPrices) []cell {
	cur := m.Provider.Currency
	r := mp.RatesAt(p, tier)
	tierName := "all prompts"
	if tier > 0 {
		tierName = fmt.Sprintf("prompt above %d tokens", mp.Tiers[tier-1].Above)
	} else if len(mp.Tiers) > 0 {
		tierName = fmt.Sprintf("prompt up to %d tokens", mp.Tiers[0].Above)
	}
	row := []cell{{v: m.Provider.Name}, {v: m.ID}, {v: v.Name}, {v: v.Effective.UTC()}, {}, {v: name},
		{v: periodHours(v, p)}, {v: tierName}}
	if !v.End.IsZero() {
		row[4] = cell{v: v.End.UTC()}
	}
	for _, u := range []tariffs.Usage{tariffs.Input, tariffs.CacheRead, tariffs.CacheWrite, tariffs.CacheWrite1h, tariffs.Output,
		tariffs.Reasoning, tariffs.Request, tariffs.WebSearch, tariffs.WebFetch, tariffs.FileSearch} {
		switch {
		case u == tariffs.Request && !r.Listed(u):
			row = append(row, cell{})
		case (u == tariffs.CacheWrite1h || u.IsTool()) && !r.Priced(u):
			// 1-hour writes and tools the tariff does not price: empty,
			// unpriced rather than free.
			row = append(row, cell{})
		default:
			row = append(row, moneyCell(r.Price(u), cur))
		}
	}
	source := strings.Join(v.Sources, " ")
	if source == "" {
		source = "the tariff file's sources"
	}
	row = append(row, cell{v: cur}, cell{v: source}, cell{v: v.Basis.String()}, cell{v: wb.promotion(v.PromotionOf(m))})
	return row
}

// promotion describes a model's promotion in a version for the Tariffs sheet, saying
// when its stated end passed before the month's: "promotion through
// 2026-11-21 (ended before the month's end)"; "" for none.
func (wb *workbook) promotion(pr *tariffs.Promotion) string {
	if pr == nil {
		return ""
	}
	if pr.EndedBy(wb.m.Until) {
		return pr.String() + " (ended before the month's end)"
	}
	return pr.String()
}

// periodHours describes when period p of v applies, on the provider's clock.
func periodHours(v *tariffs.Version, p int) string {
	if p == 0 {
		if len(v.Periods) == 1 {
			return "all hours"
		}
		return "all other hours"
	}
	for _, d := range v.Defs {
		if d.Name != v.Periods[p] {
			continue
		}
		var ws []string
		for _, w := range d.Windows {
			ws = append(ws, w.String())
		}
		days := "every day"
		if len(d.Weekdays) > 0 {
			var names []string
			for _, wd := range d.Weekdays {
				names = append(names, wd.String()[:3])
			}
			days = strings.Join(names, " ")
		}
		return fmt.Sprintf("%s %s (%s)", days, strings.Join(ws, ", "), v.Zone)
	}
	return ""
}

// providerUsage sets the gateway, the tariff and the provider side by side,
// one row per UTC day, model and key (for providers aligned by key), with
// the tariff drift in a second table below.
func (wb *workbook) providerUsage(tw *threeway.Reconciliation) *table {
	t := &table{sheet: SheetProvider, caption: wb.caption("Gateway, tariff and provider's exports by UTC day, model and key (gap = billed − recorded)"),
		cols: []column{{"Day (UTC)", kindDay}, {"Provider", kindText}, {"Model", kindText}, {"Key", kindText},
			{"Gateway calls", kindInt}, {"Provider requests", kindInt}, {"Missing calls", kindInt}, {"Unknown calls", kindInt},
			{"Missing input tokens", kindInt}, {"Missing cache read tokens", kindInt}, {"Missing cache write tokens", kindInt}, {"Missing output tokens", kindInt},
			{"Unknown input tokens", kindInt}, {"Unknown cache read tokens", kindInt}, {"Unknown cache write tokens", kindInt}, {"Unknown output tokens", kindInt},
			{"Recorded spend", kindMoney}, {"Official cost", kindMoney}, {"Official cost of provider's tokens", kindMoney}, {"Billed", kindMoney},
			{"Gap (billed − recorded)", kindMoney}}}
	for _, k := range partColumns {
		t.cols = append(t.cols, column{partHeaders[k], kindMoney})
	}
	t.cols = append(t.cols, column{"Currency", kindText}, column{"Note", kindNote}, column{"Key (SHA-256)", kindText})
	t.noPrint, t.titleCols = 1, 4
	tokens := map[string]*[2]pricing.TokenCounts{} // missing and unknown, by provider
	for i := range tw.Cells {
		c := &tw.Cells[i]
		cur := orDefault(c.Currency, wb.cur)
		sum := tokens[c.Provider]
		if sum == nil {
			sum = &[2]pricing.TokenCounts{}
			tokens[c.Provider] = sum
		}
		sum[0].Add(&c.Missing)
		sum[1].Add(&c.Unknown)
		row := []cell{{v: c.Day}, {v: c.Provider}, {v: c.Model}, {v: shortHash(c.Key)}, {v: c.GatewayCalls}, {}, {v: c.MissingCalls}, {v: c.UnknownCalls}}
		if c.HasRequests {
			row[5] = cell{v: c.ProviderRequests}
		}
		for _, tk := range []pricing.TokenCounts{c.Missing, c.Unknown} {
			row = append(row, cell{v: tk.Input}, cell{v: tk.CacheRead}, cell{v: tk.CacheWrite}, cell{v: tk.Output})
		}
		row = append(row, moneyCell(c.Recorded, cur), moneyCell(c.Official, cur), nullMoney(c.ProviderOfficial, cur), cell{}, nullMoney(c.Gap, cur))
		if c.HasBilled {
			row[19] = moneyCell(c.Billed, cur)
		}
		for _, k := range partColumns {
			amount := decimal.Zero
			for _, p := range c.Parts {
				if p.Kind == k {
					amount = p.Amount
				}
			}
			row = append(row, moneyCell(amount, cur))
		}
		t.rows = append(t.rows, append(row, cell{v: cur}, cell{v: c.Note}, cell{v: c.Key}))
	}
	curs := map[string]string{}
	for _, p := range tw.Providers {
		curs[p.Provider] = p.Currency
		t.totals = append(t.totals, providerTotalRow(&p, tokens[p.Provider], len(t.cols)))
	}
	b := &section{caption: "Tariff drift: what the provider billed against the tariff's price of the provider's tokens, per 1M tokens (per call for requests)",
		cols: []column{{"Provider", kindText}, {"Model", kindText}, {"Version", kindText}, {"Period", kindText}, {"Usage", kindText},
			{"First day (UTC)", kindDay}, {"Last day (UTC)", kindDay}, {"Tokens", kindInt}, {"Tariff price", kindPrice}, {"Billed price", kindPrice},
			{"Official cost", kindMoney}, {"Billed", kindMoney}, {"Drift (billed − official)", kindMoney}, {"Rounding only", kindText}, {"Currency", kindText}}}
	for _, d := range tw.Drifts {
		cur := orDefault(curs[d.Provider], wb.cur)
		rounding := ""
		if d.Rounding {
			rounding = "yes"
		}
		b.rows = append(b.rows, []cell{{v: d.Provider}, {v: d.Model}, {v: d.Version}, {v: d.Period}, {v: driftUsage(d.Usage)},
			{v: d.First}, {v: d.Last}, {v: d.Tokens}, nullMoney(d.TariffPrice, cur), nullMoney(d.BilledPrice, cur),
			moneyCell(d.Official, cur), moneyCell(d.Billed, cur), moneyCell(d.Drift, cur), {v: rounding}, {v: cur}})
	}
	t.below = b
	return t
}

// providerTotalRow is the bold total row of one provider's cells, as
// reconcile --provider-usage prints it, in the provider's currency.
func providerTotalRow(p *threeway.ProviderTotals, tk *[2]pricing.TokenCounts, n int) []cell {
	row := make([]cell, 0, n)
	row = append(row, cell{v: "Total"}, cell{v: p.Provider}, cell{v: fmt.Sprintf("%d cells", p.Cells)}, cell{},
		cell{v: p.GatewayCalls}, cell{}, cell{v: p.MissingCalls}, cell{v: p.UnknownCalls})
	if p.HasRequests {
		row[5] = cell{v: p.ProviderRequests}
	}
	if tk == nil {
		tk = &[2]pricing.TokenCounts{}
	}
	for _, t := range tk {
		row = append(row, cell{v: t.Input}, cell{v: t.CacheRead}, cell{v: t.CacheWrite}, cell{v: t.Output})
	}
	cur := p.Currency
	row = append(row, moneyCell(p.Recorded, cur), moneyCell(p.Official, cur), moneyCell(p.ProviderOfficial, cur), cell{}, nullMoney(p.Gap, cur))
	if p.HasBilled {
		row[19] = moneyCell(p.Billed, cur)
	}
	for _, k := range partColumns {
		amount := decimal.Zero
		for _, x := range p.Parts {
			if x.Kind == k {
				amount = x.Amount
			}
		}
		row = append(row, moneyCell(amount, cur))
	}
	row = append(row, cell{v: cur})
	for len(row) < n {
		row = append(row, cell{})
	}
	return bold(row)
}

// partHeaders head the columns of the parts of a three-way gap.
var partHeaders = map[threeway.PartKind]string{
	threeway.PartRecordedVsTariff:      "Recorded vs tariff",
	threeway.PartMissingUsage:          "Missing usage",
	threeway.PartUnknownUsage:          "Unknown usage",
	threeway.PartTariffDrift:           "Tariff drift",
	threeway.PartBilledVsGatewayTokens: "Billed vs gateway tokens",
	threeway.PartUnattributed:          "Unattributed billing",
	threeway.PartUnbilled:              "Unbilled usage",
}

// nullMoney is an amount, or an empty cell when there is none.
func nullMoney(d decimal.NullDecimal, cur string) cell {
	if !d.Valid {
		return cell{}
	}
	return moneyCell(d.Decimal, cur)
}

package reports

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"
)

// Cell kinds of a workbook table column; each has its number format.
type cellKind uint8

const (
	kindText    cellKind = iota // text from the data: always a text cell, never a formula
	kindInt                     // a count: #,##0
	kindMoney                   // money: the row's currency, two to ten decimals
	kindPrice                   // a price per 1M tokens: as money
	kindRatio                   // a ratio shown as a percentage
	kindDay                     // a calendar day
	kindInstant                 // a date and time (UTC)
	kindNote                    // long text, wrapped
)

// column is one column of a workbook table.
type column struct {
	header string
	kind   cellKind
}

// cell is one value of a table row: a string, int64, decimal.Decimal (with
// the currency of its row), a ratio (decimal.Decimal), a time.Time or nil.
type cell struct {
	v        any
	currency string
	bold     bool
	right    bool // text aligned right, as the exact amounts in the Summary
	wrap     bool // long text wrapped within its column (Summary), or across span columns
	span     int  // Summary: the cell is merged with the span−1 cells right of it
}

// table is a sheet's table: a caption row, a header row, data rows and an
// optional total row below the filtered range.
type table struct {
	sheet   string
	caption string
	cols    []column
	rows    [][]cell
	total   []cell
	totals  [][]cell          // further total rows below total, e.g. one per provider
	charts  []*excelize.Chart // anchored right of the table
	below   *section          // a second table below the total, after a blank row; outside the filter
	chartAt string            // anchor cell of the first chart; default right of the table
	// empty says, in the first data row, why the table has no rows.
	empty string
	// noPrint is how many columns at the right are left off the printed
	// page: full hashes, shown shortened in a printed column.
	noPrint int
	// titleCols is how many columns at the left name a row; they are
	// printed again on each page when the table is more than a page wide.
	titleCols int
}

// section is a second table on a table's sheet: its caption, its own
// header and rows, in the table's column widths.
type section struct {
	caption string
	cols    []column
	rows    [][]cell
	next    *section // a further section below this one, after a blank row
}

// Rows of a table sheet: the caption, the header, then the data.
const (
	captionRow = 1
	headerRow  = 2
	firstRow   = 3
)

// Widths of columns, in characters.
const (
	minWidth  = 8
	maxWidth  = 60
	noteWidth = 90
)

// styles are the workbook's cell styles, created once per file.
type styles struct {
	f        *excelize.File
	caption  int
	header   int
	headerR  int // header of a numeric column, right-aligned
	text     int
	exact    int // exact amounts as text, set off from the numbers beside
	note     int
	integer  int
	ratio    int
	day      int
	instant  int
	money    map[string]int // by currency and boldness
	totalInt int
	totalTxt int
	totalPct int
}

func newStyles(f *excelize.File) (*styles, error) {
	s := &styles{f: f, money: map[string]int{}}
	text := "@"
	// Data cells align at the top, beside wrapped text that spans lines.
	top := &excelize.Alignment{Vertical: "top"}
	border := []excelize.Border{{Type: "bottom", Color: "808080", Style: 1}}
	specs := []struct {
		id    *int
		style excelize.Style
	}{
		{&s.caption, excelize.Style{Font: &excelize.Font{Bold: true, Size: 13}}},
		{&s.header, excelize.Style{Font: &excelize.Font{Bold: true}, Border: border,
			Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"DDE6F0"}},
			Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}}},
		{&s.headerR, excelize.Style{Font: &excelize.Font{Bold: true}, Border: border,
			Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"DDE6F0"}},
			Alignment: &excelize.Alignment{WrapText: true, Vertical: "top", Horizontal: "right"}}},
		{&s.text, excelize.Style{CustomNumFmt: &text, Alignment: top}},
		{&s.exact, excelize.Style{CustomNumFmt: &text, Alignment: &excelize.Alignment{Vertical: "top", Horizontal: "right"}}},
		{&s.note, excelize.Style{CustomNumFmt: &text, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}}},
		{&s.integer, excelize.Style{NumFmt: 3, Alignment: top}},
		{&s.ratio, excelize.Style{NumFmt: 10, Alignment: top}},
		{&s.day, excelize.Style{CustomNumFmt: ptr("yyyy-mm-dd"), Alignment: top}},
		{&s.instant, excelize.Style{CustomNumFmt: ptr("yyyy-mm-dd hh:mm:ss"), Alignment: top}},
		{&s.totalInt, excelize.Style{NumFmt: 3, Font: &excelize.Font{Bold: true}}},
		{&s.totalTxt, excelize.Style{CustomNumFmt: &text, Font: &excelize.Font{Bold: true}}},
		{&s.totalPct, excelize.Style{NumFmt: 10, Font: &excelize.Font{Bold: true}}},
	}
	for _, sp := range specs {
		id, err := f.NewStyle(&sp.style)
		if err != nil {
			return nil, err
		}
		*sp.id = id
	}
	return s, nil
}

func ptr[T any](v T) *T { return &v }

// moneyFormat is the number format of amounts in currency cur: its symbol,
// thousands separators, at least two and up to ten decimals, so that a
// sub-cent call shows its cost.
func moneyFormat(cur string) string {
	const digits = "#,##0.00########"
	switch cur {
	case "USD":
		return `[$$-409]` + digits
	case "CNY":
		return `[$¥-804]` + digits
	case "EUR":
		return `[$€-x-euro2] ` + digits
	case "":
		return digits
	}
	if strings.ContainsAny(cur, `+"\`) {
		return digits
	}
	return digits + ` "` + cur + `"`
}

// moneyStyle returns the style of amounts in cur.
func (s *styles) moneyStyle(cur string, bold bool) (int, error) {
	key := fmt.Sprint(cur, bold)
	if id, ok := s.money[key]; ok {
		return id, nil
	}
	st := excelize.Style{CustomNumFmt: ptr(moneyFormat(cur)), Alignment: &excelize.Alignment{Vertical: "top"}}
	if bold {
		st.Font = &excelize.Font{Bold: true}
	}
	id, err := s.f.NewStyle(&st)
	if err != nil {
		return 0, err
	}
	s.money[key] = id
	return id, nil
}

// SignificantDigits is how many significant digits a money cell keeps: the
// XLSX format stores numbers as binary doubles, which hold 15 decimal
// digits exactly. Totals are also written as exact text in the Summary.
const SignificantDigits = 15

// cellNumber returns d rounded to SignificantDigits significant digits, as
// the double a spreadsheet stores: every decimal of at most 15 significant
// digits survives the round trip through a double and back unchanged.
func cellNumber(d decimal.Decimal) float64 {
	intDigits := int32(d.NumDigits()) + d.Exponent()
	f, _ := d.Round(SignificantDigits - intDigits).Float64()
	return f
}

// value turns a cell into what the stream writer writes, with its style.
func (s *styles) value(c cell, k cellKind) (any, error) {
	if c.v == nil {
		return nil, nil
	}
	var style int
	var v any
	switch x := c.v.(type) {
	case string:
		style, v = s.text, x
		if k == kindNote {
			style = s.note
		}
		if c.bold {
			style = s.totalTxt
		}
	case int64:
		style, v = s.integer, x
		if c.bold {
			style = s.totalInt
		}
	case decimal.Decimal:
		v = cellNumber(x)
		if k == kindRatio {
			style = s.ratio
			if c.bold {
				style = s.totalPct
			}
			break
		}
		var err error
		if style, err = s.moneyStyle(c.currency, c.bold); err != nil {
			return nil, err
		}
	case time.Time:
		style, v = s.instant, x
		if k == kindDay {
			style = s.day
			y, m, d := x.Date()
			v = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		}
	default:
		return nil, fmt.Errorf("workbook: no cell kind for %T", c.v)
	}
	return excelize.Cell{StyleID: style, Value: v}, nil
}

// display is how wide a cell shows, in characters.
func display(c cell, k cellKind) int {
	switch x := c.v.(type) {
	case nil:
		return 0
	case string:
		return utf8.RuneCountInString(x)
	case int64:
		n := len(fmt.Sprint(x))
		return n + (n-1)/3
	case decimal.Decimal:
		if k == kindRatio {
			return len(x.Shift(2).StringFixed(2)) + 1
		}
		// The format shows up to ten decimals, with separators and symbol.
		r := x.Round(10)
		n := len(r.Truncate(0).Abs().String())
		dec := max(2, int(-r.Exponent()))
		return n + (n-1)/3 + 1 + dec + 3
	case time.Time:
		if k == kindDay {
			return 10
		}
		return 19
	}
	return 10
}

// widths fits each column to its header and widest cell.
func (t *table) widths() []float64 {
	w := make([]float64, len(t.cols))
	for i, c := range t.cols {
		// A header wraps onto two lines at most; leave room for the filter button.
		longest := 0
		for _, word := range strings.Fields(c.header) {
			longest = max(longest, utf8.RuneCountInString(word))
		}
		w[i] = float64(max(longest, (utf8.RuneCountInString(c.header)+1)/2) + 3)
	}
	grow := func(cols []column, row []cell) {
		for i, c := range row {
			if i < len(w) {
				w[i] = max(w[i], float64(display(c, cols[i].kind)+2))
			}
		}
	}
	for _, r := range t.rows {
		grow(t.cols, r)
	}
	grow(t.cols, t.total)
	for _, r := range t.totals {
		grow(t.cols, r)
	}
	for b := t.below; b != nil; b = b.next {
		for i, c := range b.cols {
			if i < len(w) {
				w[i] = max(w[i], float64(utf8.RuneCountInString(c.header)+3))
			}
		}
		for _, r := range b.rows {
			grow(b.cols, r)
		}
	}
	for i, c := range t.cols {
		limit := float64(maxWidth)
		if c.kind == kindNote {
			limit = noteWidth
		}
		w[i] = min(max(w[i], minWidth), limit)
	}
	return w
}

// write adds the table as a new sheet: charts, filter, frozen header and
// page setup first, then the rows through the stream writer, so that
// memory does not grow with the rows.
func (t *table) write(f *excelize.File, s *styles) error {
	if _, err := f.NewSheet(t.sheet); err != nil {
		return err
	}
	last := firstRow + len(t.rows) - 1
	lastCol, err := excelize.ColumnNumberToName(len(t.cols))
	if err != nil {
		return err
	}
	if len(t.rows) > 0 {
		if err := f.AutoFilter(t.sheet, fmt.Sprintf("A%d:%s%d", headerRow, lastCol, last), nil); err != nil {
			return err
		}
	}
	if err := t.addCharts(f); err != nil {
		return err
	}
	widths := t.widths()
	if err := t.pageSetup(f, widths, t.lastRow()); err != nil {
		return err
	}
	// The stream writer writes the sheet's <dimension> as it starts: set
	// the true range first, or readers that trust it (openpyxl read-only)
	// see A1 alone.
	if err := setDimension(f, t.sheet, t.lastCol(), t.lastRow()); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(t.sheet)
	if err != nil {
		return err
	}
	for i, w := range widths {
		if err := sw.SetColWidth(i+1, i+1, w); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: headerRow, TopLeftCell: fmt.Sprintf("A%d", firstRow), ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	if err := sw.SetRow("A1", []any{excelize.Cell{StyleID: s.caption, Value: t.caption}}); err != nil {
		return err
	}
	if err := writeHeader(sw, s, headerRow, t.cols); err != nil {
		return err
	}
	row := firstRow
	if len(t.rows) == 0 && t.empty != "" {
		if err := sw.SetRow(fmt.Sprintf("A%d", row), []any{excelize.Cell{StyleID: s.text, Value: t.empty}}); err != nil {
			return err
		}
		row++
	}
	for _, r := range t.rows {
		if err := writeRow(sw, s, row, t.cols, r, widths); err != nil {
			return err
		}
		row++
	}
	for _, r := range append([][]cell{t.total}, t.totals...) {
		if r == nil {
			continue
		}
		if err := writeRow(sw, s, row, t.cols, r, widths); err != nil {
			return err
		}
		row++
	}
	for b := t.below; b != nil; b = b.next {
		row++ // a blank row sets the section off
		if err := sw.SetRow(fmt.Sprintf("A%d", row), []any{excelize.Cell{StyleID: s.caption, Value: b.caption}}); err != nil {
			return err
		}
		if err := writeHeader(sw, s, row+1, b.cols); err != nil {
			return err
		}
		row += 2
		for _, r := range b.rows {
			if err := writeRow(sw, s, row, b.cols, r, widths); err != nil {
				return err
			}
			row++
		}
	}
	return sw.Flush()
}

// lastCol is the number of the table's last column, the sections below
// included.
func (t *table) lastCol() int {
	n := len(t.cols)
	for b := t.below; b != nil; b = b.next {
		n = max(n, len(b.cols))
	}
	return n
}

// setDimension records the range a sheet uses, A1 to the cell at column
// cols and row rows, in its <dimension> element.
func setDimension(f *excelize.File, sheet string, cols, rows int) error {
	end, err := excelize.CoordinatesToCellName(max(cols, 1), max(rows, 1))
	if err != nil {
		return err
	}
	return f.SetSheetDimension(sheet, "A1:"+end)
}

// lastRow is the number of the table's last row, the section below included.
func (t *table) lastRow() int {
	n := headerRow + len(t.rows) + len(t.totals)
	if len(t.rows) == 0 && t.empty != "" {
		n++
	}
	if t.total != nil {
		n++
	}
	for b := t.below; b != nil; b = b.next {
		n += 3 + len(b.rows)
	}
	return n
}

// pageSetup prints the table landscape with its header on every page, the columns left of noPrint only, as many pages wide as its
// columns need to stay legible (the name columns printed on each).
func (t *table) pageSetup(f *excelize.File, widths []float64, lastRow int) error {
	printed := len(t.cols) - t.noPrint
	var width float64
	for _, w := range widths[:printed] {
		width += w
	}
	if len(t.charts) > 0 {
		width += chartChars
	}
	wide := max(1, int(math.Ceil(width/pageChars)))
	if err := pageSetup(f, t.sheet, wide, t.caption); err != nil {
		return err
	}
	// The header row, not the caption: a caption runs on across the
	// columns of the first page and would print cut on the others.
	titles := fmt.Sprintf("'%s'!$%d:$%d", t.sheet, headerRow, headerRow)
	if wide > 1 && t.titleCols > 0 {
		last, _ := excelize.ColumnNumberToName(t.titleCols)
		titles = fmt.Sprintf("'%s'!$A:$%s,%s", t.sheet, last, titles)
	}
	if err := f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", RefersTo: titles, Scope: t.sheet}); err != nil {
		return err
	}
	if t.noPrint == 0 {
		return nil
	}
	lastCol, _ := excelize.ColumnNumberToName(printed)
	return f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Area",
		RefersTo: fmt.Sprintf("'%s'!$A$1:$%s$%d", t.sheet, lastCol, max(lastRow, headerRow)), Scope: t.sheet})
}

// Printed page widths, in characters of column width: a landscape A4 or
// Letter page holds about 110 at full size (LibreOffice's rendering);
// fitting up to 200 on one page keeps the text at 55 % or more (6 points
// of the 11 of the cells), a wider table goes on more pages wide with the
// columns that name its rows on each. A chart beside a table takes about
// 100.
const (
	pageChars  = 200
	chartChars = 90
)

// writeHeader writes a header row of cols at row.
func writeHeader(sw *excelize.StreamWriter, s *styles, row int, cols []column) error {
	header := make([]any, len(cols))
	for i, c := range cols {
		style := s.header
		if c.kind != kindText && c.kind != kindNote {
			style = s.headerR
		}
		header[i] = excelize.Cell{StyleID: style, Value: c.header}
	}
	return sw.SetRow(fmt.Sprintf("A%d", row), header, excelize.RowOpts{Height: 32})
}

// writeRow writes one row; a row with wrapped text is as high as its
// longest text needs, since a streamed row is not measured when opened.
func writeRow(sw *excelize.StreamWriter, s *styles, row int, cols []column, r []cell, widths []float64) error {
	vals := make([]any, len(r))
	lines := 1
	for i, c := range r {
		v, err := s.value(c, cols[i].kind)
		if err != nil {
			return err
		}
		vals[i] = v
		if text, ok := c.v.(string); ok && cols[i].kind == kindNote {
			// A proportional font fits about 1.2 characters per unit of width.
			perLine := max(int(widths[i]*1.2)-2, 1)
			lines = max(lines, (utf8.RuneCountInString(text)+perLine-1)/perLine)
		}
	}
	var opts []excelize.RowOpts
	if lines > 1 {
		opts = append(opts, excelize.RowOpts{Height: float64(lines) * 13})
	}
	return sw.SetRow(fmt.Sprintf("A%d", row), vals, opts...)
}

// addCharts anchors the table's charts right of it, one below the other.
func (t *table) addCharts(f *excelize.File) error {
	at := t.chartAt
	if at == "" {
		col, err := excelize.ColumnNumberToName(len(t.cols) + 2)
		if err != nil {
			return err
		}
		at = col + fmt.Sprint(headerRow)
	}
	col, row, err := excelize.SplitCellName(at)
	if err != nil {
		return err
	}
	for i, c := range t.charts {
		if err := f.AddChart(t.sheet, fmt.Sprintf("%s%d", col, row+i*22), c); err != nil {
			return err
		}
	}
	return nil
}

// pageSetup prints a sheet landscape, wide pages wide, with the sheet's
// name and the page number in the footer and its caption, when given, in
// the header of every page: the caption in A1 runs on across the first
// page's columns and is cut at its edge, and pages below or to the right
// would not show it at all.
func pageSetup(f *excelize.File, sheet string, wide int, caption string) error {
	if err := f.SetPageLayout(sheet, &excelize.PageLayoutOptions{Orientation: ptr("landscape"),
		FitToWidth: ptr(wide), FitToHeight: ptr(0)}); err != nil {
		return err
	}
	hf := &excelize.HeaderFooterOptions{OddFooter: "&L&A&Rpage &P of &N"}
	if caption != "" {
		hf.OddHeader = "&L" + headerText(caption)
	}
	if err := f.SetHeaderFooter(sheet, hf); err != nil {
		return err
	}
	return f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: ptr(true)})
}

// maxHeader is the longest text a page header holds (Excel's limit of 255
// characters, less the "&L" that aligns it).
const maxHeader = 253

// headerText writes s as the text of a page header: "&" doubled, as a
// lone "&" starts a header code, and cut with "..." past maxHeader.
func headerText(s string) string {
	var b strings.Builder
	n := 0
	for i, r := range s {
		w := 1
		if r == '&' {
			w = 2
		}
		if n+w > maxHeader-3 && utf8.RuneCountInString(strings.ReplaceAll(s[i:], "&", "&&"))+n > maxHeader {
			return b.String() + "..."
		}
		if r == '&' {
			b.WriteString("&&")
		} else {
			b.WriteRune(r)
		}
		n += w
	}
	return b.String()
}

// shortHash is a key's hash cut to its first 12 digits, for a column a
// reader scans (and a page prints); the full hash is in another column.
func shortHash(h string) string {
	if len(h) <= 16 {
		return h
	}
	return h[:12] + "…"
}

package reports

import (
	"archive/zip"
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

func testCatalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffs.Load("../tariffs/testdata")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return cat
}

// september prices calls of September 2026 (UTC) into a month.
func september(t *testing.T, calls []ledger.Call) (*pricing.Month, *pricing.Engine) {
	t.Helper()
	from := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	until := from.AddDate(0, 1, 0)
	e := pricing.New(testCatalog(t), pricing.Options{Dims: pricing.MonthDims, Since: from, Until: until})
	for i := range calls {
		e.AddPriced(&calls[i])
	}
	m, err := pricing.MonthOf(e, from, until, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, e
}

// openWorkbook writes the workbook of m and opens it with excelize, to read
// cells back; the file is closed when the test ends.
func openWorkbook(t *testing.T, m *pricing.Month, prov Provenance) *excelize.File {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteWorkbook(&buf, m, prov, Extras{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func flashCall(id, end, alias, team, user string) ledger.Call {
	at, _ := time.Parse(time.RFC3339, end)
	return ledger.Call{RequestID: id, Identity: id, Gateway: ledger.LiteLLM, Start: at.Add(-time.Second), End: at,
		Model: "flash", ModelGroup: alias, Key: "k-" + id, KeyAlias: alias, Team: team, User: user,
		Recorded: ledger.AmountOf(decimal.RequireFromString("0.0001")), Tokens: ledger.Tokens{Input: 1000, Output: 100}}
}

// TestHostileText checks that text from the data that a spreadsheet would
// read as a formula is written as text, verbatim.
func TestHostileText(t *testing.T) {
	hostile := []string{`=HYPERLINK("http://evil.example","click")`, "+1+1", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd"}
	var calls []ledger.Call
	for i, h := range hostile {
		calls = append(calls, flashCall(string(rune('a'+i)), "2026-09-01T02:00:00Z", h, h, h))
	}
	m, _ := september(t, calls)
	f := openWorkbook(t, m, Provenance{Produced: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Program: "tokenfare test",
		Sources: []string{"=cmd|' /C calc'!A0"}})
	found := map[string]int{}
	for _, sheet := range []string{SheetByKey, SheetByModel, SheetSummary} {
		rows, err := f.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		for r, row := range rows {
			for c, v := range row {
				ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
				if formula, _ := f.GetCellFormula(sheet, ref); formula != "" {
					t.Errorf("%s!%s holds a formula %q", sheet, ref, formula)
				}
				for _, h := range append(hostile, "=cmd|' /C calc'!A0") {
					if v != h {
						continue
					}
					found[h]++
					if ty, _ := f.GetCellType(sheet, ref); ty != excelize.CellTypeInlineString && ty != excelize.CellTypeSharedString {
						t.Errorf("%s!%s %q has cell type %v, want a string", sheet, ref, v, ty)
					}
					id, _ := f.GetCellStyle(sheet, ref)
					if st, _ := f.GetStyle(id); st.CustomNumFmt == nil || *st.CustomNumFmt != "@" {
						t.Errorf("%s!%s %q is not formatted as text", sheet, ref, v)
					}
				}
			}
		}
	}
	// By key: alias, team and user; By model: the model group; Summary: the source.
	for _, h := range hostile {
		if found[h] != 4 {
			t.Errorf("%q found verbatim %d times, want 4 (alias, team, user, model group)", h, found[h])
		}
	}
	if found["=cmd|' /C calc'!A0"] != 1 {
		t.Errorf("the source name is not in the Summary verbatim")
	}
}

// TestCellNumber checks that money cells hold the exact amount to 15
// significant digits.
func TestCellNumber(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0.00078364", "0.00078364"},
		{"23373.512345678901234", "23373.5123456789"}, // 15 digits: 23373.5123456789|01234
		{"123456789012.3456789", "123456789012.346"},
		{"-10.722317646", "-10.722317646"},
		{"0", "0"},
	}
	for _, tt := range tests {
		got := decimal.NewFromFloat(cellNumber(decimal.RequireFromString(tt.in)))
		if !got.Equal(decimal.RequireFromString(tt.want)) {
			t.Errorf("cellNumber(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestByModelHost: the By model sheet has a Host column, so that one
// model name served by two hosts (invoiced apart) gets two rows, and the
// total row still sits under Calls and Official cost.
func TestByModelHost(t *testing.T) {
	first := flashCall("a", "2026-09-01T02:00:00Z", "flash", "t", "u")
	azure := flashCall("b", "2026-09-01T03:00:00Z", "flash", "t", "u")
	azure.Host = "azure" // no list of the test catalog prices azure: unpriced, never the first party's price
	m, _ := september(t, []ledger.Call{first, azure})
	f := openWorkbook(t, m, Provenance{Produced: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Program: "tokenfare test"})
	rows := sheetRows(t, f, SheetByModel)
	col := map[string]int{}
	head := -1
	for r, row := range rows {
		if len(row) > 2 && row[0] == "Model" {
			head = r
			for c, v := range row {
				col[v] = c
			}
		}
	}
	if head < 0 || col["Host"] != 2 || col["Calls"] != 3 {
		t.Fatalf("no header with Host before Calls: %q", rows)
	}
	hosts := map[string]string{} // host → calls
	var total []string
	for _, row := range rows[head+1:] {
		if len(row) > col["Calls"] && row[0] == "Total" {
			total = row
		} else if len(row) > col["Calls"] {
			hosts[row[col["Host"]]] = row[col["Calls"]]
		}
	}
	if hosts[""] != "1" || hosts["azure"] != "1" || len(hosts) != 2 {
		t.Errorf("calls by host %v, want one first-party call and one azure call on rows of their own", hosts)
	}
	if total == nil || total[col["Calls"]] != "2" || total[col["Official cost"]] == "" {
		t.Errorf("total row %q, want 2 calls under Calls and the official cost under its column", total)
	}
}

// TestByKeyTokensCountEveryKind checks that a key's tokens on By key are
// every token its calls carry, 1-hour cache writes included, as reconcile
// counts them.
func TestByKeyTokensCountEveryKind(t *testing.T) {
	c := flashCall("r1", "2026-09-02T03:00:00Z", "search-prd", "search", "u1")
	c.Tokens = ledger.Tokens{Input: 1000, CacheRead: 200, CacheWrite: 30, CacheWrite1h: 4000, Output: 100, Reasoning: 60}
	m, _ := september(t, []ledger.Call{c})
	f := openWorkbook(t, m, Provenance{Produced: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Program: "tokenfare test"})
	rows := sheetRows(t, f, SheetByKey)
	tokensAt, got := -1, ""
	for _, row := range rows {
		for i, v := range row {
			if v == "Tokens" {
				tokensAt = i
			}
		}
		if tokensAt >= 0 && len(row) > tokensAt && len(row) > 0 && row[0] == "search-prd" {
			got = row[tokensAt]
		}
	}
	// 1000 + 200 + 30 + 4000 + 100 (the 60 reasoning tokens are inside the output).
	if want := "5,330"; got != want { // as the cell displays it
		t.Errorf("By key tokens of search-prd = %q, want %s", got, want)
	}
}

// TestSheetDimensions checks that every sheet's <dimension> names the
// range its cells use, as readers that trust it (openpyxl in read-only
// mode) see only that range: the By model sheet of two calls on two hosts
// spans A1 (caption), the header on row 2, a row per host on rows 3 and 4
// and the total on row 5, across its 18 columns (A to R).
func TestSheetDimensions(t *testing.T) {
	first := flashCall("a", "2026-09-01T02:00:00Z", "flash", "t", "u")
	azure := flashCall("b", "2026-09-01T03:00:00Z", "flash", "t", "u")
	azure.Host = "azure"
	m, _ := september(t, []ledger.Call{first, azure})
	var buf bytes.Buffer
	if err := WriteWorkbook(&buf, m, Provenance{Produced: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Program: "tokenfare test"}, Extras{}); err != nil {
		t.Fatal(err)
	}
	sheets := sheetXML(t, buf.Bytes())
	if got := dimensionOf(sheets[SheetByModel]); got != "A1:R5" {
		t.Errorf("%s: dimension %q, want A1:R5", SheetByModel, got)
	}
	for _, name := range Sheets {
		t.Run(name, func(t *testing.T) {
			x, ok := sheets[name]
			if !ok {
				t.Skipf("no sheet %s in this workbook", name)
			}
			if got, want := dimensionOf(x), cellsRange(t, x); got != want {
				t.Errorf("dimension %q, want %q (the range of its cells)", got, want)
			}
		})
	}
}

// sheetXML returns each worksheet's XML of an XLSX file, by sheet name.
func sheetXML(t *testing.T, xlsx []byte) map[string]string {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(xlsx), int64(len(xlsx)))
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		r, err := z.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// Sheet names in workbook.xml order, their files by relationship id.
	targets := map[string]string{}
	for _, m := range regexp.MustCompile(`Id="(rId\d+)"[^>]*Target="(worksheets/[^"]+)"|Target="(worksheets/[^"]+)"[^>]*Id="(rId\d+)"`).FindAllStringSubmatch(read("xl/_rels/workbook.xml.rels"), -1) {
		if m[1] != "" {
			targets[m[1]] = m[2]
		} else {
			targets[m[4]] = m[3]
		}
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`<sheet name="([^"]+)"[^>]*r:id="(rId\d+)"`).FindAllStringSubmatch(read("xl/workbook.xml"), -1) {
		out[m[1]] = read("xl/" + targets[m[2]])
	}
	return out
}

// dimensionOf returns the ref of a sheet XML's <dimension>.
func dimensionOf(x string) string {
	m := regexp.MustCompile(`<dimension ref="([^"]*)"`).FindStringSubmatch(x)
	if m == nil {
		return ""
	}
	return m[1]
}

// cellsRange returns A1:<last column><last row> over a sheet XML's cells.
func cellsRange(t *testing.T, x string) string {
	t.Helper()
	cols, rows := 1, 1
	for _, m := range regexp.MustCompile(`<c r="([A-Z]+[0-9]+)"`).FindAllStringSubmatch(x, -1) {
		c, r, err := excelize.CellNameToCoordinates(m[1])
		if err != nil {
			t.Fatal(err)
		}
		cols, rows = max(cols, c), max(rows, r)
	}
	end, _ := excelize.CoordinatesToCellName(cols, rows)
	return "A1:" + end
}

// TestPrintedPages checks what a printed workbook shows on every page:
// each table sheet's caption in the page header (the caption in A1 is cut
// at the first page's edge and missing from the pages after), and the
// Blended prices sheet's "Recorded rate set" wrapped within its column
// rather than cut by the next one.
func TestPrintedPages(t *testing.T) {
	m, _ := september(t, []ledger.Call{flashCall("a", "2026-09-20T02:00:00Z", "flash", "t", "u")})
	f := openWorkbook(t, m, Provenance{Produced: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Program: "tokenfare test"})
	for _, sheet := range []string{SheetByModel, SheetBlended, SheetTariffs} {
		caption, err := f.GetCellValue(sheet, "A1")
		if err != nil || caption == "" {
			t.Fatalf("%s: no caption in A1 (%v)", sheet, err)
		}
		hf, err := f.GetHeaderFooter(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if want := "&L" + caption; hf.OddHeader != want {
			t.Errorf("%s: page header %q, want %q", sheet, hf.OddHeader, want)
		}
	}
	rows := sheetRows(t, f, SheetBlended)
	hr := rowWith(t, rows, "Recorded rate set")
	col := slices.Index(rows[hr], "Recorded rate set")
	ref, _ := excelize.CoordinatesToCellName(col+1, hr+2)
	id, err := f.GetCellStyle(SheetBlended, ref)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Alignment == nil || !st.Alignment.WrapText {
		t.Errorf("%s %s (%q) does not wrap", SheetBlended, ref, rows[hr+1][col])
	}
}

// TestHeaderText: a caption in a page header keeps its "&" (doubled, or
// it starts a header code) and is cut with "..." within Excel's 255
// characters.
func TestHeaderText(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct{ name, in, want string }{
		{"plain", "By model — September 2026 (UTC)", "By model — September 2026 (UTC)"},
		{"ampersand", "R&D team", "R&&D team"},
		{"at the limit", strings.Repeat("a", 253), strings.Repeat("a", 253)},
		{"past the limit", long, strings.Repeat("a", 250) + "..."},
		{"an ampersand at the cut", strings.Repeat("a", 249) + "&" + long, strings.Repeat("a", 249) + "..."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := headerText(tc.in); got != tc.want {
				t.Errorf("headerText = %q (%d), want %q", got, len(got), tc.want)
			}
		})
	}
}

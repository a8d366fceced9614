package reports

import "strings"

// formulaStarts are the first characters that make a spreadsheet (Excel,
// LibreOffice, Google Sheets) read a CSV cell as a formula: = + - @, and
// tab and carriage return, which some of them skip before looking.
const formulaStarts = "=+-@\t\r"

// sheetText returns s as a CSV cell a spreadsheet shows as the text it
// is: a cell starting with one of formulaStarts gets a single quote in
// front ("'=HYPERLINK(...)"), as OWASP's rule for CSV injection says; a
// spreadsheet hides the quote and shows the rest as text. Every CSV cell
// whose text comes from input (model names, key aliases, teams, users,
// request ids, tariff and version names) goes through it; numbers
// tokenfare writes itself (a negative gap is "-0.5") do not, so that
// they stay numbers.
func sheetText(s string) string {
	if s != "" && strings.IndexByte(formulaStarts, s[0]) >= 0 {
		return "'" + s
	}
	return s
}

// sheetTexts applies sheetText to every cell of row, in place.
func sheetTexts(row []string) []string {
	for i := range row {
		row[i] = sheetText(row[i])
	}
	return row
}

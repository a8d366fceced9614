package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/reports"
)

// savingsJSON is the part of savings' JSON contract the tests read.
type savingsJSON struct {
	Rows  map[string]int64  `json:"rows"`
	Total savingsLineJSON   `json:"total"`
	Lines []savingsLineJSON `json:"lines"`
}

type savingsLineJSON struct {
	Keys        map[string]string `json:"keys"`
	PricedCalls int64             `json:"priced_calls"`
	Served      string            `json:"served"`
	Saving      string            `json:"saving"`
	UnderLevers string            `json:"under_levers"`
	BestCalls   map[string]int64  `json:"best_calls"`
	Levers      map[string]struct {
		Calls  int64            `json:"calls"`
		Served string           `json:"served"`
		Under  string           `json:"under"`
		Saving string           `json:"saving"`
		Delays map[string]int64 `json:"delays"`
	} `json:"levers"`
	Outside map[string]int64 `json:"outside"`
}

// TestSavingsSampleMonth checks, on the sample month grouped by key and by
// model, that every line and the total keep "cost as served − saving =
// cost under the levers", each lever alone keeps served − under = saving
// with under never above served, a call counts under one best lever at
// most, and the lines add up to the total, every row of the run counted.
func TestSavingsSampleMonth(t *testing.T) {
	for _, by := range []string{"key", "model,host"} {
		t.Run(by, func(t *testing.T) {
			var doc savingsJSON
			runJSON(t, &doc, "savings", "--calls", sample, "--month", "2026-10", "--by", by, "-o", "json")
			if len(doc.Lines) < 2 || !dec(t, doc.Total.Saving).IsPositive() {
				t.Fatalf("%d line(s), saving %s: the sample has savings on several lines", len(doc.Lines), doc.Total.Saving)
			}
			served, saving := decimal.Zero, decimal.Zero
			var priced, outside int64
			for _, l := range append(doc.Lines, doc.Total) {
				checkSavingsLine(t, &l)
			}
			for _, l := range doc.Lines {
				served, saving = served.Add(dec(t, l.Served)), saving.Add(dec(t, l.Saving))
				priced += l.PricedCalls
				outside += l.Outside["unpriced"] + l.Outside["failed"] + l.Outside["cache_hit"]
			}
			if !served.Equal(dec(t, doc.Total.Served)) || !saving.Equal(dec(t, doc.Total.Saving)) {
				t.Errorf("lines add up to %s served, %s saving; total %s, %s", served, saving, doc.Total.Served, doc.Total.Saving)
			}
			r := doc.Rows
			if priced != r["priced"] || outside != r["unpriced"]+r["retired"]+r["failed"]+r["cache_hit"] {
				t.Errorf("lines count %d priced and %d outside; rows %v", priced, outside, r)
			}
		})
	}
}

// checkSavingsLine checks the identities of one line.
func checkSavingsLine(t *testing.T, l *savingsLineJSON) {
	t.Helper()
	if got := dec(t, l.Served).Sub(dec(t, l.Saving)); !got.Equal(dec(t, l.UnderLevers)) {
		t.Errorf("%v: served %s − saving %s = %s, under the levers %s", l.Keys, l.Served, l.Saving, got, l.UnderLevers)
	}
	var best int64
	for name, s := range l.Levers {
		under, sserved := dec(t, s.Under), dec(t, s.Served)
		if !sserved.Sub(under).Equal(dec(t, s.Saving)) || under.GreaterThan(sserved) {
			t.Errorf("%v %s: served %s, under %s, saving %s", l.Keys, name, s.Served, s.Under, s.Saving)
		}
		if l.BestCalls[name] > s.Calls {
			t.Errorf("%v %s: best for %d call(s) of %d", l.Keys, name, l.BestCalls[name], s.Calls)
		}
		best += l.BestCalls[name]
	}
	if best > l.PricedCalls {
		t.Errorf("%v: %d best call(s) of %d priced", l.Keys, best, l.PricedCalls)
	}
}

func dec(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	return mustDecimal(t, s)
}

// TestSavingsUsage refuses what savings cannot do, with the flag named.
func TestSavingsUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no period", []string{"--calls", sample}, "no period"},
		{"unknown lever", []string{"--calls", sample, "--month", "2026-10", "--lever", "spot"}, "--lever"},
		{"grouping by period", []string{"--calls", sample, "--month", "2026-10", "--by", "period"}, "--by"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(t, "", append([]string{"savings"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d naming %q", code, errs, exitUsage, tt.want)
			}
		})
	}
}

// TestSavingsTable shows each lever's condition and the offpeak delays.
func TestSavingsTable(t *testing.T) {
	code, out, errs := runCLI(t, "", "savings", "--calls", sample, "--month", "2026-10")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"results within 24 h", "may be refused", "data zone stays", "(delay: under 1 h", "UNDER_LEVERS"} {
		checkContains(t, "stdout", out, want)
	}
}

// TestSavingsWorkbookSheet reads the sample month's Savings sheet back: a
// line per key of savings --by key, best saving first, each row and the
// Total keeping served − saving = under the levers, and the Summary's line
// saying what savings says.
func TestSavingsWorkbookSheet(t *testing.T) {
	var doc savingsJSON
	runJSON(t, &doc, "savings", "--calls", sample, "--month", "2026-10", "-o", "json")
	xlsx := filepath.Join(t.TempDir(), "report.xlsx")
	if code, _, errOut := runCLI(t, "", "report", "--calls", sample, "--month", "2026-10", "--xlsx", xlsx, "--savings"); code != exitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	f, err := excelize.OpenFile(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(reports.SheetSavings, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	header := rows[1]
	want := []string{"Key (alias, else hash)", "Priced calls", "Cost as served", "Saving, each call under its best lever", "Cost under the levers"}
	if len(header) < len(want) || !slices.Equal(header[:len(want)], want) {
		t.Fatalf("header %q, want it to start %q", header, want)
	}
	for i, r := range rows[2 : 3+len(doc.Lines)] { // the keys, then the Total
		if !dec(t, r[2]).Sub(dec(t, r[3])).Equal(dec(t, r[4])) {
			t.Errorf("row %d: as served %s − saving %s ≠ under the levers %s", i+3, r[2], r[3], r[4])
		}
		if i == len(doc.Lines) {
			break
		}
		if l := doc.Lines[i]; r[0] != orAlias(l.Keys) || !dec(t, r[3]).Equal(dec(t, l.Saving)) {
			t.Errorf("row %d: %s saving %s, want %s saving %s", i+3, r[0], r[3], orAlias(l.Keys), l.Saving)
		}
	}
	total := rows[2+len(doc.Lines)]
	if total[0] != "Total" || !dec(t, total[3]).Equal(dec(t, doc.Total.Saving)) || !dec(t, total[4]).Equal(dec(t, doc.Total.UnderLevers)) {
		t.Errorf("total row %q, want Total, saving %s, under %s", total, doc.Total.Saving, doc.Total.UnderLevers)
	}
	summary, _ := f.GetRows(reports.SheetSummary)
	if !slices.ContainsFunc(summary, func(r []string) bool {
		return len(r) > 2 && r[0] == "Saving under the levers (Savings)" && r[2] == doc.Total.Saving
	}) {
		t.Errorf("the Summary names no saving of %s", doc.Total.Saving)
	}
}

// orAlias is how the workbook names a key: its alias, else its hash.
func orAlias(keys map[string]string) string {
	if a := keys["key_alias"]; a != "" {
		return a
	}
	return keys["key"]
}

// TestReportSavingsUsage: --savings adds a workbook sheet from the calls
// one by one, so it needs --xlsx and refuses --state.
func TestReportSavingsUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no workbook", []string{"--calls", sample, "--month", "2026-10", "--savings"}, "--xlsx"},
		{"from the state", []string{"--calls", sample, "--month", "2026-10", "--savings", "--xlsx", filepath.Join(dir, "r.xlsx"),
			"--state", filepath.Join(dir, "state.db")}, "--state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(t, "", append([]string{"report"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d naming %q", code, errs, exitUsage, tt.want)
			}
		})
	}
}

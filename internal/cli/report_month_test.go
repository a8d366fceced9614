package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/reports"
)

// sampleLines writes the sample's header and the rows keep accepts, each
// rewritten by edit, to a file in dir.
func sampleLines(t *testing.T, dir, name string, keep func(string) bool, edit func(string) string) string {
	t.Helper()
	in, err := os.Open(sample)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	path := filepath.Join(dir, name)
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for first := true; sc.Scan(); first = false {
		line := sc.Text()
		if !first && !keep(line) {
			continue
		}
		if !first {
			line = edit(line)
		}
		if _, err := out.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// chargebackJSON is the part of chargeback's JSON the tests compare with.
type chargebackJSON struct {
	Gateway struct{ Official, Recorded string } `json:"gateway"`
	Lines   []struct {
		Keys               map[string]string `json:"keys"`
		Calls              int64             `json:"calls"`
		Official, Recorded string
	} `json:"lines"`
}

// reportWithBudgets writes budgets (a budgets file's YAML) into dir, runs
// report with it and the args, and opens the workbook written; it is
// closed when the test ends.
func reportWithBudgets(t *testing.T, dir, budgets string, args ...string) *excelize.File {
	t.Helper()
	path := filepath.Join(dir, "budgets.yaml")
	if err := os.WriteFile(path, []byte(budgets), 0o644); err != nil {
		t.Fatal(err)
	}
	xlsx := filepath.Join(dir, "report.xlsx")
	args = append(append([]string{"report"}, args...), "--budgets", path, "--xlsx", xlsx)
	if code, _, errOut := runCLI(t, "", args...); code != exitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	f, err := excelize.OpenFile(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	code, out, errOut := runCLI(t, "", args...)
	if code != exitOK {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatal(err)
	}
}

// TestReportMonthSheets checks the By team, By provider, Budget and Month
// over month sheets against chargeback and reconcile on the same files: the
// sample month as October, and the sample moved back a month (its 31st
// left out) as September.
func TestReportMonthSheets(t *testing.T) {
	dir := t.TempDir()
	sept := sampleLines(t, dir, "sept.csv", func(l string) bool { return !strings.Contains(l, "2026-10-31") },
		func(l string) string { return strings.ReplaceAll(l, "2026-10-", "2026-09-") })
	f := reportWithBudgets(t, dir, "currency: USD\nbudgets:\n  - team: search\n    monthly: \"20\"\n  - team: nobody\n    monthly: \"5.5\"\n",
		"--calls", sample, "--calls", sept, "--month", "2026-10", "--compare", "2026-09")

	var teams chargebackJSON
	runJSON(t, &teams, "chargeback", "--calls", sample, "--calls", sept, "--month", "2026-10", "--by", "team", "-o", "json")
	official := map[string]decimal.Decimal{}
	t.Run("by team", func(t *testing.T) {
		sheet := reports.SheetByTeam
		rows, _ := f.GetRows(sheet)
		if got, want := len(rows), 2+len(teams.Lines)+1; got != want {
			t.Fatalf("%d rows, want %d (caption, header, %d teams, total)", got, want, len(teams.Lines))
		}
		for i, l := range teams.Lines { // chargeback's order is the sheet's: dearest first
			r := itoa(3 + i)
			if got, _ := f.GetCellValue(sheet, "A"+r); got != orDefaultTest(l.Keys["team"], "(no team)") {
				t.Errorf("row %s: team %q, want %q", r, got, l.Keys["team"])
			}
			if got, want := rawDecimal(t, f, sheet, column(t, f, sheet, "Official cost")+r), round15(mustDecimal(t, l.Official)); !got.Equal(want) {
				t.Errorf("team %s: official %s, want chargeback's %s", l.Keys["team"], got, want)
			}
			if got, want := rawDecimal(t, f, sheet, column(t, f, sheet, "Recorded spend")+r), round15(mustDecimal(t, l.Recorded)); !got.Equal(want) {
				t.Errorf("team %s: recorded %s, want chargeback's %s", l.Keys["team"], got, want)
			}
			official[l.Keys["team"]] = mustDecimal(t, l.Official)
		}
	})

	var oct, sep monthJSON
	runJSON(t, &oct, "reconcile", "--calls", sample, "--calls", sept, "--month", "2026-10", "-o", "json")
	runJSON(t, &sep, "reconcile", "--calls", sample, "--calls", sept, "--month", "2026-09", "-o", "json")
	providerOf := map[string]string{"claude-sonnet-4-5": "anthropic", "deepseek-flash": "deepseek", "deepseek-v4-flash": "deepseek",
		"deepseek-v4-pro": "deepseek", "gpt-4o": "openai", "kimi-k2-thinking": "(no tariff)"}
	byProvider := func(rec monthJSON) map[string]decimal.Decimal {
		out := map[string]decimal.Decimal{}
		for _, g := range rec.Groups {
			p, ok := providerOf[g.Keys["model"]]
			if !ok {
				t.Fatalf("model %q: no provider known to the test", g.Keys["model"])
			}
			out[p] = out[p].Add(mustDecimal(t, g.Official))
		}
		return out
	}
	t.Run("by provider", func(t *testing.T) {
		sheet := reports.SheetByProvider
		want := byProvider(oct)
		rows, _ := f.GetRows(sheet)
		if got := len(rows) - 3; got != len(want) {
			t.Fatalf("%d providers, want %d", got, len(want))
		}
		prev := decimal.NewFromInt(1 << 40)
		for r := 3; r < 3+len(want); r++ {
			name, _ := f.GetCellValue(sheet, "A"+itoa(r))
			got := rawDecimal(t, f, sheet, column(t, f, sheet, "Official cost")+itoa(r))
			if !got.Equal(round15(want[name])) {
				t.Errorf("%s: official %s, want the sum of reconcile's models %s", name, got, want[name])
			}
			if got.GreaterThan(prev) {
				t.Errorf("%s: %s after %s: not dearest first", name, got, prev)
			}
			prev = got
		}
	})

	t.Run("budget", func(t *testing.T) {
		sheet := reports.SheetBudget
		// By hand: search's budget is 20; what is left is 20 − its
		// official cost, the share used that cost ÷ 20; October is whole,
		// so the projection is the cost itself.
		search := official["search"]
		if search.IsZero() {
			t.Fatal("no official cost of team search")
		}
		money := func(ref string, want decimal.Decimal) {
			t.Helper()
			if got := rawDecimal(t, f, sheet, ref); !got.Equal(round15(want)) {
				t.Errorf("%s!%s = %s, want %s", sheet, ref, got, want)
			}
		}
		col := func(h string) string { return column(t, f, sheet, h) }
		money(col("Monthly budget")+"3", decimal.NewFromInt(20))
		money(col("Actual (official cost)")+"3", search)
		money(col("Remaining")+"3", decimal.NewFromInt(20).Sub(search))
		money(col("Share used")+"3", search.DivRound(decimal.NewFromInt(20), 6))
		money(col("Projected month end")+"3", search)
		money(col("Actual (official cost)")+"4", decimal.Zero)
		if note, _ := f.GetCellValue(sheet, col("Note")+"4"); note != "no call in the month" {
			t.Errorf("team nobody: note %q", note)
		}
		if at, _ := f.GetCellValue(sheet, col("Budget set at")+"4"); at != filepath.Join(dir, "budgets.yaml")+":5" {
			t.Errorf("team nobody: set at %q, want %s:5", at, filepath.Join(dir, "budgets.yaml"))
		}
	})

	t.Run("month over month", func(t *testing.T) {
		sheet := reports.SheetChange
		col := func(h string) string { return column(t, f, sheet, h) }
		now, before := map[string]decimal.Decimal{}, map[string]decimal.Decimal{}
		for _, g := range oct.Groups {
			now[g.Keys["model"]] = mustDecimal(t, g.Official)
		}
		for _, g := range sep.Groups {
			before[g.Keys["model"]] = mustDecimal(t, g.Official)
		}
		if len(before) == 0 {
			t.Fatal("reconcile prices no call of September")
		}
		rows, _ := f.GetRows(sheet)
		seen := 0
		for r := 3; r < len(rows) && rows[r-1][0] != "Total"; r++ {
			model := rows[r-1][0]
			seen++
			ref := itoa(r)
			if got := rawDecimal(t, f, sheet, col("Official September 2026")+ref); !got.Equal(round15(before[model])) {
				t.Errorf("%s: September %s, want reconcile's %s", model, got, before[model])
			}
			if got := rawDecimal(t, f, sheet, col("Official")+ref); !got.Equal(round15(now[model])) {
				t.Errorf("%s: October %s, want reconcile's %s", model, got, now[model])
			}
			if got, want := rawDecimal(t, f, sheet, col("Change")+ref), now[model].Sub(before[model]); !got.Equal(round15(want)) {
				t.Errorf("%s: change %s, want %s", model, got, want)
			}
		}
		if seen != len(now) {
			t.Errorf("%d model rows, want %d", seen, len(now))
		}
		// The provider section: after the model rows and total, the team
		// section, each with a blank row, caption and header.
		wantProv := byProvider(sep)
		found := 0
		inProviders := false
		for r, row := range rows {
			if len(row) > 0 && strings.HasPrefix(row[0], "By provider") {
				inProviders = true
				continue
			}
			if !inProviders || len(row) == 0 || row[0] == "Provider" {
				continue
			}
			if got := rawDecimal(t, f, sheet, col("Official September 2026")+itoa(r+1)); !got.Equal(round15(wantProv[row[0]])) {
				t.Errorf("provider %s: September %s, want %s", row[0], got, wantProv[row[0]])
			}
			found++
		}
		if found != len(wantProv) {
			t.Errorf("%d provider rows, want %d", found, len(wantProv))
		}
	})
}

func orDefaultTest(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestReportPartialMonth: data through 2026-10-02 makes a partial
// October: the Summary says so, the Blended prices sheet says why it is
// empty, and a budget projects the month at the pace of its two days.
func TestReportPartialMonth(t *testing.T) {
	dir := t.TempDir()
	two := sampleLines(t, dir, "two.csv", func(l string) bool {
		return strings.Contains(l, ",2026-10-01 ") || strings.Contains(l, ",2026-10-02 ")
	}, func(l string) string { return l })
	f := reportWithBudgets(t, dir, "budgets:\n  - team: search\n    monthly: 10\n", "--calls", two, "--month", "2026-10")
	rows, _ := f.GetRows(reports.SheetSummary)
	var coverage, through string
	for _, r := range rows {
		if len(r) > 1 && r[0] == "Coverage" {
			coverage = r[1]
		}
		if len(r) > 1 && r[0] == "Data through" {
			through = r[1]
		}
	}
	if !strings.HasPrefix(coverage, "partial month: data through 2026-10-02 ") || !strings.HasSuffix(coverage, "2 of 31 days") {
		t.Errorf("coverage %q, want a partial month of 2 of 31 days", coverage)
	}
	if !strings.HasPrefix(through, "2026-10-02") {
		t.Errorf("data through %q", through)
	}
	if title, _ := f.GetCellValue(reports.SheetSummary, "A1"); !strings.Contains(title, "partial: data through 2026-10-02") {
		t.Errorf("title %q does not say the month is partial", title)
	}
	blended, _ := f.GetRows(reports.SheetBlended)
	if len(blended) != 3 || !strings.Contains(blended[2][0], "the data ends 2026-10-02") {
		t.Errorf("Blended prices: %q, want one line saying the data ends before the window", blended)
	}

	var teams chargebackJSON
	runJSON(t, &teams, "chargeback", "--calls", two, "--month", "2026-10", "--by", "team", "--team", "search", "-o", "json")
	actual := mustDecimal(t, teams.Lines[0].Official)
	// By hand: two days of 31 so far, so the month ends at 31/2 of them.
	want := actual.Mul(decimal.NewFromInt(31)).DivRound(decimal.NewFromInt(2), 6)
	if got := rawDecimal(t, f, reports.SheetBudget, column(t, f, reports.SheetBudget, "Projected month end")+"3"); !got.Equal(round15(want)) {
		t.Errorf("projection %s, want %s × 31 ÷ 2 = %s", got, actual, want)
	}
}

// TestChargebackFilterMatchesNothing: a filter that matches no line is a
// finding, never an empty table with exit 0.
func TestChargebackFilterMatchesNothing(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"key typo", []string{"--key", "search-cn-prd"}, `no line matches --key "search-cn-prd"`},
		{"team typo", []string{"--team", "serach"}, `no line matches --team "serach"`},
		{"excluded key unknown", []string{"--exclude-key", "search-cn-prd"}, "--exclude-key search-cn-prd: no key of the period"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"chargeback", "--calls", sample, "--month", "2026-10"}, tc.args...)
			code, out, errOut := runCLI(t, "", args...)
			if code != exitFindings {
				t.Errorf("exit %d, want %d", code, exitFindings)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			checkContains(t, "stderr", errOut, tc.want)
		})
	}
}

// TestChargebackExcludeKey: the excluded key's calls leave the lines and
// the gateway line, and the two add up to reconcile's totals.
func TestChargebackExcludeKey(t *testing.T) {
	const key = "support-bots-chat-widget-prod-07"
	var all, cut struct {
		Gateway  struct{ Official, Recorded string }
		Excluded *struct{ Official, Recorded string }
		Lines    []struct {
			Keys map[string]string
		}
	}
	runJSON(t, &all, "chargeback", "--calls", sample, "--month", "2026-10", "-o", "json")
	runJSON(t, &cut, "chargeback", "--calls", sample, "--month", "2026-10", "--exclude-key", key, "-o", "json")
	if cut.Excluded == nil {
		t.Fatal("no excluded line")
	}
	for _, l := range cut.Lines {
		if l.Keys["key_alias"] == key {
			t.Errorf("line of %s still there", key)
		}
	}
	if len(cut.Lines) != len(all.Lines)-1 {
		t.Errorf("%d lines, want %d", len(cut.Lines), len(all.Lines)-1)
	}
	for _, m := range []struct{ name, all, kept, out string }{
		{"official", all.Gateway.Official, cut.Gateway.Official, cut.Excluded.Official},
		{"recorded", all.Gateway.Recorded, cut.Gateway.Recorded, cut.Excluded.Recorded},
	} {
		if sum := mustDecimal(t, m.kept).Add(mustDecimal(t, m.out)); !sum.Equal(mustDecimal(t, m.all)) {
			t.Errorf("%s: kept %s + excluded %s = %s, want the whole gateway's %s", m.name, m.kept, m.out, sum, m.all)
		}
	}
}

package cli

import (
	"archive/zip"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/reports"
)

// round15 is what a money cell holds: the exact amount to 15 significant digits.
func round15(d decimal.Decimal) decimal.Decimal {
	return d.Round(15 - (int32(d.NumDigits()) + d.Exponent()))
}

// monthJSON is the part of reconcile's JSON the report tests compare with.
type monthJSON struct {
	Rows   map[string]int64 `json:"rows"`
	Totals struct {
		Calls                   int64
		Official, Recorded, Gap string
	} `json:"totals"`
	Groups []struct {
		Keys               map[string]string `json:"keys"`
		Official, Recorded string
	} `json:"groups"`
	Explanations []struct {
		Kind, Amount string
	} `json:"explanations"`
}

// reconcileMonth runs reconcile over the month in Asia/Shanghai, the same
// instants as report --month 2026-10 --tz Asia/Shanghai.
func reconcileMonth(t *testing.T, by string) monthJSON {
	t.Helper()
	code, out, errOut := runCLI(t, "", "reconcile", "--calls", sample, "--since", "2026-09-30T16:00:00Z",
		"--until", "2026-10-31T16:00:00Z", "--by", by, "--tz", "Asia/Shanghai", "-o", "json")
	if code != exitOK {
		t.Fatalf("reconcile exit %d: %s", code, errOut)
	}
	var rec monthJSON
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// rawDecimal reads a numeric cell as the decimal text the file holds.
func rawDecimal(t *testing.T, f *excelize.File, sheet, ref string) decimal.Decimal {
	t.Helper()
	v, err := f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := decimal.NewFromString(v)
	if err != nil {
		t.Fatalf("%s!%s = %q is not a number: %v", sheet, ref, v, err)
	}
	return d
}

// column finds a header in row 2 of a table sheet.
func column(t *testing.T, f *excelize.File, sheet, header string) string {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: no header row (%v)", sheet, err)
	}
	for i, h := range rows[1] {
		if h == header {
			name, _ := excelize.ColumnNumberToName(i + 1)
			return name
		}
	}
	t.Fatalf("%s: no column %q in %q", sheet, header, rows[1])
	return ""
}

// sumColumn adds the raw values of a column over data rows [3, 3+n).
func sumColumn(t *testing.T, f *excelize.File, sheet, col string, n int) decimal.Decimal {
	t.Helper()
	sum := decimal.Zero
	for r := 3; r < 3+n; r++ {
		sum = sum.Add(rawDecimal(t, f, sheet, col+itoa(r)))
	}
	return sum
}

func itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }

// TestReportWorkbook writes the sample month's workbook and FOCUS export
// and checks them against reconcile's JSON on the same calls and month.
func TestReportWorkbook(t *testing.T) {
	dir := t.TempDir()
	xlsx, focus := filepath.Join(dir, "oct.xlsx"), filepath.Join(dir, "oct.csv.gz")
	code, out, errOut := runCLI(t, "", "report", "--calls", sample, "--month", "2026-10", "--tz", "Asia/Shanghai",
		"--xlsx", xlsx, "--focus", focus)
	if code != exitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "wrote "+xlsx+", "+focus) {
		t.Errorf("stdout does not name the files: %q", out)
	}
	byModel := reconcileMonth(t, "model")
	byDay := reconcileMonth(t, "day")
	f, err := excelize.OpenFile(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); strings.Join(got, "|") != strings.Join(reports.Sheets, "|") {
		t.Fatalf("sheets %q, want %q", got, reports.Sheets)
	}

	t.Run("summary totals equal reconcile to the last digit", func(t *testing.T) {
		rows, _ := f.GetRows(reports.SheetSummary)
		want := map[string]string{"Official cost (provider tariffs)": byModel.Totals.Official,
			"Recorded spend (gateway)": byModel.Totals.Recorded, "Gap (official − recorded)": byModel.Totals.Gap}
		for i, r := range rows {
			if len(r) == 0 {
				continue
			}
			w, ok := want[r[0]]
			if !ok {
				continue
			}
			delete(want, r[0])
			if len(r) < 3 || r[2] != w {
				t.Errorf("%s exact = %q, want %s", r[0], r, w)
			}
			if got := rawDecimal(t, f, reports.SheetSummary, "B"+itoa(i+1)); !got.Equal(round15(mustDecimal(t, w))) {
				t.Errorf("%s cell = %s, want %s to 15 digits", r[0], got, w)
			}
		}
		if len(want) > 0 {
			t.Errorf("summary lacks %v", want)
		}
		// Every row read is counted once, and the Summary lists each count.
		counted := int64(0)
		for k, n := range byModel.Rows {
			if k != "read" {
				counted += n
			}
		}
		if r := byModel.Rows; r["read"] != 12000 || counted != r["read"] {
			t.Errorf("reconcile rows %v", r)
		}
		labels := map[string]string{"Rows read": "read", "priced": "priced", "unpriced (no tariff)": "unpriced",
			"retired model": "retired", "failed": "failed", "duplicate": "duplicate", "rejected (bad rows)": "rejected",
			"cache hit (gateway's cache)": "cache_hit", "outside the month": "outside"}
		for i, r := range rows {
			if len(r) < 2 || labels[r[0]] == "" {
				continue
			}
			key := labels[r[0]]
			delete(labels, r[0])
			if got := rawDecimal(t, f, reports.SheetSummary, "B"+itoa(i+1)); got.IntPart() != byModel.Rows[key] {
				t.Errorf("summary %s = %s, reconcile rows.%s = %d", r[0], got, key, byModel.Rows[key])
			}
		}
		if len(labels) > 0 {
			t.Errorf("summary lacks the row counts %v", labels)
		}
	})

	t.Run("sheets add up to the reconcile totals", func(t *testing.T) {
		official, recorded := mustDecimal(t, byModel.Totals.Official), mustDecimal(t, byModel.Totals.Recorded)
		for _, sh := range []struct {
			sheet, official, recorded string
		}{
			{reports.SheetByModel, "Official cost", "Recorded spend"},
			{reports.SheetByKey, "Official cost", "Recorded spend"},
			{reports.SheetDaily, "Official cost", "Recorded spend"},
		} {
			rows, _ := f.GetRows(sh.sheet)
			n := len(rows) - 3 // caption, header, total row
			o := sumColumn(t, f, sh.sheet, column(t, f, sh.sheet, sh.official), n)
			r := sumColumn(t, f, sh.sheet, column(t, f, sh.sheet, sh.recorded), n)
			if !o.Equal(official) || !r.Equal(recorded) {
				t.Errorf("%s: rows add up to official %s, recorded %s; reconcile says %s, %s", sh.sheet, o, r, official, recorded)
			}
		}
	})

	t.Run("daily rows equal reconcile by day", func(t *testing.T) {
		if len(byDay.Groups) != 31 {
			t.Fatalf("reconcile by day has %d groups, want 31", len(byDay.Groups))
		}
		col := column(t, f, reports.SheetDaily, "Official cost")
		for i, g := range byDay.Groups {
			day, _ := f.GetCellValue(reports.SheetDaily, "A"+itoa(3+i))
			if day != g.Keys["day"] {
				t.Fatalf("row %d: day %s, want %s", 3+i, day, g.Keys["day"])
			}
			if got := rawDecimal(t, f, reports.SheetDaily, col+itoa(3+i)); !got.Equal(round15(mustDecimal(t, g.Official))) {
				t.Errorf("%s: official %s, reconcile %s", day, got, g.Official)
			}
		}
	})

	t.Run("number formats", func(t *testing.T) {
		for _, c := range []struct {
			sheet, header, want string
		}{
			{reports.SheetByModel, "Official cost", "[$$-409]#,##0.00########"},
			{reports.SheetByKey, "Difference (official − recorded)", "[$$-409]#,##0.00########"},
			{reports.SheetBlended, "Blended price", "[$$-409]#,##0.00########"},
		} {
			id, err := f.GetCellStyle(c.sheet, column(t, f, c.sheet, c.header)+"3")
			if err != nil {
				t.Fatal(err)
			}
			st, err := f.GetStyle(id)
			if err != nil || st.CustomNumFmt == nil || *st.CustomNumFmt != c.want {
				t.Errorf("%s %s: number format %v, want %s", c.sheet, c.header, st.CustomNumFmt, c.want)
			}
		}
		id, _ := f.GetCellStyle(reports.SheetByModel, column(t, f, reports.SheetByModel, "Recorded ÷ official")+"3")
		if st, _ := f.GetStyle(id); st.NumFmt != 10 {
			t.Errorf("ratio number format %d, want 10 (0.00%%)", st.NumFmt)
		}
	})

	t.Run("frozen headers and filters", func(t *testing.T) {
		for _, sheet := range reports.Sheets[1:] {
			p, err := f.GetPanes(sheet)
			if err != nil || !p.Freeze || p.YSplit != 2 {
				t.Errorf("%s: panes %+v (%v), want the first two rows frozen", sheet, p, err)
			}
		}
		names := map[string]bool{}
		for _, d := range f.GetDefinedName() {
			if d.Name == "_xlnm._FilterDatabase" {
				names[d.Scope] = true
			}
		}
		for _, sheet := range reports.Sheets[1:] {
			if !names[sheet] {
				t.Errorf("%s has no filter", sheet)
			}
		}
	})

	t.Run("charts with titles and axes", func(t *testing.T) {
		charts := chartsOf(t, xlsx)
		if len(charts) != 2 {
			t.Fatalf("%d charts, want 2 (Daily and Peak share)", len(charts))
		}
		for _, want := range []string{"Official cost and recorded spend by day", "Share of tokens billed at peak, by day"} {
			found := false
			for _, c := range charts {
				if strings.Contains(c, want) {
					found = true
					if strings.Count(c, "<title>") < 3 {
						t.Errorf("chart %q: %d titles, want the chart's and both axes'", want, strings.Count(c, "<title>"))
					}
				}
			}
			if !found {
				t.Errorf("no chart titled %q", want)
			}
		}
	})

	t.Run("blended prices equal blend at the month's end", func(t *testing.T) {
		// The window holds a change of one provider's tariff (Anthropic,
		// 2026-10-07) and none of the others': both ways of working the
		// blend out meet here.
		checkBlendedSheet(t, f, "--calls", sample, "--as-of", "2026-11-01", "--tz", "Asia/Shanghai")
	})

	t.Run("focus export matches the month", func(t *testing.T) {
		rows := readFOCUS(t, focus)
		official, recorded := decimal.Zero, decimal.Zero
		for _, r := range rows {
			official = official.Add(mustDecimal(t, r["ListCost"]))
			recorded = recorded.Add(mustDecimal(t, r["x_RecordedCost"]))
		}
		if want := mustDecimal(t, byModel.Totals.Official); !official.Equal(want) {
			t.Errorf("FOCUS ListCost adds up to %s, reconcile official %s", official, want)
		}
		// x_RecordedCost is all the recorded spend reconcile counts: of
		// priced calls on Usage rows, the rest on Adjustment rows.
		want := mustDecimal(t, byModel.Totals.Recorded)
		if !recorded.Equal(want) {
			t.Errorf("FOCUS x_RecordedCost adds up to %s, want %s", recorded, want)
		}
		if rows[0]["ChargePeriodStart"] != "2026-09-30T16:00:00Z" || rows[0]["BillingPeriodEnd"] != "2026-10-31T16:00:00Z" {
			t.Errorf("first row: charge period %s, billing period end %s: want Shanghai midnights in UTC", rows[0]["ChargePeriodStart"], rows[0]["BillingPeriodEnd"])
		}
	})
}

// chartsOf returns the XML of every chart in an XLSX file.
func chartsOf(t *testing.T, path string) []string {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var out []string
	for _, f := range z.File {
		if !strings.HasPrefix(f.Name, "xl/charts/chart") {
			continue
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

var (
	focusInstant = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)
	focusNumber  = regexp.MustCompile(`^-?\d+(\.\d+)?$`)
)

// readFOCUS reads a FOCUS export and checks every row: mandatory columns
// present, instants in UTC ISO 8601, decimals plain, and ListUnitPrice ×
// PricingQuantity = ListCost exactly.
func readFOCUS(t *testing.T, path string) []map[string]string {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var in io.Reader = file
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(file)
		if err != nil {
			t.Fatal(err)
		}
		in = zr
	}
	records, err := csv.NewReader(in).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := records[0]
	have := map[string]bool{}
	for _, h := range header {
		have[h] = true
	}
	for _, m := range reports.FOCUSMandatory {
		if !have[m] {
			t.Errorf("mandatory column %s missing", m)
		}
	}
	var rows []map[string]string
	for i, rec := range records[1:] {
		r := map[string]string{}
		for j, h := range header {
			r[h] = rec[j]
		}
		line := i + 2
		for _, c := range []string{"BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd"} {
			if !focusInstant.MatchString(r[c]) {
				t.Fatalf("line %d: %s %q is not UTC ISO 8601", line, c, r[c])
			}
		}
		for _, c := range reports.FOCUSMandatory {
			// FOCUS 1.2 lets these mandatory columns be null; PricingQuantity
			// and PricingUnit on rows other than Usage and Purchase only.
			nullable := c == "ChargeClass" || c == "BillingAccountName" || c == "ChargeDescription" ||
				((c == "PricingQuantity" || c == "PricingUnit") && r["ChargeCategory"] != "Usage")
			if !nullable && r[c] == "" {
				t.Fatalf("line %d: mandatory %s is empty", line, c)
			}
		}
		switch r["ChargeCategory"] {
		case "Usage":
			checkFOCUSUsage(t, line, r)
		case "Adjustment":
			checkFOCUSAdjustment(t, line, r)
		default:
			t.Fatalf("line %d: ChargeCategory %q", line, r["ChargeCategory"])
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("no FOCUS rows")
	}
	return rows
}

// checkFOCUSUsage checks a Usage row of priced calls: plain decimals,
// ListUnitPrice × PricingQuantity = ListCost, every cost column the list
// cost, and x_Tokens the tokens consumed.
func checkFOCUSUsage(t *testing.T, line int, r map[string]string) {
	t.Helper()
	for _, c := range []string{"BilledCost", "EffectiveCost", "ListCost", "ContractedCost", "ListUnitPrice", "ContractedUnitPrice",
		"PricingQuantity", "ConsumedQuantity", "x_RecordedCost", "x_CostGap", "x_Calls"} {
		if !focusNumber.MatchString(r[c]) {
			t.Fatalf("line %d: %s %q is not a plain decimal", line, c, r[c])
		}
	}
	list := mustDecimal(t, r["ListCost"])
	if got := mustDecimal(t, r["ListUnitPrice"]).Mul(mustDecimal(t, r["PricingQuantity"])); !got.Equal(list) {
		t.Fatalf("line %d: ListUnitPrice %s × PricingQuantity %s = %s, ListCost %s", line, r["ListUnitPrice"], r["PricingQuantity"], got, list)
	}
	for _, c := range []string{"BilledCost", "EffectiveCost", "ContractedCost"} {
		if !mustDecimal(t, r[c]).Equal(list) {
			t.Fatalf("line %d: %s %s, ListCost %s", line, c, r[c], list)
		}
	}
	if r["x_Outcome"] != "priced" || (r["ConsumedUnit"] == "Tokens" && r["x_Tokens"] != r["ConsumedQuantity"]) {
		t.Fatalf("line %d: x_Outcome %q, x_Tokens %q, ConsumedQuantity %q %s", line, r["x_Outcome"], r["x_Tokens"], r["ConsumedQuantity"], r["ConsumedUnit"])
	}
}

// checkFOCUSAdjustment checks an Adjustment row of calls not priced: every
// cost column 0, no price, quantity or SKU, what it holds said, and its
// calls, tokens and recorded spend plain numbers.
func checkFOCUSAdjustment(t *testing.T, line int, r map[string]string) {
	t.Helper()
	for _, c := range []string{"BilledCost", "EffectiveCost", "ListCost", "ContractedCost"} {
		if r[c] != "0" {
			t.Fatalf("line %d: %s %q on an Adjustment row, want 0", line, c, r[c])
		}
	}
	for _, c := range []string{"ListUnitPrice", "ContractedUnitPrice", "PricingQuantity", "PricingUnit", "ConsumedQuantity", "ConsumedUnit", "SkuId", "SkuPriceId"} {
		if r[c] != "" {
			t.Fatalf("line %d: %s %q on an Adjustment row, want null", line, c, r[c])
		}
	}
	for _, c := range []string{"x_RecordedCost", "x_CostGap", "x_Calls", "x_Tokens"} {
		if c == "x_Tokens" && (strings.HasPrefix(r["x_UsageType"], "web_") || r["x_UsageType"] == "file_search") {
			continue // uses of a tool, not tokens
		}
		if !focusNumber.MatchString(r[c]) {
			t.Fatalf("line %d: %s %q is not a plain decimal", line, c, r[c])
		}
	}
	if r["x_Outcome"] == "priced" || r["x_Outcome"] == "" || r["ChargeDescription"] == "" {
		t.Fatalf("line %d: Adjustment row with x_Outcome %q, ChargeDescription %q", line, r["x_Outcome"], r["ChargeDescription"])
	}
}

// TestReportAtomic checks that a run that fails writing one file leaves
// neither file nor any temporary file behind.
func TestReportAtomic(t *testing.T) {
	dir := t.TempDir()
	xlsx := filepath.Join(dir, "oct.xlsx")
	code, _, errOut := runCLI(t, "", "report", "--calls", sample, "--month", "2026-10", "--xlsx", xlsx,
		"--focus", filepath.Join(dir, "missing", "oct.csv"))
	if code != exitUsage || !strings.Contains(errOut, "missing") {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming the missing folder", code, errOut)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("a failed run left %v in the folder", entries)
	}
}

func TestReportUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no output", []string{"--calls", sample, "--month", "2026-10"}, "nothing to write"},
		{"no month", []string{"--calls", sample, "--xlsx", "x.xlsx"}, "--month is required"},
		{"focus version without focus", []string{"--calls", sample, "--month", "2026-10", "--xlsx", "x.xlsx", "--focus-version", "1.3"}, "give --focus FILE too"},
		{"raw text without focus", []string{"--calls", sample, "--month", "2026-10", "--xlsx", "x.xlsx", "--focus-raw-text"}, "give --focus FILE too"},
		{"bad month", []string{"--calls", sample, "--month", "2026-13", "--xlsx", "x.xlsx"}, `--month "2026-13" is not a month`},
		{"bad zone", []string{"--calls", sample, "--month", "2026-10", "--tz", "Mars/Base", "--xlsx", "x.xlsx"}, "not an IANA time zone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "", append([]string{"report"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 with %q", code, errOut, tt.want)
			}
		})
	}
}

// TestReportBlendAcrossATariffChange checks the Blended prices sheet of a
// month whose blend window holds a price change: every call of the window
// is priced at the tariff in force at the month's end, as blend does.
func TestReportBlendAcrossATariffChange(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls.csv")
	// Test tariff, model "old": version "nightly" (off-peak 16:30–00:30 UTC,
	// input 0.135) until 2025-09-05T16:00Z, then "flat" (input 0.56, output
	// 1.68). Call a is off-peak under nightly, call b under flat. At the
	// tariff in force on 2025-10-01 both are at flat: blended input 0.56,
	// output 1.68, where pricing each at its own version would give
	// (1000 × 0.135 + 1000 × 0.56) / 2000 = 0.3475 for input.
	data := "request_id,start,end,model,status,recorded_spend,input_tokens,cache_read_tokens,cache_write_tokens,output_tokens,reasoning_tokens\n" +
		"a,2025-09-04T20:00:00Z,2025-09-04T20:00:05Z,old-model,success,0.0001,1000,0,0,100,0\n" +
		"b,2025-09-10T10:00:00Z,2025-09-10T10:00:05Z,old-model,success,0.0001,1000,0,0,100,0\n"
	if err := os.WriteFile(calls, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	xlsx := filepath.Join(dir, "sep.xlsx")
	code, _, errOut := runCLI(t, "", "report", "--tariffs", "../../tariffs/testdata", "--calls", calls, "--month", "2025-09", "--xlsx", xlsx)
	if code != exitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	f, err := excelize.OpenFile(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := checkBlendedSheet(t, f, "--tariffs", "../../tariffs/testdata", "--calls", calls, "--as-of", "2025-10-01")
	if want["old/input"] != "0.56" || want["old/output"] != "1.68" {
		t.Errorf("blend says %v, want input 0.56 and output 1.68 at the flat version", want)
	}
}

// blendedPrices runs blend -o json with args and returns its blended
// prices by model/usage.
func blendedPrices(t *testing.T, args ...string) map[string]string {
	t.Helper()
	code, out, errOut := runCLI(t, "", append([]string{"blend", "-o", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("blend exit %d: %s", code, errOut)
	}
	var bl struct {
		Models []struct {
			Model  string
			Prices []struct{ Usage, Blended string }
		}
	}
	if err := json.Unmarshal([]byte(out), &bl); err != nil {
		t.Fatal(err)
	}
	prices := map[string]string{}
	for _, m := range bl.Models {
		for _, p := range m.Prices {
			prices[m.Model+"/"+p.Usage] = p.Blended
		}
	}
	return prices
}

// checkBlendedSheet runs blend with args and checks that every blended
// price it gives for a model with calls is in the workbook's Blended prices
// sheet, to the last digit; it returns blend's prices by model/usage.
func checkBlendedSheet(t *testing.T, f *excelize.File, args ...string) map[string]string {
	t.Helper()
	want := blendedPrices(t, args...)
	rows, _ := f.GetRows(reports.SheetBlended)
	col := column(t, f, reports.SheetBlended, "Blended price")
	seen := 0
	for i, r := range rows[2:] {
		w, ok := want[r[0]+"/"+r[1]]
		if !ok {
			t.Errorf("workbook blends %s %s, blend does not", r[0], r[1])
			continue
		}
		seen++
		if v := rawDecimal(t, f, reports.SheetBlended, col+itoa(i+3)); !v.Equal(mustDecimal(t, w)) {
			t.Errorf("%s %s: workbook blended %s, blend %s", r[0], r[1], v, w)
		}
	}
	if seen != len(want) || seen == 0 {
		t.Errorf("workbook has %d blended prices, blend %d", seen, len(want))
	}
	return want
}

package cli

import (
	"archive/zip"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/reports"
)

// threeWayJSON is the part of reconcile --provider-usage -o json the
// Provider usage sheet is compared with.
type threeWayJSON struct {
	Cells []struct {
		Day, Provider, Model, Key, Currency, Note string
		GatewayCalls                              int64            `json:"gateway_calls"`
		ProviderRequests                          *int64           `json:"provider_requests"`
		MissingCalls                              int64            `json:"missing_calls"`
		UnknownCalls                              int64            `json:"unknown_calls"`
		Missing                                   map[string]int64 `json:"missing_tokens"`
		Unknown                                   map[string]int64 `json:"unknown_tokens"`
		Recorded, Official, Billed, Gap           string
		ProviderOfficial                          string `json:"provider_official"`
		Parts                                     []struct{ Kind, Amount string }
	} `json:"cells"`
	Providers []struct {
		Provider, Currency, Recorded, Official, Billed, Gap string
		GatewayCalls                                        int64 `json:"gateway_calls"`
	} `json:"providers"`
	Drifts []struct {
		Provider, Model, Version, Period, Usage string
		First                                   string `json:"first_day"`
		Last                                    string `json:"last_day"`
		Tokens                                  int64
		Official, Billed, Drift                 string
		TariffPrice                             string `json:"tariff_price"`
		BilledPrice                             string `json:"billed_price"`
		Rounding                                bool
	} `json:"tariff_drift"`
}

// reportThreeWayArgs writes the fixtures' month with every provider export.
func reportThreeWayArgs(xlsx string) []string {
	args := []string{"report", "--tariffs", filepath.Join(providerFixtures, "tariffs"), "--calls", filepath.Join(providerFixtures, "calls.csv"),
		"--month", "2026-10", "--xlsx", xlsx}
	for _, f := range []string{"openai-usage.jsonl", "openai-costs.json", "anthropic-usage.json", "anthropic-cost.json", "deepseek-usage.csv"} {
		args = append(args, "--provider-usage", filepath.Join(providerFixtures, f))
	}
	return args
}

// TestReportProviderUsageSheet: with --provider-usage the workbook has a
// Provider usage sheet after Discrepancies whose rows are reconcile
// --provider-usage's cells and tariff drift; without, it has none.
func TestReportProviderUsageSheet(t *testing.T) {
	dir := t.TempDir()
	plain, three := filepath.Join(dir, "plain.xlsx"), filepath.Join(dir, "three.xlsx")
	base := []string{"report", "--tariffs", filepath.Join(providerFixtures, "tariffs"), "--calls", filepath.Join(providerFixtures, "calls.csv"),
		"--month", "2026-10", "--xlsx", plain}
	if code, _, errOut := runCLI(t, "", base...); code != exitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	code, _, errOut := runCLI(t, "", reportThreeWayArgs(three)...)
	if code != exitOK {
		t.Fatalf("report --provider-usage exit %d: %s", code, errOut)
	}
	fp, err := excelize.OpenFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	defer fp.Close()
	if got := fp.GetSheetList(); slices.Contains(got, reports.SheetProvider) || !slices.Equal(got, reports.Sheets) {
		t.Errorf("without --provider-usage: sheets %q, want %q", got, reports.Sheets)
	}
	f, err := excelize.OpenFile(three)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := slices.Insert(slices.Clone(reports.Sheets), slices.Index(reports.Sheets, reports.SheetBilled)+1, reports.SheetProvider)
	if got := f.GetSheetList(); !slices.Equal(got, want) {
		t.Fatalf("with --provider-usage: sheets %q, want %q", got, want)
	}

	code, out, errOut := runCLI(t, "", threeWayArgs("json")...)
	if code != exitOK {
		t.Fatalf("reconcile exit %d: %s", code, errOut)
	}
	var rec threeWayJSON
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Cells) == 0 || len(rec.Drifts) == 0 {
		t.Fatalf("reconcile gives %d cells and %d drift lines; the fixtures have both", len(rec.Cells), len(rec.Drifts))
	}
	sheet := reports.SheetProvider
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	// Caption, header, one row per cell, a total row per provider, a
	// blank row, the drift caption, its header and one row per drift line.
	if n := 2 + len(rec.Cells) + len(rec.Providers) + 3 + len(rec.Drifts); len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	text := func(ref, want string) {
		t.Helper()
		got, _ := f.GetCellValue(sheet, ref)
		if got != want {
			t.Errorf("%s!%s = %q, want %q", sheet, ref, got, want)
		}
	}
	num := func(ref string, want int64) {
		t.Helper()
		raw, _ := f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
		if w := decimal.NewFromInt(want).String(); raw != w {
			t.Errorf("%s!%s = %q, want %s", sheet, ref, raw, w)
		}
	}
	money := func(ref, want string) {
		t.Helper()
		if want == "" {
			raw, _ := f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
			if raw != "" {
				t.Errorf("%s!%s = %q, want empty", sheet, ref, raw)
			}
			return
		}
		if got, w := rawDecimal(t, f, sheet, ref), round15(decimal.RequireFromString(want)); !got.Equal(w) {
			t.Errorf("%s!%s = %s, want %s (reconcile's %s)", sheet, ref, got, w, want)
		}
	}
	col := func(header string) string { t.Helper(); return column(t, f, sheet, header) }
	for i, c := range rec.Cells {
		r := itoa(3 + i)
		text(col("Day (UTC)")+r, c.Day)
		text(col("Provider")+r, c.Provider)
		text(col("Model")+r, c.Model)
		text(col("Key (SHA-256)")+r, c.Key)
		if short := rows[2+i][3]; !strings.HasPrefix(c.Key, strings.TrimSuffix(short, "…")) {
			t.Errorf("%s!D%s = %q, want the start of %q", sheet, r, short, c.Key)
		}
		text(col("Currency")+r, c.Currency)
		text(col("Note")+r, c.Note)
		num(col("Gateway calls")+r, c.GatewayCalls)
		if c.ProviderRequests == nil {
			text(col("Provider requests")+r, "")
		} else {
			num(col("Provider requests")+r, *c.ProviderRequests)
		}
		num(col("Missing calls")+r, c.MissingCalls)
		num(col("Unknown calls")+r, c.UnknownCalls)
		for _, u := range []struct{ json, header string }{{"input", "input"}, {"cache_read", "cache read"}, {"cache_write", "cache write"}, {"output", "output"}} {
			num(col("Missing "+u.header+" tokens")+r, c.Missing[u.json])
			num(col("Unknown "+u.header+" tokens")+r, c.Unknown[u.json])
		}
		money(col("Recorded spend")+r, c.Recorded)
		money(col("Official cost")+r, c.Official)
		money(col("Official cost of provider's tokens")+r, c.ProviderOfficial)
		money(col("Billed")+r, c.Billed)
		money(col("Gap (billed − recorded)")+r, c.Gap)
		parts := map[string]string{}
		for _, p := range c.Parts {
			parts[p.Kind] = p.Amount
		}
		for kind, header := range map[string]string{"recorded_vs_tariff": "Recorded vs tariff", "missing_usage": "Missing usage",
			"unknown_usage": "Unknown usage", "tariff_drift": "Tariff drift", "billed_vs_gateway_tokens": "Billed vs gateway tokens",
			"unattributed_billing": "Unattributed billing", "unbilled_usage": "Unbilled usage"} {
			amount := parts[kind]
			if amount == "" {
				amount = "0"
			}
			money(col(header)+r, amount)
		}
	}
	// By hand: the DeepSeek key alpha's day is billed 0.000906 (its
	// 02:00 row) + 0.00045 + 0.00009 (the 12:00 row, amount left blank)
	// = 0.001446, and recorded 0.000453 + 0.00036 = 0.000813 on its two
	// calls: a gap of 0.000633.
	alpha := -1
	for i, c := range rec.Cells {
		if c.Provider == "deepseek" && c.Recorded == "0.000813" {
			alpha = i
		}
	}
	if alpha < 0 {
		t.Fatal("no DeepSeek cell of key alpha")
	}
	money(col("Billed")+itoa(3+alpha), "0.001446")
	money(col("Gap (billed − recorded)")+itoa(3+alpha), "0.000633")

	// A total row per provider, as reconcile --provider-usage sums it.
	for i, p := range rec.Providers {
		r := itoa(3 + len(rec.Cells) + i)
		text("A"+r, "Total")
		text(col("Provider")+r, p.Provider)
		num(col("Gateway calls")+r, p.GatewayCalls)
		money(col("Recorded spend")+r, p.Recorded)
		money(col("Official cost")+r, p.Official)
		money(col("Billed")+r, p.Billed)
		money(col("Gap (billed − recorded)")+r, p.Gap)
		text(col("Currency")+r, p.Currency)
	}

	// The drift table below: its caption, header, then the lines.
	at := 3 + len(rec.Cells) + len(rec.Providers) + 1
	if !strings.HasPrefix(rows[at-1][0], "Tariff drift") {
		t.Errorf("row %d = %q, want the tariff drift caption", at, rows[at-1])
	}
	header := rows[at]
	dcol := func(h string) string {
		t.Helper()
		i := slices.Index(header, h)
		if i < 0 {
			t.Fatalf("no drift column %q in %q", h, header)
		}
		name, _ := excelize.ColumnNumberToName(i + 1)
		return name
	}
	for i, d := range rec.Drifts {
		r := itoa(at + 2 + i)
		text(dcol("Provider")+r, d.Provider)
		text(dcol("Model")+r, d.Model)
		text(dcol("Version")+r, d.Version)
		text(dcol("Period")+r, d.Period)
		text(dcol("Usage")+r, d.Usage)
		text(dcol("First day (UTC)")+r, d.First)
		text(dcol("Last day (UTC)")+r, d.Last)
		num(dcol("Tokens")+r, d.Tokens)
		money(dcol("Tariff price")+r, d.TariffPrice)
		money(dcol("Billed price")+r, d.BilledPrice)
		money(dcol("Official cost")+r, d.Official)
		money(dcol("Billed")+r, d.Billed)
		money(dcol("Drift (billed − official)")+r, d.Drift)
		rounding := ""
		if d.Rounding {
			rounding = "yes"
		}
		text(dcol("Rounding only")+r, rounding)
	}

	// Frozen header and a filter over the cells, not over the drift below.
	panes, err := f.GetPanes(sheet)
	if err != nil || !panes.Freeze || panes.YSplit != 2 {
		t.Errorf("panes %+v (%v): want the header frozen", panes, err)
	}
	lastCol, _ := excelize.ColumnNumberToName(len(rows[1]))
	filter := "'" + sheet + "'!$A$2:$" + lastCol + "$" + itoa(2+len(rec.Cells))
	found := false
	for _, dn := range f.GetDefinedName() {
		if dn.Name == "_xlnm._FilterDatabase" && dn.Scope == sheet {
			found = true
			if dn.RefersTo != filter {
				t.Errorf("filter over %s, want %s", dn.RefersTo, filter)
			}
		}
	}
	if !found {
		t.Error("no filter on the header")
	}
}

// TestReportProviderUsageNoRawKeys: no plaintext key, DeepSeek's or the
// calls', is anywhere in the workbook's XML.
func TestReportProviderUsageNoRawKeys(t *testing.T) {
	xlsx := filepath.Join(t.TempDir(), "three.xlsx")
	if code, _, errOut := runCLI(t, "", reportThreeWayArgs(xlsx)...); code != exitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	z, err := zip.OpenReader(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	hashed := false
	for _, file := range z.File {
		r, err := file.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		checkNoRawKeys(t, file.Name, string(b))
		// The hashed key aligns DeepSeek's calls: it is there instead.
		hashed = hashed || strings.Contains(string(b), "b38afa7786ee")
	}
	if !hashed {
		t.Error("the workbook does not hold DeepSeek's hashed key")
	}
}

// TestReportProviderUsageNeedsXLSX: the exports add a sheet, so they need
// the workbook.
func TestReportProviderUsageNeedsXLSX(t *testing.T) {
	code, _, errOut := runCLI(t, "", "report", "--calls", filepath.Join(providerFixtures, "calls.csv"), "--month", "2026-10",
		"--focus", filepath.Join(t.TempDir(), "f.csv"), "--provider-usage", filepath.Join(providerFixtures, "deepseek-usage.csv"))
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	checkContains(t, "stderr", errOut, "give --xlsx FILE too")
}

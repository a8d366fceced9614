package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/internal/state"
)

// sampleBatches returns the sample's header and rows, in order of start,
// cut in n parts: part i holds the first i+1 (one log growing).
func sampleBatches(t *testing.T, n int) (header []string, parts [][][]string) {
	t.Helper()
	f, err := os.Open(sample)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header, rows = rows[0], rows[1:]
	start := slices.Index(header, "startTime")
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][start] < rows[j][start] })
	for i := 1; i <= n; i++ {
		parts = append(parts, rows[:len(rows)*i/n])
	}
	return header, parts
}

func writeCSV(t *testing.T, path string, header []string, rows [][]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write(header)
	w.WriteAll(rows)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// riseOverlay writes a DeepSeek tariff file whose newest version before
// October takes effect mid-October instead, 21 % dearer off-peak: an
// overlay that changes the tariff of calls already in a state.
func riseOverlay(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../tariffs/catalog/deepseek.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, "  - effective: 2026-09-10T04:00:00Z"), strings.Index(s, "  # 12. ")
	if i < 0 || j < i {
		t.Fatal("deepseek.yaml: versions 11 and 12 moved; update the test")
	}
	v := strings.NewReplacer("effective: 2026-09-10T04:00:00Z", "effective: 2026-10-15T16:00:00Z",
		"name: 2026-09-10-deepseek-flash", "name: 2026-10-16-pro-rise",
		"offpeak: {input: 0.66, cache_read: 0.022, cache_write: 0.66, output: 1.98}", "offpeak: {input: 0.7986, cache_read: 0.02662, cache_write: 0.7986, output: 2.3958}",
	).Replace(s[i:j])
	path := filepath.Join(t.TempDir(), "deepseek.yaml")
	if err := os.WriteFile(path, []byte(s[:j]+v+s[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStateCommands: the sample arriving in three batches, each read into
// a state by a batch command with --state (the first at the embedded
// catalog, the others with a DeepSeek version changed since), gives from
// the state alone what reconcile, blend and report give reading every row
// at the changed tariff: the same stdout, FOCUS file and workbook cells.
func TestStateCommands(t *testing.T) {
	dir := t.TempDir()
	header, parts := sampleBatches(t, 3)
	full := filepath.Join(dir, "spendlogs.csv")
	st := filepath.Join(dir, "state.db")
	rise := riseOverlay(t)
	for i, rows := range parts {
		writeCSV(t, full, header, rows)
		args := []string{"reconcile", "--calls", full, "--state", st, "-o", "json"}
		if i > 0 {
			args = append(args, "--tariffs-overlay", rise)
		}
		if code, _, stderr := runCLI(t, "", args...); code != 0 {
			t.Fatalf("batch %d: exit %d\n%s", i+1, code, stderr)
		}
	}
	budgets := filepath.Join(dir, "budgets.yaml")
	if err := os.WriteFile(budgets, []byte("budgets:\n  - team: search\n    monthly: 1500\n  - tag: project-atlas\n    monthly: 80\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"reconcile by model", []string{"reconcile", "-o", "json"}},
		{"reconcile by key, team, user, day, tag", []string{"reconcile", "--by", "key,team,user,day,tag", "-o", "json"}},
		{"reconcile by period and version, October 10-20", []string{"reconcile", "--by", "model,period,version", "--since", "2026-10-10", "--until", "2026-10-20", "-o", "csv"}},
		{"blend", []string{"blend", "--as-of", "2026-11-01", "-o", "json"}},
		{"blend, gateway mode, a week", []string{"blend", "--as-of", "2026-10-25", "--window", "7d", "--mode", "gateway", "-o", "json"}},
		{"blend, historical", []string{"blend", "--as-of", "2026-11-01", "--historical", "-o", "yaml"}},
		{"report", []string{"report", "--month", "2026-10", "--budgets", budgets, "--focus", filepath.Join(dir, "focus.csv")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, want, stderr := runCLI(t, "", append(tt.args, "--calls", full, "--tariffs-overlay", rise)...)
			if code != 0 {
				t.Fatalf("without --state: exit %d\n%s", code, stderr)
			}
			code, got, stderr := runCLI(t, "", append(tt.args, "--state", st, "--tariffs-overlay", rise)...)
			if code != 0 {
				t.Fatalf("with --state: exit %d\n%s", code, stderr)
			}
			if got != want {
				t.Errorf("with --state:\n%.3000s\nwithout:\n%.3000s", got, want)
			}
		})
	}
}

// TestStateReportFiles: the workbook and the FOCUS file written from the
// state, at a tariff changed since it was read, hold what a report
// reading every row writes: every cell of every sheet but the one that
// names the inputs, and the FOCUS file byte for byte.
func TestStateReportFiles(t *testing.T) {
	dir := t.TempDir()
	header, parts := sampleBatches(t, 2)
	rise := riseOverlay(t)
	log := filepath.Join(dir, "spendlogs.csv")
	st := filepath.Join(dir, "state.db")
	for _, rows := range parts {
		writeCSV(t, log, header, rows)
		if code, _, stderr := runCLI(t, "", "reconcile", "--calls", log, "--state", st); code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
	}
	budgets := filepath.Join(dir, "budgets.yaml")
	if err := os.WriteFile(budgets, []byte("budgets:\n  - team: search\n    monthly: 1500\n  - key: search-prod\n    monthly: 300\n  - tag: project-atlas\n    monthly: 80\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name string, source ...string) (xlsx, focus string) {
		xlsx, focus = filepath.Join(dir, name+".xlsx"), filepath.Join(dir, name+"-focus.csv")
		// At a DeepSeek tariff changed since the state was read, within the
		// blend window: the month's blend prices those calls again.
		args := append([]string{"report", "--month", "2026-10", "--budgets", budgets, "--compare", "2026-09", "--xlsx", xlsx, "--focus", focus,
			"--tariffs-overlay", rise}, source...)
		if code, _, stderr := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		return xlsx, focus
	}
	wantX, wantF := write("rows", "--calls", log)
	gotX, gotF := write("state", "--state", st)
	if a, b := readFile(t, gotF), readFile(t, wantF); a != b {
		t.Errorf("FOCUS from the state differs from the rows' (%d and %d bytes)", len(a), len(b))
	}
	want, got := cells(t, wantX), cells(t, gotX)
	if len(got) != len(want) {
		t.Errorf("the workbook from the state has %d cells, the rows' %d", len(got), len(want))
	}
	for ref, w := range want {
		if g := got[ref]; g != w && !strings.Contains(g, "state "+st) {
			t.Errorf("%s: %q from the state, %q from the rows", ref, g, w)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cells returns every cell of a workbook by sheet!ref, as its raw value.
func cells(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	for _, sheet := range f.GetSheetList() {
		rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range rows {
			for j, v := range row {
				ref, _ := excelize.CoordinatesToCellName(j+1, i+1)
				out[sheet+"!"+ref] = v
			}
		}
	}
	return out
}

// TestStateLocked: a state another process holds (serve keeps it open)
// is bad usage naming the file, and the command reads nothing.
func TestStateLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("three waits of the state's lock, a second each: make test-long runs it")
	}
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := state.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, cmd := range [][]string{{"reconcile"}, {"blend"}, {"report", "--month", "2026-10", "--focus", filepath.Join(t.TempDir(), "f.csv")}} {
		code, _, stderr := runCLI(t, "", append(cmd, "--calls", sample, "--state", path)...)
		if code != exitUsage || !strings.Contains(stderr, path) || !strings.Contains(stderr, "another process holds it") {
			t.Errorf("%s with a held state: exit %d\n%s", cmd[0], code, stderr)
		}
	}
}

// TestStateOffGrain: a tariff version taking effect off the state's
// 15-minute grain is named (model, version, instant) in a warning on
// stderr by the batch commands and in serve's log; where no slot holds
// calls on both sides of it, the state still gives the run's figures.
func TestStateOffGrain(t *testing.T) {
	overlay := riseOverlay(t)
	data := strings.Replace(readFile(t, overlay), "effective: 2026-10-15T16:00:00Z", "effective: 2026-10-15T16:05:00Z", 1)
	if err := os.WriteFile(overlay, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(t.TempDir(), "state.db")
	code, _, stderr := runCLI(t, "", "serve", "--once", "--calls", sample, "--state", st, "--tariffs-overlay", overlay)
	const named = `"model":"deepseek-flash","version":"2026-10-16-pro-rise","at":"2026-10-15T16:05:00Z"`
	if code != 0 || !strings.Contains(stderr, `"level":"WARN"`) || !strings.Contains(stderr, named) {
		t.Errorf("serve --once: exit %d, no warning naming %s:\n%s", code, named, stderr)
	}
	_, want, _ := runCLI(t, "", "reconcile", "--calls", sample, "--tariffs-overlay", overlay, "-o", "json")
	code, got, stderr := runCLI(t, "", "reconcile", "--state", st, "--tariffs-overlay", overlay, "-o", "json")
	const warned = "model deepseek-flash, version 2026-10-16-pro-rise: a tariff boundary at 2026-10-15T16:05:00Z is not on the state's 15-minute grain"
	if code != 0 || !strings.Contains(stderr, "warning: state "+st+": "+warned) {
		t.Errorf("reconcile --state: exit %d, no warning %q:\n%s", code, warned, stderr)
	}
	if got != want {
		t.Errorf("reconcile --state:\n%.2000s\nwithout:\n%.2000s", got, want)
	}
}

// TestStateMissing: --state naming no file, with no source to fill it,
// is bad usage naming the path, and creates nothing.
func TestStateMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-state.db")
	code, _, stderr := runCLI(t, "", "reconcile", "--state", path)
	if code != exitUsage || !strings.Contains(stderr, "no state at "+path) {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s was created", path)
	}
}

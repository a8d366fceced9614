package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/internal/cli"
)

// spillInput writes a generated file of many keys over a month, and
// points the temporary folder, where spilled groups go, at a folder of its
// own: the file's path and that folder.
func spillInput(t *testing.T) (calls, tmp string) {
	t.Helper()
	cfg := config{Rows: 30000, Seed: 5, Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Days: 31, Format: "flat", Keys: 400}
	var in bytes.Buffer
	if err := generate(&in, cfg); err != nil {
		t.Fatal(err)
	}
	calls = filepath.Join(t.TempDir(), "spendlogs.csv")
	if err := os.WriteFile(calls, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp = t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the runs go (os.TempDir)
	t.Setenv("TMP", tmp)
	return calls, tmp
}

// run runs the command args and returns its stdout and stderr.
func run(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	if code := cli.Main(args, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs.String())
	}
	return out.String(), errs.String()
}

// spilledIsUnlimited runs the command of args held in memory and again
// with a budget of 40 buckets, checks that both give the same output and
// stderr, with at least groups lines and none folded, and returns the
// spilled run's output.
func spilledIsUnlimited(t *testing.T, args []string, groups int) string {
	t.Helper()
	want, wantErr := run(t, args...)
	got, gotErr := run(t, append(args, "--group-budget", "40")...)
	if got != want {
		t.Errorf("spilled output differs from the one held in memory:\ngot  %.800s\nwant %.800s", got, want)
	}
	if gotErr != wantErr {
		t.Errorf("stderr: got %q, want %q", gotErr, wantErr)
	}
	if n := strings.Count(want, "\n"); n < groups {
		t.Errorf("only %d lines: too few groups to spill many times", n)
	}
	if strings.Contains(got, "(other") {
		t.Errorf("a line is folded:\n%.800s", got)
	}
	return got
}

// noRunsLeft fails the test when anything is left in the folder of runs.
func noRunsLeft(t *testing.T, tmp string) {
	t.Helper()
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("left in the temporary folder: %v", left)
	}
}

// TestSpilledChargebackIsTheUnlimitedOne charges a generated month back
// through the real command, by key and day among others, with a budget of
// buckets so small that the groups spill to disk hundreds of times, and
// checks the output byte for byte against the same run held in memory, in
// every format, with and without a filter: no line is folded into
// "(other keys)", and every line's cost at the blended prices is the one
// summed from its buckets.
func TestSpilledChargebackIsTheUnlimitedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	calls, tmp := spillInput(t)
	tests := []struct {
		name   string
		args   []string
		groups int // lines at the least, so that the groups spill many times
	}{
		{name: "by key and day, json", args: []string{"--by", "key,day", "-o", "json"}, groups: 5000},
		{name: "by key and day, csv", args: []string{"--by", "key,day", "-o", "csv"}, groups: 5000},
		{name: "by key and day, table", args: []string{"--by", "key,day"}, groups: 5000},
		{name: "by model, team and day, yaml", args: []string{"--by", "model,team,day", "-o", "yaml"}, groups: 5000},
		{name: "by key, csv", args: []string{"--by", "key", "-o", "csv"}, groups: 400},
		{name: "one key by day, csv", args: []string{"--by", "key,day", "--key", "key-0000007", "-o", "csv"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spilledIsUnlimited(t, append([]string{"chargeback", "--calls", calls, "--month", "2026-10"}, tc.args...), tc.groups)
			noRunsLeft(t, tmp)
		})
	}
}

// TestSpilledWorkbookIsTheUnlimitedOne writes the month's workbook of a
// generated file through the real command, with a budget of buckets so
// small that its groups (by model, key, team, user and day) spill to disk
// hundreds of times, reads both workbooks back and compares every cell of
// every sheet (but the instant each was produced) with the workbook of
// the same run held in memory.
func TestSpilledWorkbookIsTheUnlimitedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	calls, tmp := spillInput(t)
	out := t.TempDir()
	write := func(name string, budget ...string) map[string][][]string {
		path := filepath.Join(out, name)
		run(t, append([]string{"report", "--calls", calls, "--month", "2026-10", "--xlsx", path}, budget...)...)
		return readWorkbook(t, path)
	}
	want := write("held.xlsx")
	got := write("spilled.xlsx", "--group-budget", "40")
	if len(want["By key"]) < 400 {
		t.Errorf("By key has %d rows: too few keys to spill many times", len(want["By key"]))
	}
	sameWorkbook(t, got, want)
	noRunsLeft(t, tmp)
}

// sameWorkbook checks the cells of workbook got against want's, sheet by
// sheet, but the instant each was produced.
func sameWorkbook(t *testing.T, got, want map[string][][]string) {
	t.Helper()
	for sheet, rows := range want {
		if len(got[sheet]) != len(rows) {
			t.Errorf("%s: %d rows, want %d", sheet, len(got[sheet]), len(rows))
			continue
		}
		for i, row := range rows {
			if produced(row) {
				continue
			}
			if g := strings.Join(got[sheet][i], "|"); g != strings.Join(row, "|") {
				t.Errorf("%s row %d:\ngot  %s\nwant %s", sheet, i+1, g, strings.Join(row, "|"))
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d sheets, want %d", len(got), len(want))
	}
}

// TestSpilledFOCUSIsTheUnlimitedOne writes the month's FOCUS file of a
// generated file through the real command (report --focus), with a budget
// of buckets so small that its groups and charges spill to disk hundreds
// of times, and checks it byte for byte against the file of the same run
// held in memory, in FOCUS 1.2 and 1.3, and the workbook written with it;
// stderr and the report's line too, and no folder of runs left.
func TestSpilledFOCUSIsTheUnlimitedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	calls, tmp := spillInput(t)
	out := t.TempDir() // not under tmp: the test's folder was made before spillInput set it
	for _, tc := range []struct {
		name string
		args []string
		xlsx bool
	}{
		{name: "FOCUS 1.2", args: []string{"--focus-version", "1.2"}},
		{name: "FOCUS 1.3 and the workbook", args: []string{"--focus-version", "1.3"}, xlsx: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write := func(dir string, budget ...string) (focus []byte, stdout, stderr string, sheets map[string][][]string) {
				dir = filepath.Join(out, tc.name, dir)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				args := append([]string{"report", "--calls", calls, "--month", "2026-10", "--focus", filepath.Join(dir, "focus.csv")}, tc.args...)
				if tc.xlsx {
					args = append(args, "--xlsx", filepath.Join(dir, "month.xlsx"))
				}
				stdout, stderr = run(t, append(args, budget...)...)
				focus, err := os.ReadFile(filepath.Join(dir, "focus.csv"))
				if err != nil {
					t.Fatal(err)
				}
				if tc.xlsx {
					sheets = readWorkbook(t, filepath.Join(dir, "month.xlsx"))
				}
				return focus, strings.ReplaceAll(stdout, dir, "DIR"), stderr, sheets
			}
			want, wantOut, wantErr, wantSheets := write("held")
			got, gotOut, gotErr, gotSheets := write("spilled", "--group-budget", "40")
			if n := bytes.Count(want, []byte("\n")); n < 20000 {
				t.Errorf("only %d rows: too few charges to spill many times", n)
			}
			if bytes.Contains(got, []byte("(other")) {
				t.Error("a row is folded")
			}
			if !bytes.Equal(got, want) {
				gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Fatalf("%d rows, want %d; row %d:\ngot  %s\nwant %s", len(gl), len(wl), i, gl[i], wl[i])
					}
				}
				t.Fatalf("%d rows, want %d", len(gl), len(wl))
			}
			if gotOut != wantOut || gotErr != wantErr {
				t.Errorf("stdout %q, stderr %q; want %q, %q", gotOut, gotErr, wantOut, wantErr)
			}
			if tc.xlsx {
				sameWorkbook(t, gotSheets, wantSheets)
			}
			noRunsLeft(t, tmp)
		})
	}
}

// produced reports whether a Summary row is the instant the workbook was
// produced, which differs between two runs.
func produced(row []string) bool { return len(row) > 0 && row[0] == "at (UTC)" }

// readWorkbook returns the cell values of every sheet of the workbook at
// path, by sheet name.
func readWorkbook(t *testing.T, path string) map[string][][]string {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheets := map[string][][]string{}
	for _, name := range f.GetSheetList() {
		rows, err := f.GetRows(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sheets[name] = rows
	}
	return sheets
}

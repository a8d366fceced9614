package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/cli"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/pricing"
)

// spillState reads a generated file of many keys over a month into a
// state file, through the real command, and returns the state's path and
// the folder where spilled groups go (spillInput's).
func spillState(t *testing.T) (st, tmp string) {
	t.Helper()
	calls, tmp := spillInput(t)
	return stateOf(t, calls), tmp
}

// stateOf reads the calls of file calls into a new state file, through
// the real command, and returns its path.
func stateOf(t *testing.T, calls string) string {
	t.Helper()
	st := filepath.Join(t.TempDir(), "state.db") // not under TMPDIR: the test's folder was made before spillInput set it
	run(t, "reconcile", "--calls", calls, "--state", st, "-o", "json")
	return st
}

// TestSpilledStateReconcileIsTheUnlimitedOne reconciles a state of many
// keys by model, key and day through the real command, with a budget of
// buckets so small that the groups replayed from its sums spill to disk
// hundreds of times, and checks the output and stderr byte for byte
// against the same run held in memory: no line is folded into
// "(other keys)", and no folder of runs is left.
func TestSpilledStateReconcileIsTheUnlimitedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	st, tmp := spillState(t)
	for _, format := range []string{"json", "csv"} {
		t.Run(format, func(t *testing.T) {
			spilledIsUnlimited(t, []string{"reconcile", "--state", st, "--by", "model,key,day", "-o", format}, 5000)
			noRunsLeft(t, tmp)
		})
	}
}

// TestSpilledStateReportIsTheUnlimitedOne writes the month's workbook and
// FOCUS file from a state of many keys through the real command (report
// --state), with a budget of buckets so small that its groups and charges
// spill to disk hundreds of times, and checks the FOCUS file byte for
// byte, the workbook cell for cell, stdout and stderr against the files
// of the same run held in memory; no row is folded and no folder of runs
// is left.
func TestSpilledStateReportIsTheUnlimitedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	st, tmp := spillState(t)
	out := t.TempDir()
	write := func(name string, budget ...string) (focus []byte, stdout, stderr string, sheets map[string][][]string) {
		dir := filepath.Join(out, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		args := []string{"report", "--state", st, "--month", "2026-10",
			"--xlsx", filepath.Join(dir, "month.xlsx"), "--focus", filepath.Join(dir, "focus.csv")}
		stdout, stderr = run(t, append(args, budget...)...)
		focus, err := os.ReadFile(filepath.Join(dir, "focus.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return focus, strings.ReplaceAll(stdout, dir, "DIR"), stderr, readWorkbook(t, filepath.Join(dir, "month.xlsx"))
	}
	want, wantOut, wantErr, wantSheets := write("held")
	got, gotOut, gotErr, gotSheets := write("spilled", "--group-budget", "40")
	if n := bytes.Count(want, []byte("\n")); n < 20000 {
		t.Errorf("only %d rows: too few charges to spill many times", n)
	}
	if len(wantSheets["By key"]) < 400 {
		t.Errorf("By key has %d rows: too few keys to spill many times", len(wantSheets["By key"]))
	}
	if bytes.Contains(got, []byte("(other")) {
		t.Error("a FOCUS row is folded")
	}
	for _, sheet := range []string{"By key", "By team"} {
		for _, row := range gotSheets[sheet] {
			if strings.Contains(strings.Join(row, "|"), "(other") {
				t.Errorf("%s: a row is folded: %v", sheet, row)
			}
		}
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("FOCUS: %d rows, want %d; row %d:\ngot  %s\nwant %s", len(gl), len(wl), i, gl[i], wl[i])
			}
		}
		t.Fatalf("FOCUS: %d rows, want %d", len(gl), len(wl))
	}
	if gotOut != wantOut || gotErr != wantErr {
		t.Errorf("stdout %q, stderr %q; want %q, %q", gotOut, gotErr, wantOut, wantErr)
	}
	sameWorkbook(t, gotSheets, wantSheets)
	noRunsLeft(t, tmp)
}

// TestSpilledStateFailingLeavesNoRuns reconciles a state up to an
// instant among the calls of one of its last sums, which the state cannot
// price exactly: the command fails naming it, after its groups spilled to
// disk many times, and leaves no folder of runs. A few keys, each with
// several calls in a slot, so that a sum holds calls at two instants.
func TestSpilledStateFailingLeavesNoRuns(t *testing.T) {
	cfg := config{Rows: 20000, Seed: 5, Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Days: 31, Format: "flat", Keys: 8}
	var in bytes.Buffer
	if err := generate(&in, cfg); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(t.TempDir(), "spendlogs.csv")
	if err := os.WriteFile(calls, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	st := stateOf(t, calls)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the runs go (os.TempDir)
	t.Setenv("TMP", tmp)
	until, placed := straddled(t, st)
	if placed < 1000 {
		t.Fatalf("only %d sums before the one straddled: too few to spill many times", placed)
	}
	var out, errs bytes.Buffer
	args := []string{"reconcile", "--state", st, "--by", "model,key,day", "--until", until.Format(time.RFC3339Nano), "--group-budget", "40"}
	code := cli.Main(args, strings.NewReader(""), &out, &errs)
	if code == 0 || !strings.Contains(errs.String(), "lie on both sides of the window's edge") {
		t.Errorf("exit %d, stderr:\n%s", code, errs.String())
	}
	noRunsLeft(t, tmp)
}

// straddled returns an instant between the first and last call of the
// last priced sum of the state at path, in the file's order (by slot),
// whose calls are not all at one instant, and how many sums come before.
func straddled(t *testing.T, path string) (at time.Time, before int) {
	t.Helper()
	s, err := state.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	err = s.Each(func(k *state.Key, sums *state.Sums) error {
		if k.Outcome == pricing.Priced && sums.Newest.Sub(sums.Oldest) > time.Second {
			at, before = sums.Oldest.Add(time.Second), n
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if at.IsZero() {
		t.Fatal("no sum of the state holds calls at two instants")
	}
	return at, before
}

// TestSpilledStateUnwritable: a state whose groups cannot spill to disk
// (the temporary folder is a file) fails the command as reading the
// sources does, rather than folding its groups.
func TestSpilledStateUnwritable(t *testing.T) {
	st, tmp := spillState(t)
	file := filepath.Join(tmp, "not-a-folder")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", file)
	t.Setenv("TMP", file)
	var out, errs bytes.Buffer
	code := cli.Main([]string{"reconcile", "--state", st, "--by", "model,key,day", "-o", "csv", "--group-budget", "40"}, strings.NewReader(""), &out, &errs)
	if code == 0 || !strings.Contains(errs.String(), "Error: spill groups to disk") || out.Len() > 0 {
		t.Errorf("exit %d, stdout %.300q, stderr:\n%s", code, out.String(), errs.String())
	}
}

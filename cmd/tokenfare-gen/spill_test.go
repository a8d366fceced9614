package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/cli"
)

// TestSpilledGroupsAreTheUnlimitedOnes reconciles a generated file of
// many groups through the real command, with a budget of buckets so small
// that the groups spill to disk hundreds of times (and their runs are
// merged into one every 64), and checks the output byte for byte against
// the same run held in memory, in every format, and that the runs are
// removed afterwards.
func TestSpilledGroupsAreTheUnlimitedOnes(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	cfg := config{Rows: 30000, Seed: 3, Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Days: 31, Format: "flat", Keys: 300}
	var in bytes.Buffer
	if err := generate(&in, cfg); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(t.TempDir(), "spendlogs.csv")
	if err := os.WriteFile(calls, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the runs go (os.TempDir)
	t.Setenv("TMP", tmp)
	tests := []struct {
		name, by, output string
	}{
		{name: "by model, key and day, json", by: "model,key,day", output: "json"},
		{name: "by model, key and day, csv", by: "model,key,day", output: "csv"},
		{name: "by model, key and day, table", by: "model,key,day", output: "table"},
		{name: "by user, hour and period, csv", by: "user,hour,period", output: "csv"},
		{name: "by team and version, yaml", by: "team,version", output: "yaml"},
		{name: "by model, table", by: "model", output: "table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reconcile := func(budget ...string) (string, string) {
				var out, errs bytes.Buffer
				args := append([]string{"reconcile", "--calls", calls, "--by", tc.by, "-o", tc.output}, budget...)
				if code := cli.Main(args, strings.NewReader(""), &out, &errs); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errs.String())
				}
				return out.String(), errs.String()
			}
			want, wantErr := reconcile()
			got, gotErr := reconcile("--group-budget", "40")
			if got != want {
				t.Errorf("spilled output differs from the one held in memory:\ngot  %.600s\nwant %.600s", got, want)
			}
			if gotErr != wantErr {
				t.Errorf("stderr: got %q, want %q", gotErr, wantErr)
			}
			if tc.by == "model,key,day" && strings.Count(want, "\n") < 5000 {
				t.Errorf("only %d lines: too few groups to spill many times", strings.Count(want, "\n"))
			}
			left, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) > 0 {
				t.Errorf("left in the temporary folder: %v", left)
			}
		})
	}
}

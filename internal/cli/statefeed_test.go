package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// relPath returns path relative to the working folder.
func relPath(t *testing.T, path string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// TestStateFeedNames: the same export given to two refreshes of a state by
// two names (relative and absolute, not cleaned, its folder, a glob) is
// one feed: the second refresh reads only the rows past the first's, and
// the state gives one run's figures over the export, every call once. A
// state whose feed was stored under its relative name, as tokenfare
// stored it before, is read on from there however the export is named
// now.
func TestStateFeedNames(t *testing.T) {
	tests := []struct {
		name          string
		first, second func(dir string) string // the --calls of each refresh, from the export's folder
		storedOld     bool                    // the first refresh stores the feed under its name as given
	}{
		{name: "relative, then absolute",
			first:  func(dir string) string { return relPath(t, filepath.Join(dir, "spendlogs.csv")) },
			second: func(dir string) string { return filepath.Join(dir, "spendlogs.csv") }},
		{name: "absolute, then relative",
			first:  func(dir string) string { return filepath.Join(dir, "spendlogs.csv") },
			second: func(dir string) string { return relPath(t, filepath.Join(dir, "spendlogs.csv")) }},
		{name: "absolute, then not cleaned",
			first:  func(dir string) string { return filepath.Join(dir, "spendlogs.csv") },
			second: func(dir string) string { return dir + "/./sub/../spendlogs.csv" }},
		{name: "folder, relative then absolute",
			first:  func(dir string) string { return relPath(t, dir) + "/" },
			second: func(dir string) string { return dir }},
		{name: "glob, absolute then relative",
			first:  func(dir string) string { return filepath.Join(dir, "*.csv") },
			second: func(dir string) string { return relPath(t, filepath.Join(dir, "*.csv")) }},
		{name: "stored relative the old way, then absolute", storedOld: true,
			first:  func(dir string) string { return relPath(t, filepath.Join(dir, "spendlogs.csv")) },
			second: func(dir string) string { return filepath.Join(dir, "spendlogs.csv") }},
		{name: "stored relative the old way, then the same", storedOld: true,
			first:  func(dir string) string { return relPath(t, filepath.Join(dir, "spendlogs.csv")) },
			second: func(dir string) string { return relPath(t, filepath.Join(dir, "spendlogs.csv")) }},
		{name: "stored folder the old way, then absolute", storedOld: true,
			first:  func(dir string) string { return relPath(t, dir) },
			second: func(dir string) string { return dir + "/" }},
	}
	header, parts := sampleBatches(t, 2)
	full := filepath.Join(t.TempDir(), "spendlogs.csv")
	writeCSV(t, full, header, parts[1])
	code, want, stderr := runCLI(t, "", "reconcile", "--calls", full, "-o", "json")
	if code != 0 {
		t.Fatalf("reconcile: exit %d\n%s", code, stderr)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			export := filepath.Join(dir, "spendlogs.csv")
			st := filepath.Join(t.TempDir(), "state.db")
			writeCSV(t, export, header, parts[0])
			if tt.storedOld {
				storeOldWay(t, st, tt.first(dir))
			} else if code, _, stderr := runCLI(t, "", "reconcile", "--calls", tt.first(dir), "--state", st); code != 0 {
				t.Fatalf("first refresh: exit %d\n%s", code, stderr)
			}
			writeCSV(t, export, header, parts[1])
			code, got, stderr := runCLI(t, "", "reconcile", "--calls", tt.second(dir), "--state", st, "-o", "json")
			if code != 0 {
				t.Fatalf("second refresh: exit %d\n%s", code, stderr)
			}
			newRows := len(parts[1]) - len(parts[0])
			if n := strings.Count(stderr, "row(s) read"); n != 1 || !strings.Contains(stderr, ": "+itoa(newRows)+" row(s) read") {
				t.Errorf("second refresh: want one feed reading the %d new rows:\n%s", newRows, stderr)
			}
			if got != want {
				t.Errorf("from the state:\n%.1500s\none run over the export:\n%.1500s", got, want)
			}
		})
	}
}

// storeOldWay refreshes the state at path from the --calls argument arg
// as a tokenfare before this one did: the feed named arg as given.
func storeOldWay(t *testing.T, path, arg string) {
	t.Helper()
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	s, err := state.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	feed := state.Feed{Name: arg, Files: func() ([]string, error) { return callFiles(arg) }}
	if _, err := run.Refresh(context.Background(), s, cat, pricing.Options{}, []state.Feed{feed}, false); err != nil {
		t.Fatal(err)
	}
}

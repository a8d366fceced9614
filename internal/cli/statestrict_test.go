package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/internal/state"
)

// TestStateStrict: --strict with --state stops at the first bad row the
// refresh would read, naming its file and line (a database's request),
// with the exit code --strict has without --state, and leaves the state
// as it was: a bad row in an export never read, in the lines an export
// grew by, in a database's rows. Once the row is fixed, the state reads
// it and gives one run's figures over the whole export.
func TestStateStrict(t *testing.T) {
	header, parts := sampleBatches(t, 2)
	bad := func(rows [][]string, i int) [][]string {
		out := slices.Clone(rows)
		row := slices.Clone(out[i])
		row[slices.Index(header, "prompt_tokens")] = "12x5"
		out[i] = row
		return out
	}
	const badLine = 4500 // a line past the first part's (3001 lines with its header)
	tests := []struct {
		name  string
		first [][]string // the export the state was refreshed from before, nil for none
		then  [][]string // the export the --strict refresh reads
		where string     // the bad row, as named (after the export's folder)
	}{
		{name: "an export never read", then: bad(parts[1], 40), where: "spendlogs.csv:42: prompt_tokens"},
		{name: "the lines an export grew by", first: parts[0], then: bad(parts[1], badLine-2), where: "spendlogs.csv:4500: prompt_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			export, st := filepath.Join(dir, "spendlogs.csv"), filepath.Join(t.TempDir(), "state.db")
			var before string
			if tt.first != nil {
				writeCSV(t, export, header, tt.first)
				if code, _, stderr := runCLI(t, "", "reconcile", "--calls", export, "--state", st); code != 0 {
					t.Fatalf("first refresh: exit %d\n%s", code, stderr)
				}
				_, before, _ = runCLI(t, "", "reconcile", "--state", st, "-o", "json")
			}
			writeCSV(t, export, header, tt.then)
			code, _, stderr := runCLI(t, "", "reconcile", "--calls", export, "--strict")
			codeState, _, stderrState := runCLI(t, "", "reconcile", "--calls", export, "--state", st, "--strict")
			if codeState != code || code != exitUsage {
				t.Errorf("exit %d with --state, %d without, want %d", codeState, code, exitUsage)
			}
			if !strings.Contains(stderrState, dir+"/"+tt.where) || !strings.Contains(stderr, dir+"/"+tt.where) {
				t.Errorf("the bad row not named %s:\nwith --state: %s\nwithout: %s", tt.where, stderrState, stderr)
			}
			if tt.first == nil {
				if _, err := os.Stat(st); err == nil {
					t.Errorf("%s was created", st)
				}
			} else if _, after, _ := runCLI(t, "", "reconcile", "--state", st, "-o", "json"); after != before {
				t.Errorf("the state changed:\n%.1000s\nwas:\n%.1000s", after, before)
			}
			writeCSV(t, export, header, parts[1])
			_, want, _ := runCLI(t, "", "reconcile", "--calls", export, "-o", "json")
			code, got, stderr := runCLI(t, "", "reconcile", "--calls", export, "--state", st, "--strict", "-o", "json")
			if code != 0 || got != want {
				t.Errorf("the row fixed: exit %d, from the state:\n%.1000s\none run:\n%.1000s\n%s", code, got, want, stderr)
			}
		})
	}
}

// TestStateStrictDB: a database row the reader rejects stops a --strict
// refresh, named by its request, with --strict's exit code, and the
// state keeps nothing of the database.
func TestStateStrictDB(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	db.Exec(t, `UPDATE "LiteLLM_SpendLogs" SET prompt_tokens = -5 WHERE request_id = (SELECT min(request_id) FROM "LiteLLM_SpendLogs")`)
	st := filepath.Join(t.TempDir(), "state.db")
	code, _, stderr := runCLI(t, "", "reconcile", "--db", db.URL, "--rows", "--strict")
	codeState, _, stderrState := runCLI(t, "", "reconcile", "--db", db.URL, "--state", st, "--strict")
	if codeState != code || code != exitUsage || !strings.Contains(stderrState, "request ") || !strings.Contains(stderrState, "prompt_tokens") {
		t.Errorf("exit %d with --state, %d without, want %d naming the request:\n%s\nwithout:\n%s", codeState, code, exitUsage, stderrState, stderr)
	}
	s, err := state.Open(st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if sources, err := s.Sources(); err != nil || len(sources) != 0 {
		t.Errorf("the state holds %v (%v), want nothing", sources, err)
	}
}

// TestStateRows: with --state a database is read row by row, as --rows
// reads it: a second plain row under one request id (which push-down
// sums) is a duplicate, the figures --rows gives. --rows with two
// databases, whose calls logged in both --rows finds over every row, is
// refused, as is one database given twice by two host names.
func TestStateRows(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	db.Exec(t, `ALTER TABLE "LiteLLM_SpendLogs" DROP CONSTRAINT IF EXISTS "LiteLLM_SpendLogs_pkey"`)
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" SELECT * FROM "LiteLLM_SpendLogs"
		WHERE request_id = (SELECT min(request_id) FROM "LiteLLM_SpendLogs" WHERE status = 'success')`)
	_, pushed, _ := runCLI(t, "", "reconcile", "--db", db.URL, "--push-down", "-o", "json")
	_, want, _ := runCLI(t, "", "reconcile", "--db", db.URL, "--rows", "-o", "json")
	if pushed == want {
		t.Fatal("push-down and --rows agree: the row twice under one request id is not in the table")
	}
	for _, rows := range []bool{false, true} {
		args := []string{"reconcile", "--db", db.URL, "--state", filepath.Join(t.TempDir(), "state.db"), "-o", "json"}
		if rows {
			args = append(args, "--rows")
		}
		if code, got, stderr := runCLI(t, "", args...); code != 0 || got != want {
			t.Errorf("--state, --rows %v: exit %d\n%.1500s\n--rows:\n%.1500s\n%s", rows, code, got, want, stderr)
		}
	}
	other := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	st := filepath.Join(t.TempDir(), "state.db")
	tests := []struct {
		name, second string
		rows         bool
		want         string
	}{
		{name: "--rows and two databases", second: other.URL, rows: true, want: "--rows with --state and two or more --db"},
		{name: "one database by two host names", second: strings.Replace(db.URL, "127.0.0.1", "localhost", 1), want: "same database given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.second == db.URL {
				t.Skip("the test database is not reached at 127.0.0.1")
			}
			args := []string{"reconcile", "--db", db.URL, "--db", tt.second, "--state", st}
			if tt.rows {
				args = append(args, "--rows")
			}
			code, _, stderr := runCLI(t, "", args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d naming %q:\n%s", code, exitUsage, tt.want, stderr)
			}
			if _, err := os.Stat(st); err == nil {
				t.Errorf("%s was created", st)
			}
		})
	}
}

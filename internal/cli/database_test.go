package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const sampleDump = "../../testdata/sample/spendlogs-dump-2026-10.csv"

// TestDBEqualsCalls runs commands on LiteLLM's database and on the
// table's CSV export: the same output, summed in the database or read row
// by row; two databases holding halves of the rows give the whole answer.
func TestDBEqualsCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	export := db.Export(t)
	a, b := pgtest.NewLiteLLM(t, pgtest.SchemaV140), pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	a.LoadDump(t, export)
	b.LoadDump(t, export)
	// The older schema has no status column: the failed calls all go to
	// the newer one, so that the halves hold the same calls as the whole.
	failed := failedIDs(t, db)
	a.Exec(t, `DELETE FROM "LiteLLM_SpendLogs" WHERE hashtext(request_id) % 2 = 0 OR request_id = ANY($1)`, failed)
	b.Exec(t, `DELETE FROM "LiteLLM_SpendLogs" WHERE hashtext(request_id) % 2 <> 0 AND NOT request_id = ANY($1)`, failed)

	tests := []struct {
		name   string
		args   []string
		window bool // the database reads only the window and the calls that end in it: fewer rows outside
	}{
		{"reconcile", []string{"reconcile", "--by", "model,key,team,user,day", "--tz", "Asia/Shanghai", "-o", "json"}, false},
		{"reconcile window", []string{"reconcile", "--since", "2026-10-05", "--until", "2026-10-20T08:00:00Z", "-o", "json"}, true},
		{"blend", []string{"blend", "--as-of", "2026-11-01", "-o", "json"}, true},
		{"chargeback", []string{"chargeback", "--month", "2026-10", "--tz", "Asia/Shanghai", "--by", "key,team,user,model", "-o", "json"}, true},
		// Summed in the database by key, though not grouped by it, so that
		// the key left out is seen.
		{"chargeback without a key", []string{"chargeback", "--month", "2026-10", "--by", "team", "--exclude-key", "research-agent-runner-staging-02", "-o", "json"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, want, stderr := runCLI(t, "", append(tt.args, "--calls", export)...)
			if code != 0 {
				t.Fatalf("--calls: exit %d: %s", code, stderr)
			}
			for _, src := range [][]string{
				{"--db", db.URL},
				{"--db", db.URL, "--push-down"},
				{"--db", db.URL, "--rows"},
				{"--db", a.URL, "--db", b.URL, "--push-down"},
				{"--db", a.URL, "--db", b.URL, "--rows"},
			} {
				code, got, stderr := runCLI(t, "", append(tt.args, src...)...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", src[1:], code, stderr)
				}
				if strings.Contains(stderr, "not exact") {
					t.Errorf("%v: the sums fell back to rows: %s", src[1:], stderr)
				}
				if tt.window {
					got, want = dropRows(got), dropRows(want)
				}
				if got != want {
					t.Errorf("%s %v differs from --calls:\n%s", tt.name, src, firstLineDiff(got, want))
				}
			}
		})
	}
}

// failedIDs returns the request ids of the failed calls of db.
func failedIDs(t *testing.T, db *pgtest.DB) []string {
	t.Helper()
	rows, err := db.Connect(t).Query(context.Background(), `SELECT request_id FROM "LiteLLM_SpendLogs" WHERE status = 'failure'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		t.Fatal("the sample has no failed calls")
	}
	return ids
}

// dropRows removes the "rows" object of a JSON output.
func dropRows(s string) string {
	i := strings.Index(s, `"rows": {`)
	if i < 0 {
		return s
	}
	j := strings.Index(s[i:], "}")
	return s[:i] + s[i+j+1:]
}

// firstLineDiff shows the first line where two outputs part.
func firstLineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, g[i], w[i])
		}
	}
	return "lengths differ"
}

// TestDBFaults: a connection that dies while the command reads, and a
// wrong password, end with exit 2, a clear message without the password,
// and nothing on stdout.
func TestDBFaults(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	t.Run("wrong password", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "", "reconcile", "--db", db.WithPassword("wrong-pw-123"))
		checkFault(t, code, stdout, stderr, "authentication failed", "wrong-pw-123")
	})
	for _, mode := range [][]string{{"--push-down"}, {"--rows"}} {
		t.Run(fmt.Sprintf("connection lost %v", mode), func(t *testing.T) {
			ctx := context.Background()
			// A lock held elsewhere stops the read at the table; the
			// reading backend is then terminated.
			lock := db.Connect(t)
			tx, err := lock.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, `LOCK TABLE "LiteLLM_SpendLogs" IN ACCESS EXCLUSIVE MODE`); err != nil {
				t.Fatal(err)
			}
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result)
			go func() {
				code, stdout, stderr := runCLI(t, "", append([]string{"reconcile", "--db", db.URL, "-o", "json"}, mode...)...)
				done <- result{code, stdout, stderr}
			}()
			killer := db.Connect(t)
			deadline := time.Now().Add(30 * time.Second)
			for {
				var n int
				err := killer.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
					WHERE application_name = 'tokenfare' AND wait_event_type = 'Lock' AND datname = current_database()`).Scan(&n)
				if err != nil {
					t.Fatal(err)
				}
				if n > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the command never waited on the table")
				}
				time.Sleep(20 * time.Millisecond)
			}
			tx.Rollback(ctx)
			r := <-done
			checkFault(t, r.code, r.stdout, r.stderr, "connection failed", pgtest.Password)
		})
	}
}

func checkFault(t *testing.T, code int, stdout, stderr, want, secret string) {
	t.Helper()
	t.Logf("stderr:\n%s", stderr)
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if stdout != "" {
		t.Errorf("stdout has output after a failure:\n%s", stdout)
	}
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "Try: ") {
		t.Errorf("stderr lacks %q and a hint:\n%s", want, stderr)
	}
	if strings.Contains(stderr, secret) {
		t.Errorf("stderr shows the password:\n%s", stderr)
	}
}

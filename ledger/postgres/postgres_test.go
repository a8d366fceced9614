package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const sampleDump = "../../testdata/sample/spendlogs-dump-2026-10.csv"

// loadDump copies a LiteLLM_SpendLogs CSV dump into db's table, the
// columns the table has, keeping the first of repeated request ids as
// LiteLLM's skip_duplicates insert does.
func loadDump(t testing.TB, db *pgtest.DB, path string) {
	t.Helper()
	ctx := context.Background()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	header, err := readHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	conn := db.Connect(t)
	var have []string
	rows, err := conn.Query(ctx, `SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = '"LiteLLM_SpendLogs"'::regclass AND attnum > 0 AND NOT attisdropped`)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for rows.Next() {
		var c, typ string
		rows.Scan(&c, &typ)
		types[c] = typ
	}
	var casts []string
	for _, c := range header {
		if typ, ok := types[c]; ok {
			have = append(have, `"`+c+`"`)
			casts = append(casts, `"`+c+`"::`+typ)
		}
	}
	stage := make([]string, len(header))
	for i, c := range header {
		stage[i] = `"` + c + `" text`
	}
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE stage ("+strings.Join(stage, ", ")+", n serial)"); err != nil {
		t.Fatal(err)
	}
	quoted := make([]string, len(header))
	for i, c := range header {
		quoted[i] = `"` + c + `"`
	}
	if _, err := conn.PgConn().CopyFrom(ctx, f, "COPY stage ("+strings.Join(quoted, ",")+") FROM STDIN CSV HEADER"); err != nil {
		t.Fatalf("copy %s: %v", path, err)
	}
	insert := `INSERT INTO "LiteLLM_SpendLogs" (` + strings.Join(have, ",") + `)
		SELECT ` + strings.Join(casts, ",") + ` FROM stage ORDER BY n ON CONFLICT (request_id) DO NOTHING`
	if _, err := conn.Exec(ctx, insert); err != nil {
		t.Fatalf("insert: %v", err)
	}
}

func readHeader(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.Split(strings.TrimSpace(line), ","), nil
}

// exportTable writes db's spend logs as psql's \copy ... CSV HEADER would.
func exportTable(t testing.TB, db *pgtest.DB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spendlogs.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := db.Connect(t).PgConn().CopyTo(context.Background(), f, `COPY "LiteLLM_SpendLogs" TO STDOUT CSV HEADER`); err != nil {
		t.Fatal(err)
	}
	return path
}

// readAll returns every call and rejection of a reader, by request id.
func readAll(t testing.TB, next func(*ledger.Batch) error) ([]ledger.Call, []ledger.Rejection) {
	t.Helper()
	var calls []ledger.Call
	var rejected []ledger.Rejection
	var b ledger.Batch
	for {
		err := next(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, b.Calls...)
		rejected = append(rejected, b.Rejected...)
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].RequestID < calls[j].RequestID })
	return calls, rejected
}

func readDB(t testing.TB, url string, opts Options) ([]ledger.Call, []ledger.Rejection) {
	t.Helper()
	src, err := New(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := src.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return readAll(t, func(b *ledger.Batch) error { return r.Next(ctx, b) })
}

func readFile(t testing.TB, path string) ([]ledger.Call, []ledger.Rejection) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ledger.Open(path, f, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, r.Next)
}

// sameCall reports how two calls differ, ignoring where they were read.
func sameCall(a, b ledger.Call) string {
	if !a.Recorded.Equal(b.Recorded) {
		return "recorded " + a.Recorded.String() + " vs " + b.Recorded.String()
	}
	a.Recorded, b.Recorded = b.Recorded, b.Recorded
	a.Source, b.Source = "", ""
	if a != b {
		return strings.ReplaceAll(strings.ReplaceAll(fmtCall(a)+"\n  vs "+fmtCall(b), "{", "{\n"), ", ", ",\n")
	}
	return ""
}

func fmtCall(c ledger.Call) string { return fmt.Sprintf("%+v", c) }

// TestRowsEqualExport reads the sample month from the database and from
// the table's CSV export: the same calls, field by field.
func TestRowsEqualExport(t *testing.T) {
	for _, schema := range []string{pgtest.SchemaCurrent, pgtest.SchemaV140} {
		t.Run(schema, func(t *testing.T) {
			db := pgtest.NewLiteLLM(t, schema)
			loadDump(t, db, sampleDump)
			fromDB, rejDB := readDB(t, db.URL, Options{})
			fromFile, rejFile := readFile(t, exportTable(t, db))
			if len(fromDB) != len(fromFile) || len(rejDB) != len(rejFile) {
				t.Fatalf("database: %d calls %d rejected; export: %d calls %d rejected", len(fromDB), len(rejDB), len(fromFile), len(rejFile))
			}
			if len(fromDB) < 900 {
				t.Fatalf("only %d calls read", len(fromDB))
			}
			for i := range fromDB {
				if d := sameCall(fromDB[i], fromFile[i]); d != "" {
					t.Fatalf("call %s differs: %s", fromDB[i].RequestID, d)
				}
			}
		})
	}
}

package pgtest

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// LoadDump copies a LiteLLM_SpendLogs CSV dump (psql's \copy ... CSV
// HEADER) into db's table, the columns the table has, keeping the first of
// repeated request ids as LiteLLM's skip_duplicates insert does.
func (db *DB) LoadDump(t testing.TB, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only: closing it loses nothing
	db.LoadDumpFrom(t, f)
}

// LoadDumpFrom is LoadDump reading the dump from r.
func (db *DB) LoadDumpFrom(t testing.TB, r io.Reader) {
	t.Helper()
	ctx := context.Background()
	br := bufio.NewReaderSize(r, 1<<20)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("read the dump's header: %v", err)
	}
	header := strings.Split(strings.TrimSpace(line), ",")
	conn := db.Connect(t)
	types := map[string]string{}
	for _, c := range spendLogColumns(t, conn) {
		types[c.name] = c.typ
	}
	var have, casts, stage, quoted []string
	for _, c := range header {
		stage = append(stage, `"`+c+`" text`)
		quoted = append(quoted, `"`+c+`"`)
		if typ, ok := types[c]; ok {
			have = append(have, `"`+c+`"`)
			casts = append(casts, `"`+c+`"::`+typ)
		}
	}
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE stage ("+strings.Join(stage, ", ")+", n bigserial)"); err != nil {
		t.Fatal(err)
	}
	in := io.MultiReader(strings.NewReader(line), br)
	if _, err := conn.PgConn().CopyFrom(ctx, in, "COPY stage ("+strings.Join(quoted, ",")+") FROM STDIN CSV HEADER"); err != nil {
		t.Fatalf("copy the dump: %v", err)
	}
	insert := `INSERT INTO "LiteLLM_SpendLogs" (` + strings.Join(have, ",") + `)
		SELECT ` + strings.Join(casts, ",") + ` FROM stage ORDER BY n ON CONFLICT (request_id) DO NOTHING`
	if _, err := conn.Exec(ctx, insert); err != nil {
		t.Fatalf("insert: %v", err)
	}
	if _, err := conn.Exec(ctx, "DROP TABLE stage"); err != nil {
		t.Fatal(err)
	}
}

// Export writes db's spend logs as psql's \copy ... CSV HEADER would.
func (db *DB) Export(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spendlogs.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Connect(t).PgConn().CopyTo(context.Background(), f, `COPY "LiteLLM_SpendLogs" TO STDOUT CSV HEADER`)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Amplify adds n copies of every spend log row, each with its request id
// suffixed "-copy<i>", for tests that need a large table.
func (db *DB) Amplify(t testing.TB, n int) {
	t.Helper()
	var cols []string
	for _, c := range spendLogColumns(t, db.Connect(t)) {
		cols = append(cols, `"`+c.name+`"`)
	}
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = c
		if c == `"request_id"` {
			sel[i] = `request_id || '-copy' || g`
		}
	}
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (`+strings.Join(cols, ",")+`) SELECT `+strings.Join(sel, ",")+
		` FROM "LiteLLM_SpendLogs", generate_series(1, $1) g`, n)
}

// column is one column of a table and its SQL type.
type column struct{ name, typ string }

// spendLogColumns returns the columns of LiteLLM_SpendLogs in table order.
func spendLogColumns(t testing.TB, conn *pgx.Conn) []column {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = '"LiteLLM_SpendLogs"'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`)
	if err != nil {
		t.Fatal(err)
	}
	var cols []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.typ); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols
}

// FillDaily writes LiteLLM_DailyUserSpend from the spend logs as LiteLLM's
// spend writer does (proxy/db/db_spend_update_writer.py): one row per
// user, UTC date of "startTime", key, model and provider, with its
// requests, successful and failed ones, tokens and spend.
func (db *DB) FillDaily(t testing.TB) {
	t.Helper()
	db.Exec(t, `INSERT INTO "LiteLLM_DailyUserSpend" (id, user_id, date, api_key, model, model_group, custom_llm_provider,
			prompt_tokens, completion_tokens, spend, api_requests, successful_requests, failed_requests)
		SELECT md5(concat_ws('|', "user", day, api_key, model, custom_llm_provider)), NULLIF("user", ''), day, api_key, model,
			max(model_group), custom_llm_provider, sum(prompt_tokens), sum(completion_tokens), sum(spend), count(*),
			count(*) FILTER (WHERE status IS DISTINCT FROM 'failure'), count(*) FILTER (WHERE status = 'failure')
		FROM (SELECT *, to_char("startTime", 'YYYY-MM-DD') AS day FROM "LiteLLM_SpendLogs") sl
		GROUP BY "user", day, api_key, model, custom_llm_provider`)
}

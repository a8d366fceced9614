package state

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/postgres"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// dumpBatches cuts the sample's LiteLLM_SpendLogs dump in n parts by
// start, each as CSV text with the header.
func dumpBatches(t *testing.T, n int) []string {
	t.Helper()
	f, err := os.Open("../../testdata/sample/spendlogs-dump-2026-10.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header, rows := rows[0], rows[1:]
	start := 0
	for i, h := range header {
		if h == "startTime" {
			start = i
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][start] < rows[j][start] })
	var out []string
	size := (len(rows) + n - 1) / n
	for i := 0; i < len(rows); i += size {
		var b strings.Builder
		w := csv.NewWriter(&b)
		w.Write(header)
		w.WriteAll(rows[i:min(i+size, len(rows))])
		out = append(out, b.String())
	}
	return out
}

// dbSources is the source of a feed of the database at url.
func dbSources(url string, since time.Time, known *ledger.Known) ([]ledger.Source, error) {
	src, err := postgres.New(url, postgres.Options{Since: since, Known: known})
	if err != nil {
		return nil, err
	}
	return []ledger.Source{src}, nil
}

// TestKnownDayBefore: what the state knows of the day before a refresh's
// since is what the table holds (rows, and the longest call, or a longer
// one of an hour the day's ends cut into). A call logged after the last
// refresh that started in that day, longer than any the state read, makes
// the counts differ: the database looks for the longest call itself, and
// the call is read, as in one full read.
func TestKnownDayBefore(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	cat := embedded(t)
	statePath := filepath.Join(t.TempDir(), "state.db")
	feed := Feed{Name: "litellm", Open: func(since time.Time, known *ledger.Known) ([]ledger.Source, error) {
		return dbSources(db.URL, since, known)
	}}
	refresh := func() {
		t.Helper()
		s, err := Open(statePath)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
			t.Fatal(err)
		}
	}
	batches := dumpBatches(t, 3)
	for _, batch := range batches[:2] {
		db.LoadDumpFrom(t, strings.NewReader(batch))
		refresh()
	}
	s, err := Open(statePath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Begin("litellm")
	if err != nil {
		t.Fatal(err)
	}
	since := b.Since()
	day := since.Add(-24 * time.Hour)
	k, ok, err := b.Known(day, since)
	b.Abort()
	s.Close()
	if err != nil || !ok {
		t.Fatalf("known: %v, ok %v", err, ok)
	}
	conn := db.Connect(t)
	var rows int64
	var longest, widest float64 // seconds: the day's, and that of the whole hours it cuts into
	err = conn.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE "startTime" >= $1 AND "startTime" < $2),
		COALESCE(EXTRACT(EPOCH FROM max(GREATEST("endTime", "completionStartTime") - "startTime") FILTER (WHERE "startTime" >= $1 AND "startTime" < $2)), 0)::float8,
		COALESCE(EXTRACT(EPOCH FROM max(GREATEST("endTime", "completionStartTime") - "startTime")), 0)::float8
		FROM "LiteLLM_SpendLogs" WHERE "startTime" >= date_trunc('hour', $1::timestamp) AND "startTime" < date_trunc('hour', $2::timestamp) + interval '1 hour'`,
		day, since).Scan(&rows, &longest, &widest)
	if err != nil {
		t.Fatal(err)
	}
	if rows == 0 || k.Rows != rows {
		t.Errorf("the state knows %d rows started in [%s, %s), the table holds %d", k.Rows, day, since, rows)
	}
	if got := k.Longest.Seconds(); got < longest || got > widest {
		t.Errorf("the state's longest call %.6f s, the table's %.6f s (%.6f s over whole hours)", got, longest, widest)
	}
	// A call of 20 hours, logged after the last refresh, billed after its since.
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
	"startTime", "endTime", model, model_group, metadata) VALUES
	('late-and-long', 'acompletion', 'k1', 0.25, 100000, 10000, $1, $2, 'deepseek-flash', 'deepseek-flash', '{}')`,
		since.Add(-20*time.Hour), since.Add(5*time.Minute))
	db.LoadDumpFrom(t, strings.NewReader(batches[2]))
	refresh()
	s, err = Open(statePath)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srcs, _ := dbSources(db.URL, time.Time{}, nil)
	equalsFullRead(t, s, cat, srcs)
}

// equalsFullRead checks the state's totals against one full read of
// srcs, and returns the full read's.
func equalsFullRead(t *testing.T, s *Store, cat *tariffs.Catalog, srcs []ledger.Source) totals {
	t.Helper()
	want := newTotals()
	if _, err := runAll(cat, srcs, fullObserver(&want)); err != nil {
		t.Fatal(err)
	}
	if got := stateTotals(t, s, cat); !got.equal(want) {
		t.Errorf("state: official %s recorded %s calls %v\nfull read: official %s recorded %s calls %v",
			got.official, got.recorded, got.calls, want.official, want.recorded, want.calls)
	}
	return want
}

// TestIncrementalPostgres: LiteLLM's table filling in three batches, read
// by refreshes that query only past the watermark, with a restart between
// batches, gives exactly one full read of the table; rows LiteLLM then
// deletes (spend-log retention) stay counted.
func TestIncrementalPostgres(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	cat := embedded(t)
	statePath := filepath.Join(t.TempDir(), "state.db")
	var sinces []time.Time
	feed := Feed{Name: "litellm", Open: func(since time.Time, known *ledger.Known) ([]ledger.Source, error) {
		sinces = append(sinces, since)
		return dbSources(db.URL, since, known)
	}}
	open := func(since time.Time) ([]ledger.Source, error) { return dbSources(db.URL, since, nil) }
	for _, batch := range dumpBatches(t, 3) {
		db.LoadDumpFrom(t, strings.NewReader(batch))
		s, err := Open(statePath)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	s, err := Open(statePath)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srcs, _ := open(time.Time{})
	want := equalsFullRead(t, s, cat, srcs)
	if !sinces[0].IsZero() || sinces[1].IsZero() || !sinces[2].After(sinces[1]) {
		t.Errorf("refreshes read from %v: want everything, then past each watermark", sinces)
	}
	// The batch commands' figures from the state: one full read's.
	opts := pricing.Options{Dims: []pricing.Dim{pricing.DimModel, pricing.DimKey, pricing.DimTeam, pricing.DimDay}}
	srcs, _ = open(time.Time{})
	e, err := runEngine(RunInput{Catalog: cat, Options: opts, Sources: srcs, Rows: true})
	if err != nil {
		t.Fatal(err)
	}
	full := rendered(t, e)
	if got := rendered(t, filled(t, s, cat, opts)); got != full {
		t.Errorf("Fill gives\n%.1500s\na full read\n%.1500s", firstDiff(got, full), firstDiff(full, got))
	}
	db.Exec(t, `DELETE FROM "LiteLLM_SpendLogs" WHERE "startTime" < '2026-10-20'`)
	if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
		t.Fatal(err)
	}
	if got := stateTotals(t, s, cat); !got.equal(want) {
		t.Errorf("after LiteLLM deleted old rows: official %s, want %s", got.official, want.official)
	}
	if got := rendered(t, filled(t, s, cat, opts)); got != full {
		t.Errorf("after LiteLLM deleted old rows, Fill gives\n%.1500s\nthe full read before\n%.1500s", firstDiff(got, full), firstDiff(full, got))
	}
}

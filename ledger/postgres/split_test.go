package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
)

// copies is how many times splitDB repeats the sample's rows, each under
// a request id of its own: enough rows for some dozens of pages; under
// -short a quarter of them, still hundreds of pages, which the halves
// split the same way.
func copies() int {
	if testing.Short() {
		return 10
	}
	return 40
}

// splitDB is the sample (plain rows and odd ones) with its rows repeated
// copies times more, those of copies 7 and 33 (7 alone under -short)
// with a negative prompt count, which the mapper rejects.
func splitDB(t *testing.T) *pgtest.DB {
	t.Helper()
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	db.Exec(t, fmt.Sprintf(`INSERT INTO "LiteLLM_SpendLogs"
		SELECT r.* FROM "LiteLLM_SpendLogs" s, generate_series(1, %d) g,
			LATERAL jsonb_populate_record(NULL::"LiteLLM_SpendLogs", to_jsonb(s) || jsonb_build_object('request_id', s.request_id || '-' || g)) r;
		UPDATE "LiteLLM_SpendLogs" SET prompt_tokens = -5 WHERE request_id LIKE '%%-7' OR request_id LIKE '%%-33'`, copies()))
	db.Exec(t, `VACUUM ANALYZE "LiteLLM_SpendLogs"`)
	return db
}

// openSplit opens a reader that reads in two halves when the window spans
// at least minPages pages (0: never).
func openSplit(t *testing.T, url string, opts Options, minPages int) *Reader {
	t.Helper()
	src, err := New(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	src.splitMin = minPages
	r, err := src.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r.(*Reader)
}

func readReader(t *testing.T, r *Reader) ([]ledger.Call, []ledger.Rejection) {
	t.Helper()
	calls, rejected := readAll(t, func(b *ledger.Batch) error { return r.Next(context.Background(), b) })
	sort.Slice(rejected, func(i, j int) bool { return rejected[i].Item < rejected[j].Item })
	return calls, rejected
}

// TestRowsSplitEqualsOne: read in two halves, the calls and rejections
// are those one connection reads, each once, for the whole table and for
// a window.
func TestRowsSplitEqualsOne(t *testing.T) {
	db := splitDB(t)
	var rows int
	if err := db.Connect(t).QueryRow(context.Background(), `SELECT count(*) FROM "LiteLLM_SpendLogs"`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"all", Options{BatchSize: 7}},
		{"window", Options{BatchSize: 64, Since: time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC), Until: time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			one := openSplit(t, db.URL, c.opts, 0)
			two := openSplit(t, db.URL, c.opts, 1)
			if one.split != nil || two.split == nil {
				t.Fatalf("split: one connection %v, two %v", one.split != nil, two.split != nil)
			}
			wantCalls, wantRej := readReader(t, one)
			gotCalls, gotRej := readReader(t, two)
			if c.name == "all" && len(wantCalls)+len(wantRej) != rows {
				t.Fatalf("one connection read %d calls and %d rejections of %d rows", len(wantCalls), len(wantRej), rows)
			}
			if len(wantRej) == 0 {
				t.Fatal("the sample has no rejected row: the test checks none")
			}
			if !reflect.DeepEqual(gotCalls, wantCalls) {
				t.Errorf("two halves read %d calls, one connection %d; or they differ", len(gotCalls), len(wantCalls))
			}
			if !reflect.DeepEqual(gotRej, wantRej) {
				t.Errorf("rejections differ: %v, want %v", gotRej, wantRej)
			}
		})
	}
}

// TestRowsSplitOneSnapshot: rows written after the first connection took
// its snapshot and before the second opened (new rows, and new versions
// of every row, at the table's end, in the second half's pages) are not
// read: both halves see the snapshot of the first.
func TestRowsSplitOneSnapshot(t *testing.T) {
	db := splitDB(t)
	want, _ := readReader(t, openSplit(t, db.URL, Options{}, 0))
	src, err := New(db.URL, Options{BatchSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	src.splitMin = 1
	src.afterExport = func() { write(t, db) }
	r, err := src.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.(*Reader).split == nil {
		t.Fatal("the reader did not split")
	}
	got, _ := readReader(t, r.(*Reader))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read %d calls after the writes, want the %d before them, unchanged", len(got), len(want))
	}
}

// write adds a copy of every row and a new version of each.
func write(t *testing.T, db *pgtest.DB) {
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs"
		SELECT r.* FROM "LiteLLM_SpendLogs" s,
			LATERAL jsonb_populate_record(NULL::"LiteLLM_SpendLogs", to_jsonb(s) || jsonb_build_object('request_id', s.request_id || '-late')) r;
		UPDATE "LiteLLM_SpendLogs" SET prompt_tokens = prompt_tokens + 1`)
}

// TestRowsSplitClose: a reader closed before its rows are read, or whose
// context is cancelled, leaves no query running.
func TestRowsSplitClose(t *testing.T) {
	db := splitDB(t)
	watch := db.Connect(t)
	running := func() int {
		t.Helper()
		var n int
		err := watch.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = 'tokenfare' AND datname = current_database()`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, cancelFirst := range []bool{false, true} {
		src, err := New(db.URL, Options{BatchSize: 4})
		if err != nil {
			t.Fatal(err)
		}
		src.splitMin = 1
		ctx, cancel := context.WithCancel(context.Background())
		r, err := src.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var b ledger.Batch
		if err := r.Next(ctx, &b); err != nil || b.Rows != 4 {
			t.Fatalf("first batch: %d rows, %v", b.Rows, err)
		}
		if cancelFirst {
			cancel()
			for err == nil {
				err = r.Next(ctx, &b)
			}
			if !errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
				t.Errorf("after the cancel: %v, want the context's cancellation", err)
			}
		}
		if err := r.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		cancel()
		// A backend ends a moment after its client hung up: wait for it,
		// up to a bound a connection left open would outlast.
		n := running()
		for deadline := time.Now().Add(10 * time.Second); n != 0 && time.Now().Before(deadline); n = running() {
			time.Sleep(20 * time.Millisecond)
		}
		if n != 0 {
			t.Errorf("cancelled first %v: %d connection(s) of tokenfare left 10 s after Close", cancelFirst, n)
		}
	}
}

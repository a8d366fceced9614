package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const (
	sampleDump = "../../testdata/sample/spendlogs-dump-2026-10.csv"
	shapesDump = "../../testdata/litellm/spendlogs-shapes.csv" // every usage shape LiteLLM writes
)

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

// openDB opens a reader of the LiteLLM database at url; the caller closes it.
func openDB(t testing.TB, url string, opts Options) ledger.Reader {
	t.Helper()
	src, err := New(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := src.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readDB(t testing.TB, url string, opts Options) ([]ledger.Call, []ledger.Rejection) {
	t.Helper()
	r := openDB(t, url, opts)
	defer r.Close()
	return readAll(t, func(b *ledger.Batch) error { return r.Next(context.Background(), b) })
}

func readFile(t testing.TB, path string) ([]ledger.Call, []ledger.Rejection) {
	t.Helper()
	ctx := context.Background()
	r, err := ledger.FileSource(path, ledger.Options{}).Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return readAll(t, func(b *ledger.Batch) error { return r.Next(ctx, b) })
}

// sameCall reports how two calls differ, ignoring where they were read.
func sameCall(a, b ledger.Call) string {
	if !a.Recorded.Equal(b.Recorded) {
		return "recorded " + a.Recorded.String() + " vs " + b.Recorded.String()
	}
	a.Recorded, b.Recorded = ledger.Amount{}, ledger.Amount{}
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
			db.LoadDump(t, sampleDump)
			db.LoadDump(t, shapesDump)
			fromDB, rejDB := readDB(t, db.URL, Options{})
			fromFile, rejFile := readFile(t, db.Export(t))
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

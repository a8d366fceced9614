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
	// Rows with 1-hour writes, tool uses, service tiers and a region.
	modifiersDump = "../../testdata/litellm/spendlogs-modifiers.csv"
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
		for i := range b.Calls {
			b.Calls[i].SettleSource()
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
			db.LoadDump(t, modifiersDump)
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

// TestModifiersFromDB reads the rows with billing modifiers from the
// database and from their dump: the same 1-hour writes, tool uses, service
// tiers and regions, call by call.
func TestModifiersFromDB(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, modifiersDump)
	fromDB, rejDB := readDB(t, db.URL, Options{})
	fromFile, rejFile := readFile(t, modifiersDump)
	if len(rejDB)+len(rejFile) > 0 || len(fromDB) != len(fromFile) || len(fromDB) == 0 {
		t.Fatalf("database: %d calls, rejected %v; file: %d calls, rejected %v", len(fromDB), rejDB, len(fromFile), rejFile)
	}
	var batch, oneHour, searches int64
	for i := range fromDB {
		a, b := fromDB[i], fromFile[i]
		if a.Tokens != b.Tokens || a.Tools != b.Tools || a.ServiceTier != b.ServiceTier || a.Region != b.Region {
			t.Errorf("%s: database %+v %v %v %q, file %+v %v %v %q", a.RequestID, a.Tokens, a.Tools, a.ServiceTier, a.Region,
				b.Tokens, b.Tools, b.ServiceTier, b.Region)
		}
		if a.ServiceTier == ledger.TierBatch {
			batch++
		}
		oneHour += a.Tokens.CacheWrite1h
		searches += a.Tools[ledger.WebSearch]
	}
	// The fixture's figures: two batch rows, 10000 + 3000 1-hour writes,
	// 3 + 1 + 2 web searches.
	if batch != 2 || oneHour != 13000 || searches != 6 {
		t.Errorf("batch calls %d, 1-hour writes %d, web searches %d; want 2, 13000, 6", batch, oneHour, searches)
	}
}

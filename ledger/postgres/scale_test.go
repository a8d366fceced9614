package postgres

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/dedup"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// EnvBenchRows sets the number of generated rows BenchmarkScale loads; the
// default keeps `make bench-smoke` quick, `make bench-postgres` asks for
// 5,000,000.
const EnvBenchRows = "TOKENFARE_BENCH_ROWS"

// BenchmarkScale loads generated LiteLLM spend logs (a month, the
// generator's realistic mix) into the real server and times, over the same
// rows: a bare SELECT count(*), sum(prompt_tokens), sum(completion_tokens)
// (the floor any reader pays), a COPY of the row query to nowhere (the
// most the server sends row mode's rows at) and one of the row's plain
// columns alone, push-down grouped by key as chargeback asks, and row
// mode (every row to the engine). Each reports rows/s.
func BenchmarkScale(b *testing.B) {
	n := 20_000
	if s := os.Getenv(EnvBenchRows); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n <= 0 {
			b.Fatalf("%s=%q is not a row count", EnvBenchRows, s)
		}
	}
	db := pgtest.NewLiteLLM(b, pgtest.SchemaCurrent)
	loadGenerated(b, db, n)
	ctx := context.Background()
	conn := db.Connect(b)
	var rows int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM "LiteLLM_SpendLogs"`).Scan(&rows); err != nil {
		b.Fatal(err)
	}
	cat, _ := tariffs.Load("")
	// The boundaries the command line chooses: from the rows' range.
	po := pricing.Options{Dims: []pricing.Dim{pricing.DimKey}}
	bounds := func(first, last time.Time) []time.Time {
		out := pricing.AggregateBoundaries(cat, po, first.Add(-time.Nanosecond), last.Add(24*time.Hour))
		b.Logf("%d rows from %s to %s; push-down sums between %d boundaries", rows, first.Format(time.RFC3339), last.Format(time.RFC3339), len(out))
		return out
	}
	report := func(b *testing.B, start time.Time) {
		b.ReportMetric(float64(rows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
	}
	b.Run("bare-scan", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			var c, p, o int64
			err := conn.QueryRow(ctx, `SELECT count(*), sum(prompt_tokens), sum(completion_tokens) FROM "LiteLLM_SpendLogs"`).Scan(&c, &p, &o)
			if err != nil || c != rows {
				b.Fatalf("bare scan: %d rows, %v", c, err)
			}
		}
		report(b, start)
	})
	// The server's own ceiling for row mode: a COPY of the row query
	// (the same columns, joins and planner settings) as text, to nowhere.
	ss := testSession(b, db.URL, Options{})
	if _, err := ss.tx.Exec(ctx, `SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0`); err != nil {
		b.Fatal(err)
	}
	rowCopy := strings.NewReplacer("$1::", "'-infinity'::", "$2::", "'infinity'::").Replace(fragments{ss.schema}.rowQuery())
	copyOut := func(conn *pgconn.PgConn, sql string) func(b *testing.B) {
		return func(b *testing.B) {
			start := time.Now()
			for range b.N {
				tag, err := conn.CopyTo(ctx, io.Discard, "COPY ("+sql+") TO STDOUT")
				if err != nil || tag.RowsAffected() != rows {
					b.Fatalf("copy: %d rows, %v", tag.RowsAffected(), err)
				}
			}
			report(b, start)
		}
	}
	b.Run("copy-out", copyOut(ss.conn.PgConn(), rowCopy))
	// The row's plain columns alone, without the metadata (copy-out
	// before row mode read the metadata itself).
	b.Run("copy-plain", copyOut(conn.PgConn(), `SELECT request_id, "startTime", "endTime", "completionStartTime",
		api_key, spend, prompt_tokens, completion_tokens, total_tokens, cache_hit, model, model_group, model_id,
		custom_llm_provider, "user", status FROM "LiteLLM_SpendLogs"`))
	// Push-down as the command line runs it (internal/run): the odd rows'
	// repeats in ledger/dedup's table, added a batch at a time.
	b.Run("push-down", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			seen := dedup.New(dedup.Options{})
			o := po
			o.Seen = seen
			e := pricing.New(cat, o)
			src, err := New(db.URL, Options{})
			if err != nil {
				b.Fatal(err)
			}
			ao := AggregateOptions{Boundaries: bounds, Billing: tariffs.BillEnd, TierBounds: pricing.TierBounds(cat), ByKey: true}
			odd, err := src.Aggregate(ctx, ao, func(a *ledger.Aggregate) error { return e.AddAggregate(a, tariffs.BillEnd) })
			if err != nil {
				b.Fatal(err)
			}
			// Rows the database cannot sum (billing modifiers in the
			// metadata, odd counts) come back one by one, as the command
			// line reads them.
			if odd != nil {
				var batch ledger.Batch
				for {
					if err := odd.Next(ctx, &batch); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
					if err := e.AddBatch(batch.Calls, noteNothing); err != nil {
						b.Fatal(err)
					}
					for range batch.Rejected {
						e.Reject()
					}
				}
				odd.Close()
			}
			if err := seen.Close(); err != nil {
				b.Fatal(err)
			}
			if got := e.Rows().Read; got != rows {
				b.Fatalf("push-down read %d rows, want %d", got, rows)
			}
		}
		report(b, start)
	})
	// Row mode as the command line runs it (internal/run): its repeats
	// kept in ledger/dedup's table, its calls added a batch at a time.
	b.Run("rows", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			seen := dedup.New(dedup.Options{})
			e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimKey}, Seen: seen})
			r := openDB(b, db.URL, Options{BatchSize: 8192})
			var batch ledger.Batch
			for {
				err := r.Next(ctx, &batch)
				if err != nil {
					break
				}
				if err := e.AddBatch(batch.Calls, noteNothing); err != nil {
					b.Fatal(err)
				}
				for range batch.Rejected {
					e.Reject()
				}
			}
			r.Close()
			if err := seen.Close(); err != nil {
				b.Fatal(err)
			}
			if got := e.Rows().Read; got != rows {
				b.Fatalf("rows read %d, want %d", got, rows)
			}
		}
		report(b, start)
	})
}

// noteNothing is AddBatch's each for a benchmark, which looks at no call.
func noteNothing(*ledger.Call, *pricing.PricedCall) error { return nil }

// loadGenerated loads n rows of the generator's table dump, then vacuums
// so that no mode pays for setting hint bits.
func loadGenerated(b *testing.B, db *pgtest.DB, n int) {
	b.Helper()
	gen := filepath.Join(b.TempDir(), "gen")
	if out, err := exec.Command("go", "build", "-o", gen, "../../cmd/tokenfare-gen").CombinedOutput(); err != nil {
		b.Fatalf("build the generator: %v: %s", err, out)
	}
	cmd := exec.Command(gen, "-rows", strconv.Itoa(n), "-seed", "1", "-start", "2026-09-01T00:00:00Z", "-days", "30", "-format", "dump")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	db.LoadDumpFrom(b, out)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("generator: %v", err)
	}
	db.Exec(b, `VACUUM (FREEZE, ANALYZE) "LiteLLM_SpendLogs"`)
}

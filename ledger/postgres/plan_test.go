package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestQueriesRunInWorkers: the summing and row queries are parallel-safe
// end to end, so PostgreSQL computes each row's columns and plain-row test
// in its workers and, for the sums, groups there too (a partial
// aggregate): the leader only merges. A single parallel-restricted
// expression, such as a subquery that refers to the row, pulls every
// expression above the Gather into one process, evaluated again for each
// aggregate that filters on it.
func TestQueriesRunInWorkers(t *testing.T) {
	cat, _ := tariffs.Load("")
	bounds := sqlTimes([]time.Time{time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 15, 0, 0, 0, 0, time.UTC)})
	window := []any{"-infinity", "infinity"}
	sums := append(window[:2:2], pricing.TierBounds(cat), bounds)
	for _, schema := range []string{pgtest.SchemaCurrent, pgtest.SchemaV140} {
		db := pgtest.NewLiteLLM(t, schema)
		db.LoadDump(t, sampleDump)
		ctx := context.Background()
		src, err := New(db.URL, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ss, err := src.begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Parallel plans, however small the table.
		if _, err := ss.tx.Exec(ctx, aggregateSettings+"; SET LOCAL min_parallel_table_scan_size = 0; SET LOCAL max_parallel_workers_per_gather = 2"); err != nil {
			t.Fatal(err)
		}
		f := fragments{ss.schema}
		tests := []struct {
			name string
			sql  string
			args []any
			want string
		}{
			{"sums by model", f.aggregateQuery(AggregateOptions{Billing: tariffs.BillEnd}, true), sums, "Partial HashAggregate"},
			{"sums by key, team, user, tags and key metadata", f.aggregateQuery(AggregateOptions{Billing: tariffs.BillFirstToken,
				ByKey: true, ByTeam: true, ByUser: true, ByTags: true, ByKeyMeta: true}, true), sums, "Partial HashAggregate"},
			{"sums by model, odd rows flagged", f.aggregateQuery(AggregateOptions{Billing: tariffs.BillEnd}, false), sums, "Partial HashAggregate"},
			{"rows", f.rowQuery(), window, "Gather"},
			{"odd rows of the window", f.oddWindowQuery(), window, "Gather"},
		}
		for _, tt := range tests {
			t.Run(schema+"/"+tt.name, func(t *testing.T) {
				plan := explain(t, ss, tt.sql, tt.args)
				if !strings.Contains(plan, tt.want) {
					t.Errorf("no %s in the plan:\n%s", tt.want, plan)
				}
				if strings.Contains(plan, "SubPlan") {
					t.Errorf("a subplan in the plan: parallel-restricted, it runs above the Gather:\n%s", plan)
				}
			})
		}
		ss.close()
	}
}

// explain returns the plan of sql, one node a line.
func explain(t *testing.T, ss *session, sql string, args []any) string {
	t.Helper()
	rows, err := ss.tx.Query(context.Background(), "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		b.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/pricing"
)

// partitioned makes db's spend logs a table partitioned by a hash of the
// request id, in four partitions, as Citus keeps a shard per hash of the
// key: each partition has its own ctids, so that one ctid names a row in
// several of them.
const partitioned = `ALTER TABLE "LiteLLM_SpendLogs" RENAME TO spendlogs_plain;
CREATE TABLE "LiteLLM_SpendLogs" (LIKE spendlogs_plain INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)
	PARTITION BY HASH (request_id);
CREATE TABLE spendlogs_p0 PARTITION OF "LiteLLM_SpendLogs" FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE spendlogs_p1 PARTITION OF "LiteLLM_SpendLogs" FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE spendlogs_p2 PARTITION OF "LiteLLM_SpendLogs" FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE spendlogs_p3 PARTITION OF "LiteLLM_SpendLogs" FOR VALUES WITH (MODULUS 4, REMAINDER 3);
DROP TABLE spendlogs_plain`

// TestRowsOfPartitions reads the sample month with its odd rows from a
// plain table and from a partitioned one: row mode fetches the odd rows
// again after the plain ones, and must fetch each once, not every row of
// every partition at the same ctid. Row mode and push-down on the
// partitioned table give the plain table's reconciliation to the last
// digit.
func TestRowsOfPartitions(t *testing.T) {
	plain, parts := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent), pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	parts.Exec(t, partitioned)
	for _, db := range []*pgtest.DB{plain, parts} {
		db.LoadDump(t, sampleDump)
		db.LoadDump(t, shapesDump)
		db.LoadDump(t, modifiersDump)
	}
	var shared int
	err := parts.Connect(t).QueryRow(context.Background(),
		`SELECT count(*) - count(DISTINCT ctid) FROM "LiteLLM_SpendLogs"`).Scan(&shared)
	if err != nil {
		t.Fatal(err)
	}
	if shared == 0 {
		t.Fatal("no ctid is in two partitions: the test shows nothing")
	}
	e, po := engineOf(t, time.Time{}, time.Time{})
	priceRows(t, e, Options{}, plain.URL)
	want := reconciled(t, e)
	tests := []struct {
		name  string
		price func(e *pricing.Engine)
	}{
		{"rows", func(e *pricing.Engine) { priceRows(t, e, Options{}, parts.URL) }},
		{"push-down", func(e *pricing.Engine) { pricePushDown(t, e, Options{}, po, parts.URL) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := engineOf(t, time.Time{}, time.Time{})
			tt.price(e)
			if got := reconciled(t, e); got != want {
				t.Errorf("partitioned table differs from the plain one:\n%s", firstDiff(got, want))
			}
		})
	}
}

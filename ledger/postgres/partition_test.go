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
// plain table, from a partitioned one and from one half of whose rows
// are in a table inheriting from it: row mode fetches the odd rows
// again after the plain ones, and must fetch each once, not every row of
// every partition at the same ctid. Row mode and push-down on the
// partitioned table give the plain table's reconciliation to the last
// digit.
func TestRowsOfPartitions(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	plain, parts, inherited := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent), pgtest.NewLiteLLM(t, pgtest.SchemaCurrent), pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	parts.Exec(t, partitioned)
	for _, db := range []*pgtest.DB{plain, parts, inherited} {
		db.LoadDump(t, sampleDump)
		db.LoadDump(t, shapesDump)
		db.LoadDump(t, modifiersDump)
	}
	// Half the rows in a table that inherits from the spend logs: a query
	// of the spend logs reads both, and their ctids meet.
	inherited.Exec(t, `CREATE TABLE spendlogs_child () INHERITS ("LiteLLM_SpendLogs");
WITH moved AS (DELETE FROM ONLY "LiteLLM_SpendLogs" WHERE hashtext(request_id) % 2 = 0 RETURNING *)
INSERT INTO spendlogs_child SELECT * FROM moved`)
	// Only a plain table's odd rows are fetched by ctid alone.
	for _, c := range []struct {
		name string
		db   *pgtest.DB
		one  bool
	}{{"plain", plain, true}, {"partitioned", parts, false}, {"inherited", inherited, false}} {
		if got := testSession(t, c.db.URL, Options{}).schema.oneCtid; got != c.one {
			t.Errorf("%s table: a ctid names one row %v, want %v", c.name, got, c.one)
		}
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
		{"rows of a table inherited from", func(e *pricing.Engine) { priceRows(t, e, Options{}, inherited.URL) }},
		// Odd rows named by request id in the sums, then fetched by id;
		// or one group per stretch, then read by a second scan.
		{"push-down, odd rows by request id", func(e *pricing.Engine) { oddShareByID = 0; pricePushDown(t, e, Options{}, po, parts.URL) }},
		{"push-down, odd rows flagged", func(e *pricing.Engine) { oddShareByID = 1 << 20; pricePushDown(t, e, Options{}, po, parts.URL) }},
	}
	defer func(share int) { oddShareByID = share }(oddShareByID)
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

// TestSharedRequestIDs: on a table without a primary key every odd row is
// there twice, under the same request id. Each is still fetched once (the
// engine finds the second a duplicate, as in row mode), whether the sums
// name odd rows by request id or flag them, and push-down equals row mode.
func TestSharedRequestIDs(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	db.LoadDump(t, shapesDump)
	db.LoadDump(t, modifiersDump)
	db.Exec(t, oddRows)
	base, _ := engineOf(t, time.Time{}, time.Time{})
	priceRows(t, base, Options{}, db.URL)
	before := base.Rows()
	db.Exec(t, `ALTER TABLE "LiteLLM_SpendLogs" DROP CONSTRAINT "LiteLLM_SpendLogs_pkey"`)
	// Only the odd rows: two plain rows of one id are summed apart, where
	// row mode finds the second a duplicate.
	src, err := New(db.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := src.begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := fragments{ss.schema}
	ss.close()
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" SELECT sl.* `+f.rowsFrom()+` WHERE NOT (`+f.ok()+`)`)
	e, po := engineOf(t, time.Time{}, time.Time{})
	priceRows(t, e, Options{}, db.URL)
	// Each second copy is a duplicate, or rejected again.
	r := e.Rows()
	if extra := r.Read - before.Read; extra == 0 || r.Duplicate-before.Duplicate+r.Rejected-before.Rejected != extra || r.Priced != before.Priced {
		t.Fatalf("row mode: %+v, want %+v and the second copies duplicates or rejected", r, before)
	}
	want := reconciled(t, e)
	defer func(share int) { oddShareByID = share }(oddShareByID)
	for _, tt := range []struct {
		name  string
		share int
	}{
		{"odd rows by request id", 0},
		{"odd rows flagged", 1 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			oddShareByID = tt.share
			got, _ := engineOf(t, time.Time{}, time.Time{})
			pricePushDown(t, got, Options{}, po, db.URL)
			if r, w := got.Rows(), e.Rows(); r != w {
				t.Errorf("rows %+v, want %+v", r, w)
			}
			if g := reconciled(t, got); g != want {
				t.Errorf("push-down differs from rows:\n%s", firstDiff(g, want))
			}
		})
	}
}

// TestDistributed checks that neither a plain nor a partitioned table on
// one server is taken as distributed: their rows come faster than their
// sums. (A Citus cluster's distributed table is, bench/citus.)
func TestDistributed(t *testing.T) {
	plain, parts := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent), pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	parts.Exec(t, partitioned)
	for _, db := range []*pgtest.DB{plain, parts} {
		src, err := New(db.URL, Options{})
		if err != nil {
			t.Fatal(err)
		}
		spread, err := src.Distributed(context.Background())
		if err != nil || spread {
			t.Errorf("%s: distributed %v, %v; want false", db.Name, spread, err)
		}
	}
	src, err := New("postgres://nobody:secret-pw-9@127.0.0.1:1/none?connect_timeout=2", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Distributed(context.Background()); err == nil {
		t.Error("Distributed of a server that is not there: no error")
	}
}

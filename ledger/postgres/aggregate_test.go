package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// oddRows are rows the database cannot split plainly: the mapper reads
// or rejects them one by one, in both modes.
const oddRows = `
INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
	"startTime", "endTime", model, model_group, metadata) VALUES
 ('odd-negative-cached', 'acompletion', 'k1', 0.001, 100, 10, '2026-10-05 03:00:00', '2026-10-05 03:00:02',
	'deepseek-flash', 'deepseek-flash', '{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": -5}}}'),
 ('odd-string-count', 'acompletion', 'k1', 0.002, 100, 10, '2026-10-05 03:01:00', '2026-10-05 03:01:02',
	'deepseek-flash', 'deepseek-flash', '{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": "40"}}}'),
 ('odd-cached-exceeds', 'acompletion', 'k1', 0.003, 100, 10, '2026-10-05 03:02:00', '2026-10-05 03:02:02',
	'deepseek-flash', 'deepseek-flash', '{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 400}}}'),
 ('odd-nan-spend', 'acompletion', 'k1', 'NaN', 100, 10, '2026-10-05 03:03:00', '2026-10-05 03:03:02',
	'deepseek-flash', 'deepseek-flash', '{}')`

var allDims = []pricing.Dim{pricing.DimModel, pricing.DimKey, pricing.DimTeam, pricing.DimUser, pricing.DimDay, pricing.DimPeriod, pricing.DimVersion}

func engineOf(t testing.TB, since, until time.Time) *pricing.Engine {
	t.Helper()
	cat, probs := tariffs.Load("")
	if len(probs.Errors()) > 0 {
		t.Fatal(probs)
	}
	zone, _ := time.LoadLocation("Asia/Shanghai")
	return pricing.New(cat, pricing.Options{Dims: allDims, Zone: zone, Since: since, Until: until})
}

// priceRows prices the rows of every database, one call at a time.
func priceRows(t testing.TB, e *pricing.Engine, opts Options, urls ...string) {
	t.Helper()
	for _, u := range urls {
		calls, rejected := readDB(t, u, opts)
		for i := range calls {
			e.AddPriced(&calls[i])
		}
		for range rejected {
			e.Reject()
		}
	}
}

// pricePushDown prices what every database summed, and its odd rows.
func pricePushDown(t testing.TB, e *pricing.Engine, opts Options, span time.Duration, urls ...string) {
	t.Helper()
	cat, _ := tariffs.Load("")
	ctx := context.Background()
	for _, u := range urls {
		src, err := New(u, opts)
		if err != nil {
			t.Fatal(err)
		}
		ao := AggregateOptions{Span: span, Billing: tariffs.BillEnd, TierBounds: pricing.TierBounds(cat), ByKey: true, ByTeam: true, ByUser: true}
		odd, err := src.Aggregate(ctx, ao, func(a *ledger.Aggregate) error { return e.AddAggregate(a, tariffs.BillEnd) })
		if err != nil {
			t.Fatal(err)
		}
		if odd == nil {
			continue
		}
		calls, rejected := readAll(t, func(b *ledger.Batch) error { return odd.Next(ctx, b) })
		odd.Close()
		for i := range calls {
			e.AddPriced(&calls[i])
		}
		for range rejected {
			e.Reject()
		}
	}
}

func reconciled(t testing.TB, e *pricing.Engine) string {
	t.Helper()
	b, err := json.MarshalIndent(e.Reconcile(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPushDownEqualsRows prices the sample month with its odd rows by
// rows and by push-down, on one database and split across two: the same
// reconciliation to the last digit, every row accounted for.
func TestPushDownEqualsRows(t *testing.T) {
	one := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	one.LoadDump(t, sampleDump)
	one.LoadDump(t, shapesDump)
	one.Exec(t, oddRows)
	a, b := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent), pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	for _, db := range []*pgtest.DB{a, b} {
		db.LoadDump(t, sampleDump)
		db.LoadDump(t, shapesDump)
		db.Exec(t, oddRows)
	}
	a.Exec(t, `DELETE FROM "LiteLLM_SpendLogs" WHERE hashtext(request_id) % 2 = 0`)
	b.Exec(t, `DELETE FROM "LiteLLM_SpendLogs" WHERE hashtext(request_id) % 2 <> 0`)

	since := time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC)
	until := time.Date(2026, 10, 20, 16, 0, 0, 0, time.UTC)
	tests := []struct {
		name         string
		since, until time.Time
	}{
		{"whole table", time.Time{}, time.Time{}},
		{"window", since, until},
	}
	var wholeRead int64
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Since: tt.since, Until: tt.until}
			rows := engineOf(t, tt.since, tt.until)
			priceRows(t, rows, opts, one.URL)
			want := reconciled(t, rows)
			r := rows.Rows()
			if r.Priced < 500 || r.Rejected != 3 {
				t.Fatalf("rows: %+v, want hundreds priced and 3 rejected", r)
			}
			if !tt.since.IsZero() && r.Read >= wholeRead {
				t.Errorf("the window read %d rows, the whole table %d", r.Read, wholeRead)
			}
			wholeRead = r.Read
			for _, c := range []struct {
				name string
				span time.Duration
				urls []string
			}{
				{"one database by minute", time.Minute, []string{one.URL}},
				{"one database by hour", time.Hour, []string{one.URL}},
				{"two databases by minute", time.Minute, []string{a.URL, b.URL}},
				{"two databases by hour", time.Hour, []string{a.URL, b.URL}},
			} {
				e := engineOf(t, tt.since, tt.until)
				pricePushDown(t, e, opts, c.span, c.urls...)
				if got := reconciled(t, e); got != want {
					t.Errorf("%s: push-down differs from rows:\n%s", c.name, firstDiff(got, want))
				}
			}
		})
	}
}

// firstDiff shows where two texts part.
func firstDiff(a, b string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			lo := max(0, i-400)
			return a[lo:min(len(a), i+200)] + "\n--- want ---\n" + b[lo:min(len(b), i+200)]
		}
	}
	return "one is a prefix of the other"
}

// TestPushDownRefusesPartMinute: a window edge inside a minute cannot be
// decided from minute sums.
func TestPushDownRefusesPartMinute(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	since := time.Date(2026, 10, 3, 0, 0, 30, 0, time.UTC)
	e := engineOf(t, since, time.Time{})
	src, err := New(db.URL, Options{Since: since})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Aggregate(context.Background(), AggregateOptions{Billing: tariffs.BillEnd},
		func(a *ledger.Aggregate) error { return e.AddAggregate(a, tariffs.BillEnd) })
	if !errors.Is(err, pricing.ErrNotExact) {
		t.Errorf("err = %v, want ErrNotExact", err)
	}
}

package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
)

// dailyFixture is a database whose daily table and spend logs disagree in
// every way, figures worked by hand:
//
//	2026-10-01 k1 m: 4 requests 0.4 counted; the logs hold none (retention)
//	2026-10-02 k1 m: 2 requests 0.003 counted; logged r1 0.001 + r2 0.002
//	2026-10-03 k1 m: 3 requests 0.006 counted; logged r3 0.0015, r4 0.0025
//	2026-10-03 k2 m: nothing counted; logged r5 0.007 (failed)
//
// The oldest spend-log row starts 2026-10-02 08:00, so 2026-10-01 is older
// than the logs' retention. 2026-10-02 agrees; on 2026-10-03 k1 misses one
// request, 10 prompt and 5 completion tokens and 0.002 from the logs, and
// k2's row is missing from the daily table.
func dailyFixture(t *testing.T) *pgtest.DB {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
			"startTime", "endTime", model, status) VALUES
		('r1', 'acompletion', 'k1', 0.001, 10, 5, '2026-10-02 08:00:00', '2026-10-02 08:00:01', 'm', 'success'),
		('r2', 'acompletion', 'k1', 0.002, 10, 5, '2026-10-02 23:59:59', '2026-10-03 00:00:01', 'm', 'success'),
		('r3', 'acompletion', 'k1', 0.0015, 10, 5, '2026-10-03 00:00:00', '2026-10-03 00:00:01', 'm', 'success'),
		('r4', 'acompletion', 'k1', 0.0025, 10, 5, '2026-10-03 12:00:00', '2026-10-03 12:00:01', 'm', 'success'),
		('r5', 'acompletion', 'k2', 0.007, 10, 5, '2026-10-03 13:00:00', '2026-10-03 13:00:01', 'm', 'failure')`)
	db.Exec(t, `INSERT INTO "LiteLLM_DailyUserSpend" (id, user_id, date, api_key, model, custom_llm_provider, prompt_tokens,
			completion_tokens, spend, api_requests, successful_requests, failed_requests) VALUES
		('a', 'u1', '2026-10-01', 'k1', 'm', 'openai', 40, 20, 0.4, 4, 4, 0),
		('b', 'u1', '2026-10-02', 'k1', 'm', 'openai', 10, 5, 0.001, 1, 1, 0),
		('c', NULL, '2026-10-02', 'k1', 'm', 'openai', 10, 5, 0.002, 1, 1, 0),
		('d', 'u1', '2026-10-03', 'k1', 'm', 'openai', 30, 15, 0.006, 3, 3, 0)`)
	return db
}

func TestCompareDaily(t *testing.T) {
	db := dailyFixture(t)
	counts := func(req, ok, failed, pt, ct int64, spend string) ledger.DailyCounts {
		return ledger.DailyCounts{Requests: req, Successful: ok, Failed: failed, Prompt: pt, Completion: ct, Spend: decimal.RequireFromString(spend)}
	}
	tests := []struct {
		name         string
		from, until  time.Time
		groups       int64
		listed       []ledger.DailyDifference
		missingSpend string // of missing_from_spend_logs
	}{
		{name: "every day", groups: 4, missingSpend: "0.002", listed: []ledger.DailyDifference{
			{Day: "2026-10-01", Key: "k1", Model: "m", Kind: ledger.BeyondRetention, Daily: counts(4, 4, 0, 40, 20, "0.4"), Logged: counts(0, 0, 0, 0, 0, "0")},
			{Day: "2026-10-03", Key: "k1", Model: "m", Kind: ledger.MissingFromSpendLogs, Daily: counts(3, 3, 0, 30, 15, "0.006"), Logged: counts(2, 2, 0, 20, 10, "0.004")},
			{Day: "2026-10-03", Key: "k2", Model: "m", Kind: ledger.MissingFromDailyTable, Daily: counts(0, 0, 0, 0, 0, "0"), Logged: counts(1, 0, 1, 10, 5, "0.007")},
		}},
		{name: "the second day, from its middle: the whole UTC day", from: time.Date(2026, 10, 2, 12, 0, 0, 0, time.UTC),
			until: time.Date(2026, 10, 2, 13, 0, 0, 0, time.UTC), groups: 1, missingSpend: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := New(db.URL, Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, err := src.CompareDaily(context.Background(), tt.from, tt.until)
			if err != nil || c == nil {
				t.Fatalf("comparison %v, error %v", c, err)
			}
			if c.Groups != tt.groups || c.Matched != tt.groups-int64(len(tt.listed)) || len(c.Listed) != len(tt.listed) {
				t.Fatalf("%d groups, %d matched, listed %+v; want %d groups, %d listed", c.Groups, c.Matched, c.Listed, tt.groups, len(tt.listed))
			}
			for i, w := range tt.listed {
				if g := c.Listed[i]; !sameDifference(g, w) {
					t.Errorf("difference %d: %+v, want %+v", i, g, w)
				}
			}
			if got := c.ByKind[ledger.MissingFromSpendLogs].Spend; !got.Equal(decimal.RequireFromString(tt.missingSpend)) {
				t.Errorf("missing from the spend logs: %s, want %s", got, tt.missingSpend)
			}
			if !c.OldestLog.Equal(time.Date(2026, 10, 2, 8, 0, 0, 0, time.UTC)) {
				t.Errorf("oldest log %s, want 2026-10-02T08:00:00Z", c.OldestLog)
			}
		})
	}
}

// TestCompareDailyWithoutTable: a database without the daily table, or
// with an empty one (a LiteLLM that keeps none), compares nothing, and
// says no error.
func TestCompareDailyWithoutTable(t *testing.T) {
	for _, schema := range []string{pgtest.SchemaV140, pgtest.SchemaCurrent} {
		t.Run(schema, func(t *testing.T) {
			db := pgtest.NewLiteLLM(t, schema)
			db.LoadDump(t, sampleDump)
			src, err := New(db.URL, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c, err := src.CompareDaily(context.Background(), time.Time{}, time.Time{}); c != nil || err != nil {
				t.Errorf("comparison %+v, error %v; want none", c, err)
			}
		})
	}
}

func sameDifference(a, b ledger.DailyDifference) bool {
	same := func(x, y ledger.DailyCounts) bool {
		return x.Requests == y.Requests && x.Successful == y.Successful && x.Failed == y.Failed && x.Prompt == y.Prompt &&
			x.Completion == y.Completion && x.Spend.Equal(y.Spend)
	}
	return a.Day == b.Day && a.Key == b.Key && a.Model == b.Model && a.Kind == b.Kind && same(a.Daily, b.Daily) && same(a.Logged, b.Logged)
}

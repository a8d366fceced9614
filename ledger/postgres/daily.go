package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// tableDailyUser is the daily table compared with the spend logs.
// LiteLLM keeps three (proxy/db/db_spend_update_writer.py): by user, by
// team and by tag. Only the user table counts every request: its user_id
// may be NULL (migration 20250526154401_allow_null_entity_id), while a
// request without a team adds no team row and a request adds one tag row
// per tag (none without tags).
const tableDailyUser = "LiteLLM_DailyUserSpend"

// dailyRequired are the columns of the daily table the comparison needs;
// successful_requests and failed_requests came later
// (20250331215456_track_success_and_failed_requests_daily_agg_table) and
// count as zero without them.
var dailyRequired = []string{"date", "api_key", "model", "api_requests", "prompt_tokens", "completion_tokens", "spend"}

// CompareDaily compares LiteLLM's daily user table with the spend logs per
// UTC day, key and model, over the whole UTC days [from, until) touches
// (every day when both are zero) from the daily table's first day on
// (before it LiteLLM kept none), in one read-only transaction. It returns
// nil and no error when the database has no daily table, or an empty one.
func (s *Source) CompareDaily(ctx context.Context, from, until time.Time) (*ledger.DailyComparison, error) {
	ss, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer ss.close()
	cols, err := ss.dailyColumns(ctx)
	if err != nil || cols == nil {
		return nil, err
	}
	first, err := ss.firstDaily(ctx)
	if err != nil || first == "" {
		return nil, err
	}
	c := &ledger.DailyComparison{Source: s.name, Table: tableDailyUser}
	c.From, c.Until = dayBounds(from, until)
	c.From = max(c.From, first)
	if c.OldestLog, err = ss.oldestLog(ctx); err != nil {
		return nil, err
	}
	rows, err := ss.tx.Query(ctx, ss.dailyQuery(cols), dailyArgs(c.From, c.Until)...)
	if err != nil {
		return nil, s.wrap(ctx, "compare the daily table", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := noteDaily(rows, c); err != nil {
			return nil, s.wrap(ctx, "read the daily table", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(ctx, "compare the daily table", err)
	}
	return c, nil
}

// dayBounds returns the UTC days [from, until) touches, "" where open.
func dayBounds(from, until time.Time) (string, string) {
	var a, b string
	if !from.IsZero() {
		a = from.UTC().Format(time.DateOnly)
	}
	if !until.IsZero() {
		u := until.UTC()
		day := time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
		if day.Before(u) {
			day = day.AddDate(0, 0, 1)
		}
		b = day.Format(time.DateOnly)
	}
	return a, b
}

// dailyArgs are the query's bounds: days as the daily table writes them,
// and the instants that start and end them for the spend logs.
func dailyArgs(from, until string) []any {
	lo, hi, tlo, thi := "0000-00-00", "9999-99-99", "-infinity", "infinity"
	if from != "" {
		lo, tlo = from, from
	}
	if until != "" {
		hi, thi = until, until
	}
	return []any{lo, hi, tlo, thi}
}

// dailyColumns returns the daily table's columns, nil when the table is
// absent or lacks one the comparison needs.
func (ss *session) dailyColumns(ctx context.Context) (map[string]bool, error) {
	rows, err := ss.tx.Query(ctx, `SELECT c.column_name::text FROM information_schema.columns c
		WHERE c.table_name = $1 AND c.table_schema = ANY(current_schemas(false))`, tableDailyUser)
	if err != nil {
		return nil, ss.src.wrap(ctx, "read the daily table's columns", err)
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, ss.src.wrap(ctx, "read the daily table's columns", err)
		}
		cols[c] = true
	}
	if err := rows.Err(); err != nil {
		return nil, ss.src.wrap(ctx, "read the daily table's columns", err)
	}
	for _, c := range dailyRequired {
		if !cols[c] {
			return nil, nil
		}
	}
	return cols, nil
}

// firstDaily returns the daily table's first day, "" when it is empty.
func (ss *session) firstDaily(ctx context.Context) (string, error) {
	var day *string
	if err := ss.tx.QueryRow(ctx, `SELECT min(d."date") FROM `+q(tableDailyUser)+` d`).Scan(&day); err != nil {
		return "", ss.src.wrap(ctx, "find the daily table's first day", err)
	}
	if day == nil {
		return "", nil
	}
	return *day, nil
}

// oldestLog returns the start of the oldest spend-log row, zero when the
// table is empty.
func (ss *session) oldestLog(ctx context.Context) (time.Time, error) {
	var at *time.Time
	if err := ss.tx.QueryRow(ctx, `SELECT min(sl."startTime") FROM "LiteLLM_SpendLogs" sl`).Scan(&at); err != nil {
		return time.Time{}, ss.src.wrap(ctx, "find the oldest spend log", err)
	}
	if at == nil {
		return time.Time{}, nil
	}
	return at.UTC(), nil
}

// dailyQuery sums both tables by UTC day, key and model and joins them:
// a group one side lacks comes with zeros on that side. Spend is summed
// as numeric from each double's shortest text, as the spend logs are read.
func (ss *session) dailyQuery(cols map[string]bool) string {
	okD, failedD := "0::bigint", "0::bigint"
	if cols["successful_requests"] && cols["failed_requests"] {
		okD, failedD = "sum(d.successful_requests)::bigint", "sum(d.failed_requests)::bigint"
	}
	okL, failedL := "count(*)", "0::bigint"
	if ss.schema.spend["status"] {
		okL, failedL = `count(*) FILTER (WHERE sl.status IS DISTINCT FROM 'failure')`, `count(*) FILTER (WHERE sl.status = 'failure')`
	}
	return fmt.Sprintf(`WITH d AS (
		SELECT d."date" AS day, d.api_key AS key, COALESCE(d.model, '') AS model, sum(d.api_requests)::bigint AS req,
			%s AS ok, %s AS failed, sum(d.prompt_tokens)::bigint AS pt, sum(d.completion_tokens)::bigint AS ct,
			sum(d.spend::text::numeric) AS spend
		FROM %s d WHERE d."date" >= $1 AND d."date" < $2 GROUP BY 1, 2, 3),
	l AS (
		SELECT to_char(sl."startTime", 'YYYY-MM-DD') AS day, sl.api_key AS key, sl.model AS model, count(*)::bigint AS req,
			%s AS ok, %s AS failed, sum(sl.prompt_tokens)::bigint AS pt, sum(sl.completion_tokens)::bigint AS ct,
			sum(sl.spend::text::numeric) AS spend
		FROM "LiteLLM_SpendLogs" sl WHERE sl."startTime" >= $3::timestamp AND sl."startTime" < $4::timestamp GROUP BY 1, 2, 3)
	SELECT day, key, model,
		COALESCE(d.req, 0), COALESCE(d.ok, 0), COALESCE(d.failed, 0), COALESCE(d.pt, 0), COALESCE(d.ct, 0), COALESCE(d.spend, 0)::text,
		COALESCE(l.req, 0), COALESCE(l.ok, 0), COALESCE(l.failed, 0), COALESCE(l.pt, 0), COALESCE(l.ct, 0), COALESCE(l.spend, 0)::text
	FROM d FULL JOIN l USING (day, key, model)
	ORDER BY day, key, model`, okD, failedD, q(tableDailyUser), okL, failedL)
}

// scanner is the part of pgx.Rows noteDaily reads.
type scanner interface{ Scan(dest ...any) error }

// noteDaily reads one joined group into the comparison.
func noteDaily(rows scanner, c *ledger.DailyComparison) error {
	var day, key, model, spendD, spendL string
	var d, l ledger.DailyCounts
	if err := rows.Scan(&day, &key, &model, &d.Requests, &d.Successful, &d.Failed, &d.Prompt, &d.Completion, &spendD,
		&l.Requests, &l.Successful, &l.Failed, &l.Prompt, &l.Completion, &spendL); err != nil {
		return err
	}
	var err error
	if d.Spend, err = decimal.NewFromString(spendD); err != nil {
		return fmt.Errorf("daily spend %q: %w", spendD, err)
	}
	if l.Spend, err = decimal.NewFromString(spendL); err != nil {
		return fmt.Errorf("logged spend %q: %w", spendL, err)
	}
	c.Note(day, key, model, d, l)
	return nil
}

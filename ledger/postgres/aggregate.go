package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// AggregateOptions say how the database groups calls.
type AggregateOptions struct {
	// Span is the length of time the billing instants of a group fall in:
	// time.Hour or time.Minute (the default), starting on a whole one.
	Span time.Duration
	// SpanFor, when set, chooses the span from the first and last start
	// instants of the window's rows (read from the "startTime" index); an
	// error from it ends the run.
	SpanFor func(first, last time.Time) (time.Duration, error)
	// Billing is the instant truncated to the minute.
	Billing tariffs.BillingTime
	// TierBounds are the prompt sizes at which any tariff's tier changes,
	// ascending: a group's prompts all exceed the same ones.
	TierBounds []int64
	// ByKey, ByTeam and ByUser keep keys, teams and users apart.
	ByKey, ByTeam, ByUser bool
}

// Aggregate pushes the heavy work down: the database sums the window's
// plain rows by minute (or hour) of the billing instant, model, status, zero spend,
// prompt-size band and the asked groupings, and fn receives each group.
// The SQL is a GROUP BY of counts, sums and a minimum that a distributed
// PostgreSQL (Citus) runs on every shard in parallel.
//
// Odd rows (see the row query) are counted in the same scan; when there
// are any, Aggregate returns a Reader of them alone for the caller to read
// as rows and close. Otherwise it returns nil.
func (s *Source) Aggregate(ctx context.Context, o AggregateOptions, fn func(*ledger.Aggregate) error) (ledger.Reader, error) {
	ss, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	odd, err := ss.aggregate(ctx, o, fn)
	if err != nil || odd == 0 {
		ss.close()
		return nil, err
	}
	r, err := ss.rowReader(ctx, true)
	if err != nil {
		ss.close()
		return nil, err
	}
	return r, nil
}

// aggregate runs the grouped query and returns the number of odd rows.
func (ss *session) aggregate(ctx context.Context, o AggregateOptions, fn func(*ledger.Aggregate) error) (int64, error) {
	from, until, err := ss.window(ctx)
	if err != nil {
		return 0, err
	}
	if o.SpanFor != nil {
		var first, last *time.Time
		err := ss.tx.QueryRow(ctx, `SELECT min(sl."startTime"), max(sl."startTime") FROM "LiteLLM_SpendLogs" sl `+inWindow,
			from, until).Scan(&first, &last)
		if err != nil {
			return 0, ss.src.wrap("read the range of "+tableSpendLogs, err)
		}
		if first == nil {
			return 0, nil // no rows
		}
		if o.Span, err = o.SpanFor(first.UTC(), last.UTC()); err != nil {
			return 0, err
		}
	}
	sql := fragments{ss.schema}.aggregateQuery(o)
	args := []any{from, until}
	if len(o.TierBounds) > 0 {
		args = append(args, o.TierBounds)
	}
	rows, err := ss.tx.Query(ctx, sql, args...)
	if err != nil {
		return 0, ss.src.wrap("sum "+tableSpendLogs, err)
	}
	defer rows.Close()
	var odd int64
	var a ledger.Aggregate
	span := time.Minute
	if o.Span == time.Hour {
		span = time.Hour
	}
	for rows.Next() {
		var (
			ok                                       bool
			minute                                   *time.Time
			model, group, key, alias, team, user     *string
			failed, zero                             *bool
			band                                     *int32
			calls, prompt, cached, write, out, think int64
			spend                                    *string
		)
		if err := rows.Scan(&ok, &minute, &model, &group, &failed, &zero, &band, &key, &team, &user,
			&calls, &prompt, &cached, &write, &out, &think, &spend, &alias); err != nil {
			return 0, ss.src.wrap("sum "+tableSpendLogs, err)
		}
		if !ok {
			odd += calls
			continue
		}
		a = ledger.Aggregate{Gateway: ledger.LiteLLM, Start: minute.UTC(), Span: span, Model: deref(model), ModelGroup: deref(group),
			Key: deref(key), KeyAlias: deref(alias), Team: deref(team), User: deref(user), Calls: calls,
			Tokens:    ledger.Tokens{Input: prompt - cached - write, CacheRead: cached, CacheWrite: write, Output: out, Reasoning: think},
			ZeroSpend: *zero, Prompt: bandPrompt(o.TierBounds, int(*band))}
		if *failed {
			a.Status = ledger.StatusFailure
		}
		if a.Recorded, err = decimal.NewFromString(deref(spend)); err != nil {
			return 0, fmt.Errorf("sum %s: spend %q: %w", tableSpendLogs, deref(spend), err)
		}
		if err := fn(&a); err != nil {
			return 0, err
		}
	}
	if err := rows.Err(); err != nil {
		return 0, ss.src.wrap("sum "+tableSpendLogs, err)
	}
	return odd, nil
}

// spanUnit is date_trunc's name for a span.
func spanUnit(span time.Duration) string {
	if span == time.Hour {
		return "hour"
	}
	return "minute"
}

// bandPrompt returns a prompt size inside band i: exceeding the first i
// bounds and no other.
func bandPrompt(bounds []int64, i int) int64 {
	if i <= 0 || len(bounds) == 0 {
		return 0
	}
	return bounds[i-1] + 1
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// billing is the billing instant's expression.
func (f fragments) billing(b tariffs.BillingTime) string {
	switch b {
	case tariffs.BillStart:
		return `sl."startTime"`
	case tariffs.BillFirstToken:
		return fmt.Sprintf(`COALESCE(%s, sl."startTime")`, f.col("completionStartTime", "timestamp"))
	}
	return fmt.Sprintf(`COALESCE(%s, sl."startTime")`, f.col("endTime", "timestamp"))
}

// aggregateQuery groups the window's plain rows; odd rows form groups of
// their own with nothing but their count ($1, $2 the window, $3 the tier
// bounds).
func (f fragments) aggregateQuery(o AggregateOptions) string {
	// Odd rows make groups of their own (ok false) whose sums are unused:
	// nothing below fails on an odd value.
	when := func(expr string) string { return expr }
	num := when
	band := "0"
	if len(o.TierBounds) > 0 {
		// width_bucket counts the bounds <= its argument; a tier applies
		// to prompts that exceed its bound, so prompt - 1 is compared.
		band = "width_bucket(sl.prompt_tokens - 1, $3::int8[])"
	}
	status := "FALSE"
	if f.s.spend["status"] {
		status = "lower(COALESCE(sl.status, '')) IN ('failure', 'failed')"
	}
	optional := func(on bool, expr string) string {
		if on {
			return when(expr)
		}
		return "NULL::text"
	}
	inner := []string{
		"ok",
		when(fmt.Sprintf("date_trunc('%s', %s)", spanUnit(o.Span), f.billing(o.Billing))) + " AS minute",
		when(fmt.Sprintf("COALESCE(%s, '')", f.col("model", "text"))) + " AS model",
		when(fmt.Sprintf("COALESCE(%s, '')", f.col("model_group", "text"))) + " AS model_group",
		when(status) + " AS failed",
		when("sl.spend = 0") + " AS zero",
		when(band) + " AS band",
		optional(o.ByKey, f.key()) + " AS key",
		optional(o.ByTeam, f.team()) + " AS team",
		optional(o.ByUser, fmt.Sprintf("COALESCE(%s, '')", f.col("user", "text"))) + ` AS "user"`,
		optional(o.ByKey, f.keyAlias()) + " AS alias",
		num("sl.prompt_tokens") + " AS prompt",
		num(f.metaCount(f.cached())) + " AS cached",
		num(f.metaCount(f.write())) + " AS write",
		num("sl.completion_tokens") + " AS completion",
		num(f.metaCount(f.reasoning())) + " AS reasoning",
		// The shortest text of the double is what the row readers parse:
		// summed as numeric, the total is exact.
		when("sl.spend::text::numeric") + " AS spend",
	}
	return fmt.Sprintf(`SELECT ok, minute, model, model_group, failed, zero, band, key, team, "user",
	count(*), sum(prompt)::int8, sum(cached)::int8, sum(write)::int8, sum(completion)::int8, sum(reasoning)::int8,
	sum(spend)::text, min(alias COLLATE "C")
FROM (SELECT %s
%s
%s) s
GROUP BY ok, minute, model, model_group, failed, zero, band, key, team, "user"`,
		strings.Join(inner, ",\n\t"), f.from(o.ByKey, o.ByTeam), inWindow)
}

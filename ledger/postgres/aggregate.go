package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/internal/numtext"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// AggregateOptions say how the database groups calls.
type AggregateOptions = ledger.SumOptions

// Sum is Aggregate as a ledger.Summer: each group goes to to, billed by
// o.Billing, its failed calls unclassed.
func (s *Source) Sum(ctx context.Context, o ledger.SumOptions, to ledger.SumSink) (ledger.Reader, error) {
	var g ledger.Summed
	g.BilledBy = o.Billing
	return s.Aggregate(ctx, o, func(a *ledger.Aggregate) error {
		g.Aggregate = *a
		return to.Add(&g)
	})
}

// KeepsRows is true: where the sums cannot be exact, the rows are read.
func (s *Source) KeepsRows() bool { return true }

// Aggregate pushes the heavy work down: the database sums the window's
// plain rows by the stretch between two boundaries their billing instants
// fall in, model, status, zero spend, prompt-size band and the asked
// groupings, and fn receives each group with its first and last billing
// instants. The SQL is a GROUP BY of counts, sums, minimums and maximums
// over one table that PostgreSQL runs in parallel workers, and a
// distributed PostgreSQL (Citus) on every shard.
//
// Odd rows (see the row query) are counted in the same scan: while they are
// few (see oddByID), each a group of its own named by its request id, then
// fetched by those ids; otherwise as one group per stretch and the rest of
// a group's identity, then read by a second scan of the window. When there
// are any, Aggregate returns a Reader of them alone, for the caller to read
// as rows and close. Otherwise it returns nil.
func (s *Source) Aggregate(ctx context.Context, o AggregateOptions, fn func(*ledger.Aggregate) error) (ledger.Reader, error) {
	ss, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	odd, err := ss.aggregate(ctx, o, fn)
	if err != nil || odd.calls == 0 {
		ss.close()
		return nil, err
	}
	r, err := ss.rowReader(ctx, &odd)
	if err != nil {
		ss.close()
		return nil, err
	}
	return r, nil
}

// aggregateSettings let the planner sum in parallel workers with hash
// tables, for this transaction only: it cannot foresee how few groups the
// boundaries leave, and would otherwise sort every row in one process.
const aggregateSettings = `SET LOCAL enable_sort = off; SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0`

// maxOddIDs bounds the odd rows the sums name by request id, to fetch by
// the primary key's index: past it, a second scan of the window reads them
// all.
var maxOddIDs = 1 << 20

// Naming each odd row in the sums costs the server a group per odd row
// (the hash tables hold about 1.5 KiB for each, in the leader and the
// workers together) and a fetch by the primary key; a second scan of the
// window costs the plain-row test on every row again. On the generator's
// month (13% odd rows, docs/scale.md) the first is cheaper, and the
// crossover lies between a quarter and a half of the rows; the groups'
// memory grows with the table. So the sums
// name odd rows only when, in a sample of oddSample of the window's rows,
// fewer than one in oddShareByID is odd and the window holds at most
// maxOddIDs odd rows at that share.
var (
	oddSample    = 8192
	oddShareByID = 5
)

// oddByID says whether the summing query is to name each odd row by its
// request id: it reads the plain-row test of the window's first oddSample
// rows and, when that share is small, counts the window's rows.
func (ss *session) oddByID(ctx context.Context, from, until string) (bool, error) {
	f := fragments{ss.schema}
	var sampled, odd int64
	err := ss.tx.QueryRow(ctx, fmt.Sprintf(`SELECT count(*), count(*) FILTER (WHERE NOT s.ok) FROM (SELECT (%s) IS TRUE AS ok
%s
%s
LIMIT $3) s`, f.ok(), f.rowsFrom(), inWindow), from, until, oddSample).Scan(&sampled, &odd)
	if err != nil {
		return false, ss.src.wrap(ctx, "sample "+tableSpendLogs, err)
	}
	if odd == 0 {
		return true, nil
	}
	if odd*int64(oddShareByID) >= sampled {
		return false, nil
	}
	if sampled < int64(oddSample) {
		return true, nil // the whole window
	}
	// The window's rows, counted on the "startTime" index up to the first
	// that would name too many odd rows. The subquery selects a column:
	// Citus plans a LIMIT over a distributed table as an intermediate
	// result, which it cannot read back with no column at all.
	most := int64(maxOddIDs)*sampled/odd + 1
	var rows int64
	err = ss.tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM "LiteLLM_SpendLogs" sl `+inWindow+` LIMIT $3) s`, from, until, most).Scan(&rows)
	if err != nil {
		return false, ss.src.wrap(ctx, "count "+tableSpendLogs, err)
	}
	return rows < most, nil
}

// oddIDs are the request ids of the odd rows the sums counted, to fetch
// them whole; all says there were more than maxOddIDs (or the sums did not
// name them), to read by the window instead.
type oddIDs struct {
	calls int64
	ids   []string
	all   bool
}

// add counts a group of odd rows with the request id id.
func (o *oddIDs) add(id string, calls int64) {
	o.calls += calls
	if o.all {
		return
	}
	o.ids = append(o.ids, id)
	if o.all = len(o.ids) > maxOddIDs; o.all {
		o.ids = nil
	}
}

// aggregate runs the grouped query and returns the odd rows it counted.
func (ss *session) aggregate(ctx context.Context, o AggregateOptions, fn func(*ledger.Aggregate) error) (oddIDs, error) {
	var odd oddIDs
	from, until, err := ss.window(ctx)
	if err != nil {
		return odd, err
	}
	var bounds []time.Time
	if o.Boundaries != nil {
		var first, last *time.Time
		err := ss.tx.QueryRow(ctx, `SELECT min(sl."startTime"), max(sl."startTime") FROM "LiteLLM_SpendLogs" sl `+inWindow,
			from, until).Scan(&first, &last)
		if err != nil {
			return odd, ss.src.wrap(ctx, "read the range of "+tableSpendLogs, err)
		}
		if first == nil {
			return odd, nil // no rows
		}
		bounds = o.Boundaries(first.UTC(), last.UTC())
	}
	if _, err := ss.tx.Exec(ctx, aggregateSettings); err != nil {
		return odd, ss.src.wrap(ctx, "sum "+tableSpendLogs, err)
	}
	byID, err := ss.oddByID(ctx, from, until)
	if err != nil {
		return odd, err
	}
	sql := fragments{ss.schema}.aggregateQuery(o, byID)
	rows, err := ss.tx.Query(ctx, sql, from, until, o.TierBounds, sqlTimes(bounds))
	if err != nil {
		return odd, ss.src.wrap(ctx, "sum "+tableSpendLogs, err)
	}
	defer rows.Close()
	var a ledger.Aggregate
	for rows.Next() {
		var (
			oddID                             *string
			first, last                       *time.Time
			model, group, key, team, user     *string
			provider, apiBase, priceKey       *string
			metaAlias, keyAlias               *string
			failed, zero                      *bool
			band                              *int32
			calls, lacking                    int64
			prompt, cached, write, out, think *int64
			spend, tags, keyMeta              *string
		)
		if err := rows.Scan(&oddID, &first, &last, &model, &group, &provider, &apiBase, &priceKey, &failed, &zero, &band, &key, &team, &user,
			&calls, &prompt, &cached, &write, &out, &think, &spend, &metaAlias, &lacking, &keyAlias, &tags, &keyMeta); err != nil {
			return odd, ss.src.wrap(ctx, "sum "+tableSpendLogs, err)
		}
		if oddID != nil {
			if !byID {
				odd.calls += calls
				odd.all = true
				continue
			}
			odd.add(*oddID, calls)
			continue
		}
		a = ledger.Aggregate{Gateway: ledger.LiteLLM, First: first.UTC(), Last: last.UTC(), Model: deref(model), ModelGroup: deref(group),
			Host:     ledger.LiteLLMHost(deref(provider), deref(model), deref(apiBase), deref(group)),
			PriceKey: deref(priceKey),
			Key:      deref(key), KeyAlias: groupAlias(metaAlias, lacking, keyAlias), Team: deref(team), User: deref(user), Calls: calls,
			Tokens: ledger.Tokens{Input: deref(prompt) - deref(cached) - deref(write), CacheRead: deref(cached), CacheWrite: deref(write),
				Output: deref(out), Reasoning: deref(think)},
			ZeroSpend: *zero, Prompt: bandPrompt(o.TierBounds, int(*band))}
		if *failed {
			a.Status = ledger.StatusFailure
		}
		var tagsOK bool
		if a.Tags, tagsOK = ledger.ParseTags([]byte(deref(tags))); !tagsOK {
			// The plain-row test lets only lists of strings through.
			return odd, fmt.Errorf("sum %s: request_tags %q is not a JSON array of strings", tableSpendLogs, deref(tags))
		}
		a.KeyMeta = deref(keyMeta)
		if a.Recorded, err = numtext.Decimal(deref(spend)); err != nil {
			return odd, fmt.Errorf("sum %s: spend %q: %w", tableSpendLogs, deref(spend), err)
		}
		if err := fn(&a); err != nil {
			return odd, err
		}
	}
	if err := rows.Err(); err != nil {
		return odd, ss.src.wrap(ctx, "sum "+tableSpendLogs, err)
	}
	return odd, nil
}

// groupAlias is a group's key alias as the row engine picks it: the first
// in byte order among its calls', where a call without one in its metadata
// has the key tables' (the same for the whole group, which has one key).
func groupAlias(meta *string, lacking int64, joined *string) string {
	alias := deref(meta)
	if lacking > 0 && joined != nil && *joined != "" && (alias == "" || *joined < alias) {
		alias = *joined
	}
	return alias
}

// sqlTimes renders instants as PostgreSQL reads timestamps without zone.
func sqlTimes(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = sqlTime(t)
	}
	return out
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

// aggregateQuery groups the window's rows ($1, $2) by the stretch between
// boundaries ($4) their billing instants fall in, the prompt-size band
// ($3) and the rest of a group's identity. Odd rows form groups of their
// own that are only counted (one per request id when byID, else one for
// each group's identity, named ”): the sums, which would fail on an odd
// count, are filtered to plain rows. The key and team tables are
// joined to the groups, not the rows.
func (f fragments) aggregateQuery(o AggregateOptions, byID bool) string {
	status := "FALSE"
	if f.s.spend["status"] {
		// Compared as written first: lower is slow on every row.
		status = "(sl.status IS NOT NULL AND sl.status NOT IN ('', 'success') AND lower(sl.status) IN ('failure', 'failed'))"
	}
	optional := func(on bool, expr string) string {
		if on {
			return expr
		}
		return "NULL::text"
	}
	billing := f.billing(o.Billing)
	oddName := "sl.request_id"
	if !byID {
		oddName = "''"
	}
	// A row's columns, by name. They are written out in the grouped query
	// itself, with no derived table of rows under it: PostgreSQL flattens
	// one anyway (the same plan), but Citus does not push a derived table
	// joined to a stable function (jsonb_to_record) down to the shards, and
	// would send every row to the coordinator to be grouped there.
	col := map[string]string{
		// An odd row is counted apart, named by its request id (or by ''),
		// for the rows query to fetch it whole; a plain row has none. The test
		// is one grouping column, computed once per row: the filters below
		// repeat its expression, which PostgreSQL reads from the column.
		"odd_id": "CASE WHEN " + f.ok() + " THEN NULL ELSE " + oddName + " END",
		// The stretch: how many boundaries are at or before the instant.
		"seg":         fmt.Sprintf("COALESCE(width_bucket(%s, $4::timestamp[]), 0)", billing),
		"billing":     billing,
		"model":       fmt.Sprintf("COALESCE(%s, '')", f.col("model", "text")),
		"model_group": fmt.Sprintf("COALESCE(%s, '')", f.col("model_group", "text")),
		// The host is decided from these as the row readers decide it.
		"provider": fmt.Sprintf("COALESCE(%s, '')", f.col("custom_llm_provider", "text")),
		"api_base": fmt.Sprintf("COALESCE(%s, '')", f.col("api_base", "text")),
		// The price entry the gateway used: tried first when pricing.
		"price_key": fmt.Sprintf("COALESCE(%s, '')", f.priceKey()),
		"failed":    status,
		"zero":      "sl.spend = 0",
		// width_bucket counts the bounds <= its argument; a tier applies
		// to prompts that exceed its bound, so prompt - 1 is compared.
		"band":         "COALESCE(width_bucket(sl.prompt_tokens - 1, $3::int8[]), 0)",
		"api_key":      optional(o.ByKey, "sl.api_key"),
		"alias":        optional(o.ByKey, f.metaText(metaKey)),
		"team_alias":   optional(o.ByTeam, f.metaText(metaTA)),
		"team_id":      optional(o.ByTeam, f.col("team_id", "text")),
		"team_meta_id": optional(o.ByTeam, f.metaText(metaTID)),
		`"user"`:       optional(o.ByUser, fmt.Sprintf("COALESCE(%s, '')", f.col("user", "text"))),
		"tags":         optional(o.ByTags, f.col("request_tags", "jsonb")+"::text"),
		"prompt":       "sl.prompt_tokens",
		"cached":       f.countSum(cached),
		"write":        f.countSum(write1),
		"completion":   "sl.completion_tokens",
		"reasoning":    f.countSum(reason),
		// The shortest text of the double is what the row readers parse:
		// summed as numeric, the total is exact.
		"spend": "sl.spend::text::numeric",
	}
	groups := []string{"odd_id", "seg", "model", "model_group", "provider", "api_base", "price_key", "failed", "zero", "band",
		"api_key", "team_alias", "team_id", "team_meta_id", `"user"`, "tags"}
	var grouped, by []string
	for i, name := range groups {
		grouped = append(grouped, "("+col[name]+") AS "+name)
		by = append(by, strconv.Itoa(i+1))
	}
	// sum is the sum of a column over the group's plain rows.
	sum := func(name string) string {
		return fmt.Sprintf("(sum(%s) FILTER (WHERE (%s) IS NULL))", col[name], col["odd_id"])
	}
	summed := fmt.Sprintf(`SELECT %s,
	min(%[2]s) AS first, max(%[2]s) AS last, count(*) AS calls,
	%[3]s::int8 AS prompt, %[4]s::int8 AS cached, %[5]s::int8 AS write, %[6]s::int8 AS completion,
	%[7]s::int8 AS reasoning, %[8]s::text AS spend,
	min((%[9]s) COLLATE "C") AS alias, count(*) - count(%[9]s) AS lacking
%[10]s
%[11]s
GROUP BY %[12]s`, strings.Join(grouped, ",\n\t"), col["billing"], sum("prompt"), sum("cached"), sum("write"), sum("completion"),
		sum("reasoning"), sum("spend"), col["alias"], f.rowsFrom(), inWindow, strings.Join(by, ", "))
	return fmt.Sprintf(`SELECT g.odd_id, g.first, g.last, g.model, g.model_group, g.provider, g.api_base, g.price_key, g.failed, g.zero, g.band,
	%s, %s, g."user", g.calls, g.prompt, g.cached, g.write, g.completion, g.reasoning, g.spend,
	g.alias, g.lacking, %s, g.tags, %s
FROM (%s) g%s`, optional(o.ByKey, f.keyOf("g.api_key")), optional(o.ByTeam, f.groupTeam()),
		optional(o.ByKey, f.joinedKeyAlias()), optional(o.ByKey && o.ByKeyMeta, f.keyMetadata()), summed,
		f.joins(o.ByKey, o.ByTeam, "g.api_key", "g.team_id"))
}

var (
	_ ledger.Summer        = (*Source)(nil)
	_ ledger.DailyComparer = (*Source)(nil)
)

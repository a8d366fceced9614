package postgres

import (
	"fmt"
	"strings"
)

// The SQL below is built from fixed fragments and the columns the probe
// found; every value the user gives is a parameter.
//
// Each row is first judged plain ("ok") or odd. A plain row's metadata is
// an object whose token counts are absent or small non-negative integers,
// its counts add up, its spend is a finite non-negative number, its status
// is known and its instants are in order and in 1970 through 2261, as the
// readers accept them: the database can split its tokens and pick its
// aliases exactly as ledger.SpendLogMapper would. An odd row
// is sent as it is (metadata text and all) for the mapper to read or
// reject with its reason.

// q quotes an identifier of LiteLLM's mixed-case schema.
func q(name string) string { return `"` + name + `"` }

// fragments are the SQL expressions of one query, for the columns present.
type fragments struct {
	s *schema
}

// col returns sl.<name>, or NULL of the type when the column is absent.
func (f fragments) col(name, typ string) string {
	if f.s.spend[name] {
		return "sl." + q(name)
	}
	return "NULL::" + typ
}

// Metadata members, as columns of the lateral subqueries of from: each is
// extracted once per row, counts as text (a JSON number or a string that
// holds one read alike, as the mapper reads them; JSON null is NULL).
const (
	au      = `m1.au`
	cached  = `m2.c`
	write1  = `m2.w1`
	reason  = `m2.r`
	metaKey = `sl.metadata->'user_api_key_alias'`
	metaTA  = `sl.metadata->'user_api_key_team_alias'`
	metaTID = `sl.metadata->'user_api_key_team_id'`
)

// countPattern is a token count the database may sum: a small
// non-negative integer written plainly.
const countPattern = `'^[0-9]{1,9}$'`

// jsonCount is a metadata token count as an integer: absent and null are 0.
func jsonCount(x string) string {
	return fmt.Sprintf(`(CASE WHEN %[1]s ~ %[2]s THEN (%[1]s)::int ELSE 0 END)`, x, countPattern)
}

// jsonCountOK says a metadata token count is absent, null or a small
// non-negative integer.
func jsonCountOK(x string) string {
	return fmt.Sprintf(`(%[1]s IS NULL OR %[1]s ~ %[2]s)`, x, countPattern)
}

// jsonText is a metadata label as the mapper reads it: a string, or a
// number as written; NULL for any other kind.
func jsonText(x string) string {
	return fmt.Sprintf(`(CASE WHEN jsonb_typeof(%[1]s) IN ('string', 'number') THEN %[1]s#>>'{}' END)`, x)
}

// objectOrNull says a JSON type is absent, null or an object.
func objectOrNull(typ string) string {
	return fmt.Sprintf(`(%[1]s IS NULL OR %[1]s IN ('object', 'null'))`, typ)
}

// The token counts from metadata, computed once per row in from.
func (f fragments) cached() string    { return "v.cached" }
func (f fragments) reasoning() string { return "v.reasoning" }
func (f fragments) write() string     { return "v.write" }

// counts is the lateral subquery of the metadata token counts.
func (f fragments) counts() string {
	return fmt.Sprintf("SELECT %s AS cached, %s AS write, %s AS reasoning", jsonCount(cached), jsonCount(write1), jsonCount(reason))
}

// ok is the plain-row test.
func (f fragments) ok() string {
	status := "TRUE"
	if f.s.spend["status"] {
		status = `(sl.status IS NULL OR lower(sl.status) IN ('', 'success', 'failure', 'failed'))`
	}
	first := "TRUE"
	if f.s.spend["completionStartTime"] {
		first = `(sl."completionStartTime" IS NULL OR (sl."completionStartTime" >= sl."startTime" AND sl."completionStartTime" < '2262-01-01'))`
	}
	end := "TRUE"
	if f.s.spend["endTime"] {
		end = `(sl."endTime" IS NULL OR (sl."endTime" >= sl."startTime" AND sl."endTime" < '2262-01-01'))`
	}
	meta := "TRUE"
	if f.s.spend["metadata"] {
		meta = strings.Join([]string{
			`(sl.metadata IS NULL OR jsonb_typeof(sl.metadata) = 'object')`,
			objectOrNull("m2.aut"), objectOrNull("m2.ptt"), objectOrNull("m2.ctt"),
			// Only the Chat Completions shape is split here; the Responses
			// API, Anthropic's and DeepSeek's own counts and the 5m/1h
			// write split go to the mapper, which knows every shape.
			`NOT COALESCE(m1.au ?| array['input_tokens', 'output_tokens', 'input_tokens_details', 'output_tokens_details',
		'cache_read_input_tokens', 'cache_creation_input_tokens', 'prompt_cache_hit_tokens'], FALSE)`,
			`NOT COALESCE((m1.au->'prompt_tokens_details') ? 'cache_creation_token_details', FALSE)`,
			jsonCountOK(cached), jsonCountOK(write1), jsonCountOK(reason),
			fmt.Sprintf(`sl.prompt_tokens >= %s + %s`, f.cached(), f.write()),
			fmt.Sprintf(`sl.completion_tokens >= %s`, f.reasoning()),
		}, "\n\t\tAND ")
	}
	// A total above prompt + completion tells the mapper that writes or
	// reasoning lie outside them.
	total := "TRUE"
	if f.s.spend["total_tokens"] {
		total = `(sl.total_tokens IS NULL OR sl.total_tokens <= sl.prompt_tokens + sl.completion_tokens)`
	}
	// A response-cache hit is its own outcome: the mapper tells it.
	hit := `sl.request_id !~ '._cache_hit[0-9]'`
	if f.s.spend["cache_hit"] {
		hit = `(CASE WHEN COALESCE(sl.cache_hit, '') = '' THEN ` + hit + ` ELSE lower(sl.cache_hit) <> 'true' END)`
	}
	return strings.Join([]string{
		`sl.prompt_tokens IS NOT NULL AND sl.prompt_tokens >= 0`,
		`sl.completion_tokens IS NOT NULL AND sl.completion_tokens >= 0`,
		// The readers refuse a decimal exponent beyond ±64: a spend between
		// 1e-40 and 1e40 has none (17 digits at most), and none is odd.
		`sl.spend IS NOT NULL AND (sl.spend = 0 OR (sl.spend >= 1e-40 AND sl.spend < 1e40))`,
		`sl."startTime" >= '1970-01-01' AND sl."startTime" < '2262-01-01'`,
		status, first, end, total, hit, meta,
	}, "\n\tAND ")
}

// keyAlias is the key's alias: the one in the metadata at call time, else
// the key table's, else the deleted-key table's; NULL when none.
func (f fragments) keyAlias() string {
	return fmt.Sprintf("COALESCE(%s, %s)", f.metaText(metaKey), f.joinedKeyAlias())
}

// joinedKeyAlias is the alias the key tables hold; NULL when none.
func (f fragments) joinedKeyAlias() string {
	var parts []string
	if f.s.keys != nil {
		parts = append(parts, "NULLIF(vt.key_alias, '')")
	}
	if f.s.deleted != nil {
		parts = append(parts, "NULLIF(dvt.key_alias, '')")
	}
	if len(parts) == 0 {
		return "NULL::text"
	}
	return "COALESCE(" + strings.Join(parts, ", ") + ")"
}

// metaText is a non-empty metadata label, else NULL.
func (f fragments) metaText(x string) string {
	if !f.s.spend["metadata"] {
		return "NULL::text"
	}
	return "NULLIF(" + jsonText(x) + ", '')"
}

// team is the team's name as the mapper picks it: the metadata's team
// alias, the team table's, the team id, the metadata's team id.
func (f fragments) team() string {
	joined := "NULL::text"
	if f.s.teams != nil {
		joined = "NULLIF(tt.team_alias, '')"
	}
	return fmt.Sprintf("COALESCE(%s, %s, NULLIF(%s, ''), %s)", f.metaText(metaTA), joined, f.col("team_id", "text"), f.metaText(metaTID))
}

// joinedTeamAlias is the team table's alias; NULL when none.
func (f fragments) joinedTeamAlias() string {
	if f.s.teams == nil {
		return "NULL::text"
	}
	return "NULLIF(tt.team_alias, '')"
}

// key is the hashed key: LiteLLM stores hashes, but a raw "sk-" key that
// reached the table is hashed as the readers do.
func (f fragments) key() string {
	return `(CASE WHEN sl.api_key LIKE 'sk-%' THEN encode(sha256(convert_to(sl.api_key, 'UTF8')), 'hex') ELSE COALESCE(sl.api_key, '') END)`
}

// from is the FROM clause with the joins that bring aliases and the
// plain-row test as column ok.
func (f fragments) from(keys, teams bool) string {
	var b strings.Builder
	b.WriteString(`FROM "LiteLLM_SpendLogs" sl`)
	if keys && f.s.keys != nil {
		b.WriteString("\nLEFT JOIN \"LiteLLM_VerificationToken\" vt ON vt.token = sl.api_key")
	}
	if keys && f.s.deleted != nil {
		// A key can be deleted more than once (regenerated): its latest
		// deletion names it, and the join must not repeat the row.
		order := "token"
		if f.s.deleted["deleted_at"] {
			order = "token, deleted_at DESC"
		}
		fmt.Fprintf(&b, "\nLEFT JOIN (SELECT DISTINCT ON (token) token, key_alias FROM \"LiteLLM_DeletedVerificationToken\" ORDER BY %s) dvt ON dvt.token = sl.api_key", order)
	}
	if teams && f.s.teams != nil && f.s.spend["team_id"] {
		b.WriteString("\nLEFT JOIN \"LiteLLM_TeamTable\" tt ON tt.team_id = sl.team_id")
	}
	// OFFSET 0 keeps each subquery from being pulled up: its columns are
	// computed once per row instead of once per use.
	meta := "NULL::jsonb"
	if f.s.spend["metadata"] {
		meta = "sl.metadata->'additional_usage_values'"
	}
	fmt.Fprintf(&b, "\nCROSS JOIN LATERAL (SELECT %s AS au OFFSET 0) m1", meta)
	b.WriteString(`
CROSS JOIN LATERAL (SELECT m1.au #>> '{prompt_tokens_details,cached_tokens}' AS c,
	m1.au #>> '{prompt_tokens_details,cache_creation_tokens}' AS w1,
	m1.au #>> '{completion_tokens_details,reasoning_tokens}' AS r, jsonb_typeof(m1.au) AS aut,
	jsonb_typeof(m1.au->'prompt_tokens_details') AS ptt, jsonb_typeof(m1.au->'completion_tokens_details') AS ctt OFFSET 0) m2`)
	fmt.Fprintf(&b, "\nCROSS JOIN LATERAL (%s OFFSET 0) v", f.counts())
	fmt.Fprintf(&b, "\nCROSS JOIN LATERAL (SELECT %s AS ok OFFSET 0) o", f.ok())
	return b.String()
}

// inWindow is the predicate on "startTime" ($1, $2) that its index serves.
const inWindow = `WHERE sl."startTime" >= $1::timestamp AND sl."startTime" < $2::timestamp`

// rowColumns are the mapper's column names of the row query, in order.
var rowColumns = []string{"request_id", "startTime", "endTime", "completionStartTime", "api_key", "spend",
	"prompt_tokens", "completion_tokens", "total_tokens", "cache_hit", "model", "model_group", "model_id", "custom_llm_provider", "user",
	"team_id", "status", "metadata", "cached_tokens", "cache_creation_tokens", "reasoning_tokens", "key_alias", "team_alias"}

// rowQuery selects every row of the window as text. A plain row comes
// with its token split and aliases in flat columns and no metadata; an odd
// row with its metadata and raw team id. Only odd rows when oddOnly.
func (f fragments) rowQuery(oddOnly bool) string {
	plain := func(expr string) string { return fmt.Sprintf("CASE WHEN ok THEN (%s)::text END", expr) }
	odd := func(expr string) string { return fmt.Sprintf("CASE WHEN NOT ok THEN (%s)::text END", expr) }
	metaAlias := func(meta, joined string) string {
		return fmt.Sprintf("CASE WHEN %s IS NULL THEN %s END", f.metaText(meta), joined)
	}
	cols := []string{
		"sl.request_id::text",
		`sl."startTime"::text`,
		f.col("endTime", "timestamp") + "::text",
		f.col("completionStartTime", "timestamp") + "::text",
		"sl.api_key::text",
		"sl.spend::text",
		"sl.prompt_tokens::text",
		"sl.completion_tokens::text",
		f.col("total_tokens", "integer") + "::text",
		f.col("cache_hit", "text") + "::text",
		f.col("model", "text") + "::text",
		f.col("model_group", "text") + "::text",
		f.col("model_id", "text") + "::text",
		f.col("custom_llm_provider", "text") + "::text",
		f.col("user", "text") + "::text",
		odd(f.col("team_id", "text")),
		f.col("status", "text") + "::text",
		odd(f.col("metadata", "jsonb")),
		plain(f.metaCount(f.cached())),
		plain(f.metaCount(f.write())),
		plain(f.metaCount(f.reasoning())),
		fmt.Sprintf("CASE WHEN ok THEN %s ELSE %s END", f.keyAlias(), metaAlias(metaKey, f.joinedKeyAlias())),
		fmt.Sprintf("CASE WHEN ok THEN %s ELSE %s END", f.team(), metaAlias(metaTA, f.joinedTeamAlias())),
	}
	where := inWindow
	if oddOnly {
		where += " AND NOT ok"
	}
	return fmt.Sprintf("SELECT %s\n%s\n%s", strings.Join(cols, ",\n\t"), f.from(true, true), where)
}

// metaCount is a metadata count, or 0 when the table has no metadata.
func (f fragments) metaCount(expr string) string {
	if !f.s.spend["metadata"] {
		return "0"
	}
	return expr
}

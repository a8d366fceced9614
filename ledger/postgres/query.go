package postgres

import (
	"fmt"
	"strings"
)

// The SQL below is built from fixed fragments and the columns the probe
// found; every value the user gives is a parameter.
//
// The summing query judges each row plain ("ok") or odd (row mode sends
// every row as an odd one, to the mapper). A plain row's metadata is
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

// Metadata members: the top level's are jsonb columns of the one record
// join of metadataJoins (JSON null and absence both read as SQL NULL, as
// the mapper treats them alike); the token counts are the text of their
// JSON values, NULL when absent or null.
const (
	au      = `m.additional_usage_values`
	metaKey = `m.user_api_key_alias`
	metaTA  = `m.user_api_key_team_alias`
	metaTID = `m.user_api_key_team_id`
	cached  = `(m.additional_usage_values #>> '{prompt_tokens_details,cached_tokens}')`
	write1  = `(m.additional_usage_values #>> '{prompt_tokens_details,cache_creation_tokens}')`
	reason  = `(m.additional_usage_values #>> '{completion_tokens_details,reasoning_tokens}')`
)

// priceKey is the price entry LiteLLM used (model_map_information's
// model_map_key) when it is a non-empty JSON string, as the mapper reads
// it; NULL otherwise. On a member that is no object, -> gives NULL.
func (f fragments) priceKey() string {
	if !f.s.spend["metadata"] {
		return "NULL::text"
	}
	const k = `(m.model_map_information -> 'model_map_key')`
	return `NULLIF(CASE WHEN jsonb_typeof(` + k + `) = 'string' THEN ` + k + ` #>> '{}' END, '')`
}

// countPattern is a token count the database may sum: a non-negative
// integer of at most nine digits, written plainly (a JSON number, or a
// string holding one, which the mapper reads alike). A leading zero is
// not a JSON number: the mapper refuses "0040", so the database must not
// sum it.
const countPattern = `(0|[1-9][0-9]{0,8})`

// countsOK says metadata token counts are each absent, null or a count
// the database may sum; anything else goes to the mapper. The counts are
// joined by spaces and matched by one pattern, one regular expression call
// a row instead of one a count: a count holding a space cannot pass, as
// the pattern wants exactly one count between two spaces.
func countsOK(xs ...string) string {
	parts := make([]string, len(xs))
	pats := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("COALESCE(%s, '0')", x)
		pats[i] = countPattern
	}
	return fmt.Sprintf("(%s) ~ '^%s$'", strings.Join(parts, " || ' ' || "), strings.Join(pats, " "))
}

// countInt is a count the plain-row test passed, as an integer (NULL when
// absent). It fails on an odd row's count: use it only under that test.
func countInt(x string) string { return fmt.Sprintf(`(%s)::int`, x) }

// jsonText is a metadata label as the mapper reads it: a string, or a
// number as written; NULL for any other kind.
func jsonText(x string) string {
	return fmt.Sprintf(`(CASE WHEN jsonb_typeof(%[1]s) IN ('string', 'number') THEN %[1]s#>>'{}' END)`, x)
}

// objectOrNull says a jsonb value is absent, null or an object.
func objectOrNull(x string) string {
	return fmt.Sprintf(`COALESCE(jsonb_typeof(%s), 'null') IN ('object', 'null')`, x)
}

// ok is the plain-row test: a CASE, so that the counts are cast only once
// their form is known good. Every count is referred to three times at most.
func (f fragments) ok() string {
	status := "TRUE"
	switch {
	case f.s.spend["status"] && f.s.spend["metadata"]:
		// A failed row goes to the mapper, which reads the error
		// information in its metadata (ledger.Call.Failure).
		status = `(sl.status IS NULL OR sl.status IN ('', 'success') OR lower(sl.status) IN ('', 'success'))`
	case f.s.spend["status"]:
		status = `(sl.status IS NULL OR sl.status IN ('', 'success') OR lower(sl.status) IN ('', 'success', 'failure', 'failed'))`
	}
	first := "TRUE"
	if f.s.spend["completionStartTime"] {
		first = `(sl."completionStartTime" IS NULL OR (sl."completionStartTime" >= sl."startTime" AND sl."completionStartTime" < '2262-01-01'))`
	}
	end := "TRUE"
	if f.s.spend["endTime"] {
		end = `(sl."endTime" IS NULL OR (sl."endTime" >= sl."startTime" AND sl."endTime" < '2262-01-01'))`
	}
	meta, counts := "TRUE", "TRUE"
	if f.s.spend["metadata"] {
		meta = strings.Join([]string{
			`(sl.metadata IS NULL OR jsonb_typeof(sl.metadata) = 'object')`,
			objectOrNull(au), objectOrNull(au + "->'prompt_tokens_details'"), objectOrNull(au + "->'completion_tokens_details'"),
			// Only the Chat Completions shape is split here; the Responses
			// API, Anthropic's and DeepSeek's own counts, the 5m/1h write
			// split, tool uses, service tiers and regions go to the mapper,
			// which knows every shape.
			`NOT COALESCE(` + au + ` ?| array['input_tokens', 'output_tokens', 'input_tokens_details', 'output_tokens_details',
		'cache_read_input_tokens', 'cache_creation_input_tokens', 'prompt_cache_hit_tokens',
		'cache_creation', 'server_tool_use', 'service_tier', 'inference_geo'], FALSE)`,
			`NOT COALESCE((` + au + `->'prompt_tokens_details') ?| array['cache_creation_token_details', 'web_search_requests'], FALSE)`,
		}, "\n\t\tAND ")
		meta += "\n\t\tAND " + countsOK(cached, write1, reason)
		counts = fmt.Sprintf("sl.prompt_tokens >= COALESCE(%s, 0) + COALESCE(%s, 0) AND sl.completion_tokens >= COALESCE(%s, 0)",
			countInt(cached), countInt(write1), countInt(reason))
	}
	// A total above prompt + completion tells the mapper that writes or
	// reasoning lie outside them.
	total := "TRUE"
	if f.s.spend["total_tokens"] {
		total = `(sl.total_tokens IS NULL OR sl.total_tokens <= sl.prompt_tokens + sl.completion_tokens)`
	}
	// A response-cache hit is its own outcome: the mapper tells it. The
	// plain search first: most ids hold no "_cache_hit" at all.
	hit := `(strpos(sl.request_id, '_cache_hit') = 0 OR sl.request_id !~ '._cache_hit[0-9]')`
	if f.s.spend["cache_hit"] {
		// lower keeps the number of characters: only four can be "true".
		hit = `(CASE WHEN COALESCE(sl.cache_hit, '') = '' THEN ` + hit + ` ELSE length(sl.cache_hit) <> 4 OR lower(sl.cache_hit) <> 'true' END)`
	}
	// Request tags the readers take: a list of strings, or none. Lists of
	// up to two tags (LiteLLM's User-Agent tag, one of the caller's) are
	// checked element by element, longer ones by a path test; never by a
	// subquery over the elements: a subquery that refers to the row is
	// parallel-restricted, and would keep the whole test, and the grouping
	// above it, out of the parallel workers.
	tags := "TRUE"
	if f.s.spend["request_tags"] {
		tags = `(CASE WHEN jsonb_typeof(sl.request_tags) = 'array' THEN (CASE jsonb_array_length(sl.request_tags)
			WHEN 0 THEN TRUE
			WHEN 1 THEN jsonb_typeof(sl.request_tags -> 0) = 'string'
			WHEN 2 THEN jsonb_typeof(sl.request_tags -> 0) = 'string' AND jsonb_typeof(sl.request_tags -> 1) = 'string'
			ELSE NOT jsonb_path_exists(sl.request_tags, 'strict $[*] ? (@.type() != "string")') END)
		ELSE COALESCE(jsonb_typeof(sl.request_tags), 'null') = 'null' END)`
	}
	// A batch job's row is billed in the batch tier: the mapper tells it.
	batch := "TRUE"
	if f.s.spend["call_type"] {
		// lower keeps the number of characters: only 14 or 15 can match.
		batch = `(sl.call_type IS NULL OR length(sl.call_type) NOT IN (14, 15) OR lower(sl.call_type) NOT IN ('aretrieve_batch', 'retrieve_batch'))`
	}
	return "CASE WHEN " + strings.Join([]string{
		`sl.prompt_tokens IS NOT NULL AND sl.prompt_tokens >= 0`,
		`sl.completion_tokens IS NOT NULL AND sl.completion_tokens >= 0`,
		`sl.spend IS NOT NULL AND ` + plainSpend,
		`sl."startTime" >= '1970-01-01' AND sl."startTime" < '2262-01-01'`,
		status, first, end, total, hit, batch, tags, meta, f.tiersPlain(),
	}, "\n\tAND ") + "\n\tTHEN " + counts + " ELSE FALSE END"
}

// plainSpend says a spend is a number the readers read: a spend between
// 1e-40 and 1e40 has no decimal exponent beyond ±64 (17 digits at most),
// and none is odd; NaN compares above every number.
const plainSpend = `(sl.spend = 0 OR (sl.spend >= 1e-40 AND sl.spend < 1e40))`

// joinedKeyAlias is the alias the key tables hold; NULL when none.
func (f fragments) joinedKeyAlias() string {
	if f.keyTables() {
		return "k.key_alias"
	}
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

// joinedTeamAlias is the team table's alias; NULL when none.
func (f fragments) joinedTeamAlias() string {
	if f.s.teams == nil {
		return "NULL::text"
	}
	return "NULLIF(tt.team_alias, '')"
}

// keyOf is the hashed key of an api_key column: LiteLLM stores hashes,
// but a raw "sk-" key that reached the table is hashed as the readers do.
func (f fragments) keyOf(col string) string {
	return fmt.Sprintf(`(CASE WHEN %[1]s LIKE 'sk-%%' THEN encode(sha256(convert_to(%[1]s, 'UTF8')), 'hex') ELSE COALESCE(%[1]s, '') END)`, col)
}

// groupTeam is a summed group's team as the mapper picks a row's: the
// metadata's team alias, the team table's, the team id, the metadata's
// team id.
func (f fragments) groupTeam() string {
	joined := "NULL::text"
	if f.s.teams != nil {
		joined = "NULLIF(tt.team_alias, '')"
	}
	return fmt.Sprintf("COALESCE(g.team_alias, %s, NULLIF(g.team_id, ''), g.team_meta_id)", joined)
}

// joins are the LEFT JOINs that bring the key and team tables' aliases to
// rows or groups whose raw key and team id are the columns named.
func (f fragments) joins(keys, teams bool, keyCol, teamCol string) string {
	var b strings.Builder
	switch {
	case keys && f.keyTables():
		fmt.Fprintf(&b, "\nLEFT JOIN %s k ON k.token = %s", f.keyTable(), keyCol)
	case keys && f.s.keys != nil:
		fmt.Fprintf(&b, "\nLEFT JOIN \"LiteLLM_VerificationToken\" vt ON vt.token = %s", keyCol)
	case keys && f.s.deleted != nil:
		fmt.Fprintf(&b, "\nLEFT JOIN %s dvt ON dvt.token = %s", f.latestDeletions(), keyCol)
	}
	if teams && f.s.teams != nil && f.s.spend["team_id"] {
		fmt.Fprintf(&b, "\nLEFT JOIN \"LiteLLM_TeamTable\" tt ON tt.team_id = %s", teamCol)
	}
	return b.String()
}

// keyTables says both key tables are there: the query meets them in one
// join (keyTable), not one each.
func (f fragments) keyTables() bool { return f.s.keys != nil && f.s.deleted != nil }

// keyTable is a derived table of one row per token the key tables name:
// its alias (the key table's, else its latest deletion's; NULL when
// neither names one) and its metadata as text, each worked out once per
// key, not once per row of the spend logs. It has a row for each row of
// the key table and one for each token only the deleted keys name
// (latestDeletions gives one a token): a row of the spend logs meets as
// many of them as it met of the two tables joined one after the other.
func (f fragments) keyTable() string {
	meta := "NULL::text"
	if f.s.keys["metadata"] {
		meta = "vt.metadata::text"
	}
	return fmt.Sprintf(`(SELECT COALESCE(vt.token, dvt.token) AS token, COALESCE(NULLIF(vt.key_alias, ''), NULLIF(dvt.key_alias, '')) AS key_alias, %s AS metadata
	FROM "LiteLLM_VerificationToken" vt FULL JOIN %s dvt ON dvt.token = vt.token)`, meta, f.latestDeletions())
}

// latestDeletions is the deleted-key table, one row a token: a key can be
// deleted more than once (regenerated), its latest deletion names it, and
// the join must not repeat the row.
func (f fragments) latestDeletions() string {
	order := "token"
	if f.s.deleted["deleted_at"] {
		order = "token, deleted_at DESC"
	}
	return fmt.Sprintf(`(SELECT DISTINCT ON (token) token, key_alias FROM "LiteLLM_DeletedVerificationToken" ORDER BY %s)`, order)
}

// metadataJoins take the metadata's top level apart once per row, by one
// record function, into the jsonb columns m.* that the expressions above
// name. Metadata that is not an object gives NULL columns (and an odd
// row), never an error.
func (f fragments) metadataJoins() string {
	meta := "NULL::jsonb"
	if f.s.spend["metadata"] {
		meta = "sl.metadata"
	}
	return fmt.Sprintf(`
LEFT JOIN LATERAL jsonb_to_record(CASE WHEN jsonb_typeof(%[1]s) = 'object' THEN %[1]s END) AS m(additional_usage_values jsonb,
	user_api_key_alias jsonb, user_api_key_team_alias jsonb, user_api_key_team_id jsonb, model_map_information jsonb) ON TRUE`, meta)
}

// rowsFrom is the FROM clause of the summing query: the spend logs and
// their metadata members.
func (f fragments) rowsFrom() string {
	return `FROM "LiteLLM_SpendLogs" sl` + f.metadataJoins()
}

// from is the FROM clause of the row queries, with the joins that bring
// aliases.
func (f fragments) from(keys, teams bool) string {
	return `FROM "LiteLLM_SpendLogs" sl` + f.joins(keys, teams, "sl.api_key", "sl.team_id") + f.metadataJoins()
}

// inWindow is the predicate on "startTime" ($1, $2) that its index serves.
const inWindow = `WHERE sl."startTime" >= $1::timestamp AND sl."startTime" < $2::timestamp`

// rowColumns are the mapper's column names of the row queries, in order.
var rowColumns = []string{"request_id", "startTime", "endTime", "completionStartTime", "api_key", "spend",
	"prompt_tokens", "completion_tokens", "total_tokens", "cache_hit", "model", "model_group", "model_id", "custom_llm_provider", "user",
	"team_id", "status", "metadata", "key_alias", "team_alias", "api_base", "call_type", "request_tags", "key_metadata", "response",
	"proxy_server_request"}

// rowCols are the row queries' columns for rowColumns: the row as the
// mapper reads it, its metadata whole. A flat alias wins over the
// metadata's in the mapper: the key and team tables' aliases come only for
// a row whose metadata names none (a string or a number, not empty), as
// the summing query picks them (metaText, groupTeam).
func (f fragments) rowCols() []string {
	return []string{
		"sl.request_id::text",
		// Timestamps and integers as they are, in binary (binaryResults).
		`sl."startTime"`,
		f.col("endTime", "timestamp"),
		f.col("completionStartTime", "timestamp"),
		"sl.api_key::text",
		"sl.spend::text",
		"sl.prompt_tokens",
		"sl.completion_tokens",
		f.col("total_tokens", "integer"),
		f.col("cache_hit", "text") + "::text",
		f.col("model", "text") + "::text",
		f.col("model_group", "text") + "::text",
		f.col("model_id", "text") + "::text",
		f.col("custom_llm_provider", "text") + "::text",
		f.col("user", "text") + "::text",
		f.col("team_id", "text") + "::text",
		f.col("status", "text") + "::text",
		f.col("metadata", "jsonb") + "::text",
		f.unlessMeta(`'user_api_key_alias'`, f.joinedKeyAlias()),
		f.unlessMeta(`'user_api_key_team_alias'`, f.joinedTeamAlias()),
		f.col("api_base", "text") + "::text",
		f.col("call_type", "text") + "::text",
		f.col("request_tags", "jsonb") + "::text",
		f.keyMetadata(),
		"(" + f.storedTier("response") + ")::text",
		"(" + f.storedTier("proxy_server_request") + ")::text",
	}
}

// unlessMeta is joined, a key or team table's alias, for a row whose
// metadata has no label under member (a quoted SQL literal); NULL for one
// that has. The member is looked up in the row's metadata, not in the
// record the summing query takes apart (the row query has none), and only
// for a row the tables name.
func (f fragments) unlessMeta(member, joined string) string {
	if joined == "NULL::text" || !f.s.spend["metadata"] {
		return joined
	}
	return fmt.Sprintf("CASE WHEN %[2]s IS NULL THEN NULL WHEN %[1]s IS NULL THEN %[2]s END", f.metaText("(sl.metadata -> "+member+")"), joined)
}

// storedTier is, of a stored response or request (a jsonb column), an
// object of its service_tier alone, for the mapper: not the conversation
// the column may hold. NULL when the column is absent or names no tier.
// A member looked up in a value that is no object is NULL: the column's
// kind needs no test of its own, which would read (and, stored out of
// line, fetch and decompress) a large column once more.
func (f fragments) storedTier(col string) string {
	if !f.s.spend[col] {
		return "NULL::jsonb"
	}
	t := "sl." + q(col) + " -> 'service_tier'"
	return fmt.Sprintf(`CASE WHEN jsonb_typeof(%[1]s) = 'string' THEN jsonb_build_object('service_tier', %[1]s) END`, t)
}

// standardTiers are the names of the standard tier (ledger.ParseServiceTier).
const standardTiers = `('', 'default', 'auto', 'standard', 'standard_only', 'on_demand')`

// tiersPlain says a row's stored response and request name no tier but
// the standard one: a row that does goes to the mapper, which reads the
// tier that served it and the one asked for.
func (f fragments) tiersPlain() string {
	out := "TRUE"
	for _, col := range []string{"response", "proxy_server_request"} {
		if f.s.spend[col] {
			x := "sl." + q(col)
			// No test of the column's kind: see storedTier.
			out += fmt.Sprintf(` AND (jsonb_typeof(%[1]s -> 'service_tier') IS DISTINCT FROM 'string'
		OR lower(%[1]s ->> 'service_tier') IN %[2]s)`, x, standardTiers)
		}
	}
	return out
}

// keyMetadata is the key's metadata, as LiteLLM_VerificationToken holds
// it, as text; NULL when the key table has none. A deleted key's metadata
// is not kept.
func (f fragments) keyMetadata() string {
	switch {
	case f.s.keys == nil || !f.s.keys["metadata"]:
		return "NULL::text"
	case f.keyTables():
		return "k.metadata"
	}
	return "vt.metadata::text"
}

// rowQuery selects every row of the window ($1, $2) as text, as the
// mapper reads it: no plain-row test, no metadata taken apart. The server
// does little more than a COPY of the columns; the mapper's scanner reads
// the metadata, visiting only the members it needs.
func (f fragments) rowQuery() string {
	return fmt.Sprintf("SELECT %s\n%s\n%s", strings.Join(f.rowCols(), ",\n\t"), `FROM "LiteLLM_SpendLogs" sl`+f.joins(true, true, "sl.api_key", "sl.team_id"), inWindow)
}

// oddByIDQuery selects the odd rows of the window ($1, $2) whose request
// ids are among $3, as text: the summing query names them. The window and
// the test are checked again, so a request id that two rows share fetches
// only the odd one.
func (f fragments) oddByIDQuery() string {
	return fmt.Sprintf("SELECT %s\n%s\n%s AND sl.request_id = ANY($3::text[]) AND NOT (%s)", strings.Join(f.rowCols(), ",\n\t"),
		f.from(true, true), inWindow, f.ok())
}

// oddWindowQuery selects the odd rows of the window ($1, $2), as text.
func (f fragments) oddWindowQuery() string {
	return fmt.Sprintf("SELECT %s\n%s\n%s AND NOT (%s)", strings.Join(f.rowCols(), ",\n\t"), f.from(true, true), inWindow, f.ok())
}

// countSum is a metadata count for the summing query: NULL when absent,
// 0 when the table has no metadata. Sum it only over plain rows.
func (f fragments) countSum(x string) string {
	if !f.s.spend["metadata"] {
		return "0"
	}
	return countInt(x)
}

package postgres

import (
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

// aliasRows inserts calls whose key and team are named by the metadata,
// by the key, deleted-key and team tables, or by both: key hk1 is
// "table-key" in the key table, hk2 "gone-key" in the deleted keys' (its
// later deletion), team t1 "table-team" in the team table.
func aliasRows(t *testing.T, db *pgtest.DB) {
	db.Exec(t, `INSERT INTO "LiteLLM_VerificationToken" (token, key_alias) VALUES ('hk1', 'table-key');
		INSERT INTO "LiteLLM_DeletedVerificationToken" (id, token, key_alias, deleted_at) VALUES
			('d1', 'hk2', 'first-name', '2026-09-01'), ('d2', 'hk2', 'gone-key', '2026-09-20');
		INSERT INTO "LiteLLM_TeamTable" (team_id, team_alias) VALUES ('t1', 'table-team');
		INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, team_id, spend, prompt_tokens, completion_tokens,
			"startTime", "endTime", model, custom_llm_provider, status, metadata) VALUES
		('a1', 'acompletion', 'hk1', 't1', 0.001, 1000, 100, '2026-10-02 08:00:00', '2026-10-02 08:00:01', 'gpt-4o', 'openai', 'success',
			'{"user_api_key_alias": "meta-key", "user_api_key_team_alias": "meta-team"}'),
		('a2', 'acompletion', 'hk1', 't1', 0.001, 1000, 100, '2026-10-02 09:00:00', '2026-10-02 09:00:01', 'gpt-4o', 'openai', 'success',
			'{}'),
		('a3', 'acompletion', 'hk1', 't1', 0.001, 1000, 100, '2026-10-02 10:00:00', '2026-10-02 10:00:01', 'gpt-4o', 'openai', 'success',
			'{"user_api_key_alias": "", "user_api_key_team_alias": ""}'),
		('a4', 'acompletion', 'hk2', 't2', 0.001, 1000, 100, '2026-10-02 11:00:00', '2026-10-02 11:00:01', 'gpt-4o', 'openai', 'success',
			'{"user_api_key_team_id": "meta-tid"}'),
		('a5', 'acompletion', 'hk1', NULL, 0.001, 1000, 100, '2026-10-02 12:00:00', '2026-10-02 12:00:01', 'gpt-4o', 'openai', 'success',
			'{"user_api_key_alias": 42, "user_api_key_team_id": "meta-tid", "additional_usage_values":
				{"prompt_tokens_details": {"cached_tokens": 300}}}'),
		('a6', 'acompletion', 'hk1', 't1', 0.001, 1000, 100, '2026-10-02 13:00:00', '2026-10-02 13:00:01', 'gpt-4o', 'openai', 'success',
			'{"user_api_key_alias": null, "user_api_key_team_alias": ["not", "a", "label"]}')`)
}

// TestRowsAliases: row mode names each call's key and team as the summing
// query does: the metadata's label (a string or a number, not empty)
// first, then the key tables' and the team table's, then the team id
// column, then the metadata's team id.
func TestRowsAliases(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	aliasRows(t, db)
	calls, rejected := readDB(t, db.URL, Options{})
	if len(rejected) != 0 {
		t.Fatalf("rejected %v", rejected)
	}
	want := map[string]struct {
		key, team string
		cached    int64
	}{
		"a1": {"meta-key", "meta-team", 0},
		"a2": {"table-key", "table-team", 0},
		"a3": {"table-key", "table-team", 0},
		"a4": {"gone-key", "t2", 0},
		"a5": {"42", "meta-tid", 300},
		"a6": {"table-key", "table-team", 0},
	}
	if len(calls) != len(want) {
		t.Fatalf("%d calls, want %d", len(calls), len(want))
	}
	for _, c := range calls {
		w := want[c.RequestID]
		if c.KeyAlias != w.key || c.Team != w.team || c.Tokens.CacheRead != w.cached {
			t.Errorf("%s: key alias %q, team %q, cached %d; want %q, %q, %d", c.RequestID, c.KeyAlias, c.Team, c.Tokens.CacheRead, w.key, w.team, w.cached)
		}
	}
	since, until := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	pushDownEqualsRows(t, db.URL, "October", byAllDims(since, until), Options{Since: since, Until: until})
}

// keyTableRows inserts calls of keys the key table and the deleted keys'
// name in every combination: hk1 is "live-key" in the key table (with
// metadata) and "old-key" among the deleted (regenerated); hk3 has an
// empty alias in the key table and "gone-name" among the deleted; hk4 no
// alias in the key table and no deletion; hk5 was deleted twice, "second"
// the later; hk6 is in neither table. Call b1 names its key in its own
// metadata.
func keyTableRows(t *testing.T, db *pgtest.DB) {
	db.Exec(t, `INSERT INTO "LiteLLM_VerificationToken" (token, key_alias, metadata) VALUES
			('hk1', 'live-key', '{"cost_center": "ml"}'), ('hk3', '', '{}'), ('hk4', NULL, '{"tier": 2}');
		INSERT INTO "LiteLLM_DeletedVerificationToken" (id, token, key_alias, deleted_at) VALUES
			('d1', 'hk1', 'old-key', '2026-08-01'), ('d2', 'hk3', 'gone-name', '2026-08-02'),
			('d3', 'hk5', 'second', '2026-09-20'), ('d4', 'hk5', 'first', '2026-09-01');
		INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
			"startTime", "endTime", model, custom_llm_provider, status, metadata) VALUES
		('b1', 'acompletion', 'hk1', 0.001, 1000, 100, '2026-10-02 08:00:00', '2026-10-02 08:00:01', 'gpt-4o', 'openai', 'success',
			'{"user_api_key_alias": "meta-key"}'),
		('b2', 'acompletion', 'hk1', 0.001, 1000, 100, '2026-10-02 09:00:00', '2026-10-02 09:00:01', 'gpt-4o', 'openai', 'success', '{}'),
		('b3', 'acompletion', 'hk3', 0.001, 1000, 100, '2026-10-02 10:00:00', '2026-10-02 10:00:01', 'gpt-4o', 'openai', 'success', '{}'),
		('b4', 'acompletion', 'hk4', 0.001, 1000, 100, '2026-10-02 11:00:00', '2026-10-02 11:00:01', 'gpt-4o', 'openai', 'success', '{}'),
		('b5', 'acompletion', 'hk5', 0.001, 1000, 100, '2026-10-02 12:00:00', '2026-10-02 12:00:01', 'gpt-4o', 'openai', 'success', '{}'),
		('b6', 'acompletion', 'hk6', 0.001, 1000, 100, '2026-10-02 13:00:00', '2026-10-02 13:00:01', 'gpt-4o', 'openai', 'success', '{}')`)
}

// TestRowsKeyTables: row mode reads each key's alias and metadata from
// the key table and the deleted keys' as one join: the key table's alias
// first, then the latest deletion's, each call once, the summing query
// naming the keys alike.
func TestRowsKeyTables(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	keyTableRows(t, db)
	calls, rejected := readDB(t, db.URL, Options{})
	if len(rejected) != 0 {
		t.Fatalf("rejected %v", rejected)
	}
	want := map[string]struct{ alias, meta string }{
		"b1": {"meta-key", `{"cost_center": "ml"}`},
		"b2": {"live-key", `{"cost_center": "ml"}`},
		"b3": {"gone-name", `{}`},
		"b4": {"", `{"tier": 2}`},
		"b5": {"second", ""},
		"b6": {"", ""},
	}
	if len(calls) != len(want) {
		t.Fatalf("%d calls, want %d", len(calls), len(want))
	}
	for _, c := range calls {
		if w := want[c.RequestID]; c.KeyAlias != w.alias || c.KeyMeta != w.meta {
			t.Errorf("%s: key alias %q, key metadata %q; want %q, %q", c.RequestID, c.KeyAlias, c.KeyMeta, w.alias, w.meta)
		}
	}
	since, until := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	pushDownEqualsRows(t, db.URL, "October", byAllDims(since, until), Options{Since: since, Until: until})
}

package postgres

import (
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
)

// storedTierRows inserts calls whose stored response and request name
// service tiers (store_prompts_in_spend_logs): r1 asked for priority and
// was served at default, r2 has only its request stored (flex), r3 names
// no tier, r4 asked for flex and was served at flex; r5's stored response
// is an array and its request a string, neither an object naming a tier.
func storedTierRows(t *testing.T, db *pgtest.DB) {
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
			"startTime", "endTime", model, custom_llm_provider, status, response, proxy_server_request) VALUES
		('r1', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-02 08:00:00', '2026-10-02 08:00:01', 'gpt-4o', 'openai', 'success',
			'{"id":"c1","service_tier":"default"}', '{"model":"gpt-4o","service_tier":"priority","messages":[]}'),
		('r2', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-02 09:00:00', '2026-10-02 09:00:01', 'gpt-4o', 'openai', 'success',
			'{}', '{"service_tier":"flex"}'),
		('r3', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-02 10:00:00', '2026-10-02 10:00:01', 'gpt-4o', 'openai', 'success',
			'{"id":"c3","service_tier":"default"}', '{"messages":[{"content":"say \"service_tier\": \"flex\""}]}'),
		('r4', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-02 11:00:00', '2026-10-02 11:00:01', 'gpt-4o', 'openai', 'success',
			'{"service_tier":"flex"}', '{"service_tier":"flex"}'),
		('r5', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-02 12:00:00', '2026-10-02 12:00:01', 'gpt-4o', 'openai', 'success',
			'[{"service_tier":"flex"}]', '"service_tier"')`)
}

// TestStoredTiersFromDB reads the tiers of the stored response and
// request from the database as from its dump.
func TestStoredTiersFromDB(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	storedTierRows(t, db)
	calls, rejected := readDB(t, db.URL, Options{})
	if len(calls) != 5 || len(rejected) != 0 {
		t.Fatalf("%d calls, rejected %v; want 5", len(calls), rejected)
	}
	type tiers struct {
		served, asked ledger.ServiceTier
		source        ledger.TierSource
		isAsked       bool
	}
	want := map[string]tiers{
		"r1": {ledger.TierStandard, ledger.TierPriority, ledger.TierServed, true},
		"r2": {ledger.TierFlex, ledger.TierFlex, ledger.TierAsked, true},
		// Its response names the standard tier; its request none (the
		// "service_tier" in a message is not the request's).
		"r3": {ledger.TierStandard, ledger.TierStandard, ledger.TierServed, false},
		"r4": {ledger.TierFlex, ledger.TierFlex, ledger.TierServed, true},
		"r5": {ledger.TierStandard, ledger.TierStandard, ledger.TierNotLogged, false},
	}
	for _, c := range calls {
		got := tiers{c.ServiceTier, c.AskedTier, c.TierSource, c.Asked}
		if got != want[c.RequestID] {
			t.Errorf("%s: %+v, want %+v", c.RequestID, got, want[c.RequestID])
		}
	}
	since, until := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	pushDownEqualsRows(t, db.URL, "October", byAllDims(since, until), Options{Since: since, Until: until})
}

package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

// TestStoredTiers reconciles calls whose stored response and request
// name tiers, summed in the database and read row by row: the same
// figures, a priority request served at default priced at the standard
// tier and explained as tier_not_served, a flex request whose response
// was not stored priced at flex and explained as tier_as_requested; price
// says the same of each call.
func TestStoredTiers(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
			"startTime", "endTime", model, custom_llm_provider, status, response, proxy_server_request) VALUES
		('r1', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-02 08:00:00', '2026-10-02 08:00:01', 'gpt-4o', 'openai', 'success',
			'{"id":"c1","service_tier":"default"}', '{"model":"gpt-4o","service_tier":"priority"}'),
		('r2', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-02 09:00:00', '2026-10-02 09:00:01', 'gpt-4o', 'openai', 'success',
			'{}', '{"service_tier":"flex"}'),
		('r3', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-02 10:00:00', '2026-10-02 10:00:01', 'gpt-4o', 'openai', 'success',
			'{"service_tier":"default"}', '{}')`)
	code, summed, errs := runCLI(t, "", "reconcile", "--db", db.URL, "--push-down", "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, rows, _ := runCLI(t, "", "reconcile", "--db", db.URL, "--rows", "-o", "json"); rows != summed {
		t.Errorf("summed in the database:\n%s\nread row by row:\n%s", summed, rows)
	}
	var doc struct {
		Explanations []struct {
			Kind   string
			Calls  int64
			Detail string
		}
	}
	if err := json.Unmarshal([]byte(summed), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tier_not_served": "asked for the priority tier and were served at standard",
		"tier_as_requested": "priced at the flex tier they asked for"}
	for _, x := range doc.Explanations {
		if w, ok := want[x.Kind]; ok && x.Calls == 1 && strings.Contains(x.Detail, w) {
			delete(want, x.Kind)
		}
	}
	if len(want) > 0 {
		t.Errorf("explanations lack %v: %s", want, summed)
	}
	code, lines, errs := runCLI(t, "", "price", "--db", db.URL, "-o", "json")
	if code != exitOK {
		t.Fatalf("price: exit %d: %s", code, errs)
	}
	checkContains(t, "price", lines, `"request_id":"r1"`)
	for _, w := range []string{`"asked_tier":"priority"`, `"service_tier":"flex","tier_from":"request"`} {
		checkContains(t, "price", lines, w)
	}
}

package cli

import (
	"encoding/json"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/reports"
)

const tagCalls = "testdata/tags/calls.csv"

// tagLines runs chargeback and returns its lines' official cost and calls
// by the value of the one grouping asked for, and the gateway's official.
func tagLines(t *testing.T, args ...string) (map[string][2]string, string) {
	t.Helper()
	var doc struct {
		By      []string `json:"by"`
		Gateway struct{ Official string }
		Lines   []struct {
			Keys     map[string]string
			Calls    json.Number
			Official string
		}
	}
	runJSON(t, &doc, append([]string{"chargeback", "--month", "2026-10", "-o", "json"}, args...)...)
	out := map[string][2]string{}
	for _, l := range doc.Lines {
		out[l.Keys[doc.By[0]]] = [2]string{l.Official, l.Calls.String()}
	}
	return out, doc.Gateway.Official
}

// TestChargebackByTagAndMeta works the fixture's figures by hand. Every
// call is gpt-4o at 2.50 per 1M input and 10 per 1M output tokens:
//
//	r1 atlas, beta (and a User-Agent tag, left out): 1000 in, 100 out = 0.0035
//	r2 atlas: 3000 in = 0.0075
//	r3 no tag: 2000 in = 0.005
//	r4 atlas, beta, gamma: 1000 in = 0.0025
//
// A call of n tags is split evenly, the first tag taking what is left past
// 12 decimals: r4 gives beta and gamma 0.000833333333 each and atlas
// 0.0025 − 2 × 0.000833333333 = 0.000833333334. So atlas 0.00175 + 0.0075
// + 0.000833333334 = 0.010083333334, beta 0.00175 + 0.000833333333 =
// 0.002583333333, gamma 0.000833333333, no tag 0.005: 0.0185 in all, the
// gateway's. By the keys' cost centre: cc-1 (r1, r2) 0.011, cc-2 (r3)
// 0.005, none (r4) 0.0025.
func TestChargebackByTagAndMeta(t *testing.T) {
	tests := []struct {
		by   string
		want map[string][2]string
	}{
		{"tag", map[string][2]string{"atlas": {"0.010083333334", "3"}, "beta": {"0.002583333333", "2"},
			"gamma": {"0.000833333333", "1"}, "": {"0.005", "1"}}},
		{"meta:cost_center", map[string][2]string{"cc-1": {"0.011", "2"}, "cc-2": {"0.005", "1"}, "": {"0.0025", "1"}}},
		{"meta:project", map[string][2]string{"atlas": {"0.011", "2"}, "": {"0.0075", "2"}}},
	}
	for _, tc := range tests {
		t.Run(tc.by, func(t *testing.T) {
			got, gateway := tagLines(t, "--calls", tagCalls, "--by", tc.by)
			if gateway != "0.0185" {
				t.Errorf("gateway %s, want 0.0185", gateway)
			}
			if len(got) != len(tc.want) {
				t.Errorf("lines %v, want %v", got, tc.want)
			}
			for k, w := range tc.want {
				if got[k] != w {
					t.Errorf("%s %q: official and calls %v, want %v", tc.by, k, got[k], w)
				}
			}
		})
	}
}

// TestChargebackByTagFromDatabase: the same calls in LiteLLM's tables
// (request_tags on the spend logs, metadata on the key table) give the
// same lines, summed in the database or read row by row.
func TestChargebackByTagFromDatabase(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.Exec(t, `INSERT INTO "LiteLLM_VerificationToken" (token, key_alias, metadata) VALUES
		('k1', 'search-prod', '{"cost_center": "cc-1", "project": "atlas"}'), ('k2', 'ci-bot', '{"cost_center": "cc-2"}'), ('k3', NULL, '{}')`)
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens, "startTime", "endTime",
		model, custom_llm_provider, request_tags, status) VALUES
		('r1', 'acompletion', 'k1', 0.0035, 1000, 100, '2026-10-12 06:00:00', '2026-10-12 06:00:01', 'gpt-4o', 'openai', '["beta", "atlas", "User-Agent: python-httpx/0.27"]', 'success'),
		('r2', 'acompletion', 'k1', 0.0075, 3000, 0, '2026-10-12 07:00:00', '2026-10-12 07:00:01', 'gpt-4o', 'openai', '["atlas"]', 'success'),
		('r3', 'acompletion', 'k2', 0.005, 2000, 0, '2026-10-12 08:00:00', '2026-10-12 08:00:01', 'gpt-4o', 'openai', '[]', 'success'),
		('r4', 'acompletion', 'k3', 0.0025, 1000, 0, '2026-10-12 09:00:00', '2026-10-12 09:00:01', 'gpt-4o', 'openai', '["gamma", "beta", "atlas"]', 'success')`)
	for _, by := range []string{"tag", "meta:cost_center"} {
		want, _ := tagLines(t, "--calls", tagCalls, "--by", by)
		for _, src := range [][]string{{"--db", db.URL, "--push-down"}, {"--db", db.URL, "--rows"}} {
			got, gateway := tagLines(t, append(src, "--by", by)...)
			if gateway != "0.0185" {
				t.Errorf("%s %v: gateway %s, want 0.0185", by, src[2:], gateway)
			}
			if len(got) != len(want) {
				t.Errorf("%s %v: lines %v, want %v", by, src[2:], got, want)
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s %v %q: %v, want the file's %v", by, src[2:], k, got[k], w)
				}
			}
		}
	}
}

// TestReportBudgetByTag: a tag's budget takes the tag's split cost, as
// chargeback --by tag gives it: atlas 0.010083333334 of 0.02. The calls
// end on 2026-10-12, so October is partial: 12 of 31 days, and the month
// ends at 0.010083333334 × 31 ÷ 12 = 0.02604861111283..., 0.026049 to
// six decimals.
func TestReportBudgetByTag(t *testing.T) {
	f := reportWithBudgets(t, t.TempDir(), "budgets:\n  - tag: atlas\n    monthly: \"0.02\"\n", "--calls", tagCalls, "--month", "2026-10")
	sheet := reports.SheetBudget
	for _, c := range []struct{ col, want string }{
		{"Actual (official cost)", "0.010083333334"}, {"Remaining", "0.009916666666"}, {"Share used", "0.504167"},
		{"Projected month end", "0.026049"},
	} {
		if got := rawDecimal(t, f, sheet, column(t, f, sheet, c.col)+"3"); !got.Equal(round15(mustDecimal(t, c.want))) {
			t.Errorf("%s = %s, want %s", c.col, got, c.want)
		}
	}
}

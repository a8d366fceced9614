package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

// edgeRows are calls at the places where sums by minute or hour could part
// from calls priced one by one: a tariff version and a peak window that
// both end at 2026-09-10T04:00Z (calls starting before it, billed at their
// end on either side), prompts on both sides of a prompt-size tier bound
// in one minute, and days of a zone that leaves daylight saving time
// (Europe/Berlin, 2026-10-25 01:00Z) or is half an hour off UTC; and a
// call before 1970 and a spend of 1.5e-70, which the readers reject.
const edgeRows = `
INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
	"startTime", "endTime", model, model_group, metadata, team_id, "user", status) VALUES
 ('v-before', 'acompletion', 'k1', 0.001, 1000, 100, '2026-09-10 03:58:00', '2026-09-10 03:59:59.999', 'deepseek-v4-flash', 'flash', '{}', 't1', 'u1', 'success'),
 ('v-cross', 'acompletion', 'k1', 0.001, 1000, 100, '2026-09-10 03:59:30', '2026-09-10 04:00:10', 'deepseek-v4-flash', 'flash', '{}', 't1', 'u1', 'success'),
 ('v-after', 'acompletion', 'k2', 0.001, 1000, 100, '2026-09-10 04:00:00', '2026-09-10 04:00:00', 'deepseek-v4-flash', 'flash', '{}', 't2', 'u2', 'success'),
 ('v-hour', 'acompletion', 'k2', 0.001, 3000, 100, '2026-09-10 03:10:00', '2026-09-10 03:10:01', 'deepseek-v4-flash', 'flash', '{}', 't2', 'u2', 'success'),
 ('tier-at', 'acompletion', 'k1', 0.6, 200000, 10, '2026-10-12 09:00:00', '2026-10-12 09:00:05', 'claude-sonnet-4-5', 'sonnet', '{}', 't1', 'u1', 'success'),
 ('tier-above', 'acompletion', 'k1', 0.6, 200001, 10, '2026-10-12 09:00:10', '2026-10-12 09:00:15', 'claude-sonnet-4-5', 'sonnet', '{}', 't1', 'u1', 'success'),
 ('tier-cached', 'acompletion', 'k2', 0.6, 200001, 10, '2026-10-12 09:00:20', '2026-10-12 09:00:25', 'claude-sonnet-4-5', 'sonnet',
	'{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 150000}}}', 't2', 'u2', 'success'),
 ('dst-cest', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-24 22:20:00', '2026-10-24 22:30:00', 'deepseek-flash', 'flash', '{}', 't1', 'u1', 'success'),
 ('dst-before', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-25 00:59:00', '2026-10-25 00:59:59', 'deepseek-flash', 'flash', '{}', 't1', 'u1', 'success'),
 ('dst-after', 'acompletion', 'k2', 0.001, 1000, 100, '2026-10-25 01:00:00', '2026-10-25 01:00:01', 'deepseek-flash', 'flash', '{}', 't2', 'u2', 'success'),
 ('dst-cet', 'acompletion', 'k2', 0.001, 1000, 100, '2026-10-25 22:59:00', '2026-10-25 23:00:30', 'deepseek-flash', 'flash', '{}', 't2', 'u2', 'success'),
 ('half-hour', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-13 18:29:00', '2026-10-13 18:30:30', 'deepseek-flash', 'flash', '{}', 't1', 'u1', 'success'),
 ('before-1970', 'acompletion', 'k1', 0.5, 1000, 100, '1969-12-31 23:00:00', '1969-12-31 23:00:01', 'deepseek-flash', 'flash', '{}', 't1', 'u1', 'success'),
 ('tiny-spend', 'acompletion', 'k1', 1.5e-70, 1000, 100, '2026-11-16 08:00:00', '2026-11-16 08:00:01', 'deepseek-flash', 'flash', '{}', 't1', 'u1', 'success')`

// TestDBEqualsCallsAtEdges prices the edge rows from the database, summed
// and row by row, and from the table's export: the same results to the
// last digit, without falling back to rows.
func TestDBEqualsCallsAtEdges(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.Exec(t, edgeRows)
	export := db.Export(t)
	by := []string{"--by", "model,key,team,user,day,period,version", "-o", "json"}
	tests := []struct {
		name string
		args []string
		want []string // in every output: the edge was met
	}{
		// Per 1M tokens, peak 0.44 / 1.32 before the change, off-peak 0.15 /
		// 0.60 after it. v-before: 1000 × 0.44 + 100 × 1.32 = 0.000572;
		// v-cross and v-after: 1000 × 0.15 + 100 × 0.60 = 0.00021 each;
		// v-hour: 3000 × 0.44 + 100 × 1.32 = 0.001452.
		{"version change", append([]string{"reconcile", "--month", "2026-09", "--tz", "Asia/Shanghai"}, by...),
			[]string{`"official": "0.000572"`, `"official": "0.00021"`, `"official": "0.001452"`}},
		// Sonnet 4.5: 3 / 15 per 1M, and 6 / 0.6 (cache read) / 22.5 for a
		// prompt above 200000. k1: 200000 × 3 + 10 × 15 = 0.60015, and
		// 200001 × 6 + 10 × 22.5 = 1.200231: 1.800381. k2: 50001 × 6 +
		// 150000 × 0.6 + 10 × 22.5 = 0.300006 + 0.09 + 0.000225 = 0.390231.
		{"tier", append([]string{"reconcile", "--since", "2026-10-12", "--until", "2026-10-13"}, by...),
			[]string{`"official": "1.800381"`, `"official": "0.390231"`}},
		// 2026-10-25 is 25 hours long in Berlin: 23:00:30Z is 00:00:30 on the 26th.
		{"daylight saving", append([]string{"reconcile", "--month", "2026-10", "--tz", "Europe/Berlin"}, by...),
			[]string{`"day": "2026-10-25"`, `"day": "2026-10-26"`}},
		// 18:30:30Z is 00:00:30 on the 14th in India.
		{"half-hour zone", append([]string{"reconcile", "--month", "2026-10", "--tz", "Asia/Kolkata"}, by...),
			[]string{`"day": "2026-10-14"`}},
		{"chargeback", []string{"chargeback", "--month", "2026-09", "--by", "key,team,user,model", "-o", "json"}, nil},
		// The whole table: the rows before 1970 and with a spend of
		// 1.5e-70 are rejected, whether the database sums or sends rows.
		{"whole table", []string{"reconcile", "--by", "model,key", "-o", "json"}, []string{`"rejected": 2`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, want, stderr := runCLI(t, "", append(tt.args, "--calls", export)...)
			if code != exitOK {
				t.Fatalf("--calls: exit %d: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(want, w) {
					t.Errorf("--calls output lacks %s:\n%s", w, want)
				}
			}
			for _, mode := range []string{"summed", "--rows"} {
				src := []string{"--db", db.URL, "--push-down"}
				if mode == "--rows" {
					src[2] = mode
				}
				code, got, stderr := runCLI(t, "", append(tt.args, src...)...)
				if code != exitOK {
					t.Fatalf("--db %s: exit %d: %s", mode, code, stderr)
				}
				if strings.Contains(stderr, "not exact") {
					t.Errorf("--db %s: the sums fell back to rows: %s", mode, stderr)
				}
				if got, want := dropRows(got), dropRows(want); got != want {
					t.Errorf("--db %s differs from --calls:\n%s", mode, firstLineDiff(got, want))
				}
			}
		})
	}
	t.Run("focus", func(t *testing.T) {
		dir := t.TempDir()
		files := map[string]string{}
		for _, src := range [][]string{{"--calls", export}, {"--db", db.URL}} {
			path := filepath.Join(dir, src[0][2:]+".csv")
			code, _, stderr := runCLI(t, "", "report", src[0], src[1], "--month", "2026-10", "--tz", "Europe/Berlin", "--focus", path)
			if code != exitOK {
				t.Fatalf("%s: exit %d: %s", src[0], code, stderr)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files[src[0]] = string(b)
		}
		if files["--db"] != files["--calls"] {
			t.Errorf("FOCUS from --db differs from --calls:\n%s", firstLineDiff(files["--db"], files["--calls"]))
		}
	})
}

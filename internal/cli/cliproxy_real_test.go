package cli

import (
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"
)

// TestReconcileRealCLIProxyRecords reconciles the 27 usage-queue records a
// real CLIProxyAPI v7.2.99 wrote (testdata/cliproxy-real): every row is
// accounted for, each model's official cost is the sum of its calls' worked
// by hand (per 1M tokens; buckets uncached / read / write / output):
//
//	claude-sonnet-4-6 (3 / 0.30 / 3.75 / 15): 1204/30000/0/812 24792,
//	  18/0/4096/250 19164, 25/20000/1500/995 26625, 3100/0/0/420 15600
//	  → 86181 → 0.086181
//	gemini-3.1-pro (2 / 0.20 / 12; above 200K 4 / 18): 4648/8192/0/2176
//	  37046.4 twice, 250000/0/0/3000 1054000 → 1128092.8 → 1.1280928
//	gpt-5.4 (2.50 / 0.25 / 15): 4608/19968/0/1830 43962 twice,
//	  5400/0/0/700 24000 → 111924 → 0.111924
//	deepseek-v4-pro off-peak (0.66 / 0.022 / 1.98): 2600/6400/0/1200
//	  4232.8 twice (the retried request's success and another) → 0.0084656
//	openrouter-claude-sonnet-4-6 (3 / 0.30 / 3.75 / 15): 200/0/5800/150
//	  24600, 2600/6400/0/1200 27720 → 0.05232
//
// and the calls no list prices are unpriced by their host: groq's by host,
// OpenRouter's DeepSeek by model (OpenRouter's list has none).
func TestReconcileRealCLIProxyRecords(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "reconcile", "--calls", "../../testdata/cliproxy-real/usage-queue-v7.2.99.jsonl", "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Rows         map[string]int
		Explanations []struct {
			Kind, Model, Host string
			Calls             int
			Amount            string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	wantRows := map[string]int{"read": 27, "priced": 17, "unpriced": 3, "retired": 1, "failed": 6}
	for k, n := range wantRows {
		if got.Rows[k] != n {
			t.Errorf("rows.%s = %d, want %d (rows %v)", k, got.Rows[k], n, got.Rows)
		}
	}
	type key struct{ kind, name string }
	want := map[key]struct {
		calls  int
		amount string
	}{
		{"not_recorded", "claude-sonnet-4-6"}:            {4, "0.086181"},
		{"not_recorded", "gemini-3.1-pro"}:               {3, "1.1280928"},
		{"not_recorded", "gpt-5.4"}:                      {3, "0.111924"},
		{"not_recorded", "deepseek-v4-pro"}:              {2, "0.0084656"},
		{"not_recorded", "openrouter-claude-sonnet-4-6"}: {2, "0.05232"},
		{"unpriced_host", "groq"}:                        {1, "0"},
		{"unpriced_model", "deepseek/deepseek-v4-pro"}:   {2, "0"},
	}
	for _, e := range got.Explanations {
		name := e.Model
		if e.Kind == "unpriced_host" {
			name = e.Host
		}
		w, ok := want[key{e.Kind, name}]
		if !ok {
			continue
		}
		delete(want, key{e.Kind, name})
		if e.Calls != w.calls || !decimal.RequireFromString(e.Amount).Equal(decimal.RequireFromString(w.amount)) {
			t.Errorf("%s %s: %d calls, %s; want %d, %s", e.Kind, name, e.Calls, e.Amount, w.calls, w.amount)
		}
	}
	for k := range want {
		t.Errorf("no %s explanation for %s", k.kind, k.name)
	}
}

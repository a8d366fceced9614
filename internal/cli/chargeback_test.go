package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestChargebackBlendIsHistorical charges back a month that holds a tariff
// change: the blended prices are blend --historical's, each call at the
// tariff of its own instant, so that the subsidies add up to zero.
func TestChargebackBlendIsHistorical(t *testing.T) {
	calls := filepath.Join(t.TempDir(), "calls.csv")
	// alpha: Monday 2026-09-07 10:00 Beijing, peak, before the 2026-09-10
	// change: 1M input × 0.44 + 0.5M output × 1.32 = 0.44 + 0.66 = 1.10.
	// beta: Monday 2026-09-21 20:00 Beijing, off-peak, after it: 1M input ×
	// 0.15 + 0.5M output × 0.60 = 0.15 + 0.30 = 0.45.
	err := os.WriteFile(calls, []byte(`request_id,start,end,key,key_alias,model,recorded_spend,input_tokens,output_tokens,reasoning_tokens
a-1,2026-09-07T01:59:58Z,2026-09-07T02:00:00Z,sk-alpha,alpha,deepseek-v4-flash,0.5,1000000,500000,100000
b-1,2026-09-21T11:59:58Z,2026-09-21T12:00:00Z,sk-beta,beta,deepseek-v4-flash,0.5,1000000,500000,0
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	// Historical blend: input (0.44 + 0.15) / 2M tokens = 0.295 per 1M,
	// output (0.66 + 0.30) / 1M tokens = 0.96 per 1M. Each key at blended:
	// 1M × 0.295 + 0.5M × 0.96 = 0.295 + 0.48 = 0.775. (At the tariff of
	// the month's end, plain blend's 0.225 and 0.9, each would be 0.675:
	// 1.35 for an official 1.55.)
	blended := blendedPrices(t, "--calls", calls, "--month", "2026-09", "--historical")
	if blended["deepseek-v4-flash/input"] != "0.295" || blended["deepseek-v4-flash/output"] != "0.96" {
		t.Fatalf("blend --historical prices %v, want input 0.295, output 0.96", blended)
	}
	code, out, errOut := runCLI(t, "", "chargeback", "--calls", calls, "--month", "2026-09", "-o", "json")
	if code != exitOK {
		t.Fatalf("chargeback exit %d: %s", code, errOut)
	}
	type line struct {
		Keys      map[string]string `json:"keys"`
		Official  string            `json:"official"`
		AtBlended string            `json:"at_blended"`
		Subsidy   string            `json:"subsidy"`
	}
	var cb struct {
		Gateway line   `json:"gateway"`
		Lines   []line `json:"lines"`
	}
	if err := json.Unmarshal([]byte(out), &cb); err != nil {
		t.Fatal(err)
	}
	want := map[string][3]string{"alpha": {"1.1", "0.775", "-0.325"}, "beta": {"0.45", "0.775", "0.325"}}
	if len(cb.Lines) != 2 {
		t.Fatalf("%d lines, want 2", len(cb.Lines))
	}
	for _, l := range cb.Lines {
		w := want[l.Keys["key_alias"]]
		if [3]string{l.Official, l.AtBlended, l.Subsidy} != w {
			t.Errorf("%s: official %s, at blended %s, subsidy %s; want %v", l.Keys["key_alias"], l.Official, l.AtBlended, l.Subsidy, w)
		}
	}
	// 0.775 + 0.775 = 1.55 = 1.10 + 0.45: the subsidies cancel.
	if cb.Gateway.Official != "1.55" || cb.Gateway.AtBlended != "1.55" || cb.Gateway.Subsidy != "0" {
		t.Errorf("gateway official %s, at blended %s, subsidy %s; want 1.55, 1.55, 0", cb.Gateway.Official, cb.Gateway.AtBlended, cb.Gateway.Subsidy)
	}
}

// TestChargebackByKeyAndDay charges back by key and day: a line per key
// and day with calls, each day's official cost its own.
func TestChargebackByKeyAndDay(t *testing.T) {
	calls := filepath.Join(t.TempDir(), "calls.csv")
	// Off-peak Saturday and Sunday calls (2026-09-19 and 20, 20:00 Beijing,
	// after the 2026-09-10 change), 1M input × 0.15 + 0.5M output × 0.60 =
	// 0.15 + 0.30 = 0.45 each; alpha
	// has two on Saturday (0.90) and one on Sunday (0.45), beta one on
	// Sunday (0.45).
	err := os.WriteFile(calls, []byte(`request_id,start,end,key,key_alias,model,recorded_spend,input_tokens,output_tokens
a-1,2026-09-19T11:59:58Z,2026-09-19T12:00:00Z,sk-alpha,alpha,deepseek-v4-flash,0.5,1000000,500000
a-2,2026-09-19T12:59:58Z,2026-09-19T13:00:00Z,sk-alpha,alpha,deepseek-v4-flash,0.5,1000000,500000
a-3,2026-09-20T11:59:58Z,2026-09-20T12:00:00Z,sk-alpha,alpha,deepseek-v4-flash,0.5,1000000,500000
b-1,2026-09-20T11:59:58Z,2026-09-20T12:00:00Z,sk-beta,beta,deepseek-v4-flash,0.5,1000000,500000
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "chargeback", "--calls", calls, "--month", "2026-09", "--by", "key,day", "-o", "json")
	if code != exitOK {
		t.Fatalf("chargeback --by key,day exit %d: %s", code, errOut)
	}
	var cb struct {
		Lines []struct {
			Keys     map[string]string `json:"keys"`
			Calls    int64             `json:"calls"`
			Official string            `json:"official"`
		} `json:"lines"`
	}
	if err := json.Unmarshal([]byte(out), &cb); err != nil {
		t.Fatal(err)
	}
	type line struct {
		calls    int64
		official string
	}
	want := map[[2]string]line{
		{"alpha", "2026-09-19"}: {2, "0.9"},
		{"alpha", "2026-09-20"}: {1, "0.45"},
		{"beta", "2026-09-20"}:  {1, "0.45"},
	}
	if len(cb.Lines) != len(want) {
		t.Fatalf("%d lines, want %d: %s", len(cb.Lines), len(want), out)
	}
	for _, l := range cb.Lines {
		k := [2]string{l.Keys["key_alias"], l.Keys["day"]}
		if got := (line{l.Calls, l.Official}); got != want[k] {
			t.Errorf("%v: %+v, want %+v", k, got, want[k])
		}
	}
}

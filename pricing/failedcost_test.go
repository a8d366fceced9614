package pricing

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// failedTariff prices model m at 2 per million input and 8 per million
// output tokens, with the failed-call policy given.
func failedTariff(provider, policy string) string {
	s := "provider: " + provider + "\ncurrency: USD\ntimezone: UTC\nbilling_time: end\n" +
		"sources:\n  - {url: https://example.com/" + provider + ", kind: official, checked: 2026-11-30}\n"
	if policy != "" {
		s += "failed_calls: {billing: " + policy + ", source: https://example.com/" + provider + "}\n"
	}
	return s + "models:\n  - id: " + provider + "-m\n    names: [" + provider + "-m]\n" +
		"versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {" + provider + "-m: {standard: {input: 2, output: 8}}}\n"
}

func TestFailedCost(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"billed.yaml":  failedTariff("billed", "billed_reported_tokens"),
		"stated.yaml":  failedTariff("stated", "not_billed"),
		"default.yaml": failedTariff("default", ""),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, ps := tariffs.Load(dir)
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	tests := []struct {
		name   string
		model  string
		status ledger.Status
		billed bool
		want   string
	}{
		// 1,000 input at 2/M = 0.002; 250 output at 8/M = 0.002; 0.004 in all.
		{name: "billed failed call", model: "billed-m", status: ledger.StatusFailure, billed: true, want: "0.004"},
		{name: "billed provider, successful call", model: "billed-m", status: ledger.StatusSuccess, want: "0"},
		{name: "stated not billed", model: "stated-m", status: ledger.StatusFailure, want: "0"},
		{name: "default not billed", model: "default-m", status: ledger.StatusFailure, want: "0"},
		{name: "unknown model", model: "nobody-m", status: ledger.StatusFailure, want: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(cat, Options{})
			end := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
			c := ledger.Call{RequestID: "r", Identity: "r", Gateway: ledger.CLIProxy, Start: end.Add(-time.Second), End: end,
				Model: tt.model, Status: tt.status, Tokens: ledger.Tokens{Input: 1000, Output: 250}}
			pc := e.AddPriced(&c)
			got, billed := pc.FailedCost(&c)
			if billed != tt.billed || !got.Equal(dec(tt.want)) {
				t.Errorf("failed cost = %s, billed %t; want %s, %t", got, billed, tt.want, tt.billed)
			}
			if tt.status == ledger.StatusFailure && e.Rows().Failed != 1 {
				t.Errorf("rows %+v, want the call counted failed", e.Rows())
			}
		})
	}
}

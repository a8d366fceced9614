package provider

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestAnthropicContextWindow: a usage or cost row's context_window is read
// as a prompt size in its tariff tier: "200k-1M" above 200,000 tokens,
// "0-200k" and none the base tier.
func TestAnthropicContextWindow(t *testing.T) {
	tests := []struct {
		name   string
		result string
		want   int64
	}{
		{"usage, long window", `{"uncached_input_tokens": 1, "output_tokens": 1, "model": "m", "context_window": "200k-1M"}`, 200_001},
		{"usage, base window", `{"uncached_input_tokens": 1, "output_tokens": 1, "model": "m", "context_window": "0-200k"}`, 0},
		{"usage, not grouped by window", `{"uncached_input_tokens": 1, "output_tokens": 1, "model": "m"}`, 0},
		{"cost, long window", `{"currency": "USD", "amount": "1", "cost_type": "tokens", "model": "m", "token_type": "output_tokens", "context_window": "200k-1M"}`, 200_001},
		{"cost, null window", `{"currency": "USD", "amount": "1", "cost_type": "web_search", "model": "m", "context_window": null}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := `{"data": [{"starting_at": "2026-10-12T00:00:00Z", "ending_at": "2026-10-13T00:00:00Z", "results": [` + tt.result + `]}], "has_more": false, "next_page": null}`
			x, err := Read(context.Background(), "page.json", strings.NewReader(page))
			if err != nil {
				t.Fatal(err)
			}
			if len(x.Rows) != 1 || x.Rows[0].PromptSize != tt.want {
				t.Fatalf("rows %+v, want one with prompt size %d", x.Rows, tt.want)
			}
			if got := ThreeWayRows([]*Export{x})[0].PromptSize; got != tt.want {
				t.Errorf("three-way row's prompt size %d, want %d", got, tt.want)
			}
		})
	}
}

// TestThreeWayRows: every row of every export, in order, with its
// provider named by its format and its billing by HasBilled and Split.
func TestThreeWayRows(t *testing.T) {
	var exports []*Export
	for _, f := range []string{"openai-usage.jsonl", "openai-costs.json", "deepseek-usage.csv"} {
		exports = append(exports, readFixture(t, f))
	}
	rows := ThreeWayRows(exports)
	// 1 OpenAI usage row, 3 OpenAI cost rows (each one usage type), and
	// DeepSeek's two hours: the first carries amounts by usage type and in
	// total (split), the second by usage type.
	want := []struct {
		provider string
		billing  threeway.Billing
		where    string
	}{
		{"openai", threeway.NotBilled, "openai-usage.jsonl: page 1 data[0].results[0]"},
		{"openai", threeway.BilledByUsage, "openai-costs.json: data[0].results[0]"},
		{"openai", threeway.BilledByUsage, "openai-costs.json: data[0].results[1]"},
		{"openai", threeway.BilledByUsage, "openai-costs.json: data[0].results[2]"},
		{"deepseek", threeway.BilledByUsage, "deepseek-usage.csv:2"},
		{"deepseek", threeway.BilledByUsage, "deepseek-usage.csv:3"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		r := rows[i]
		if where := strings.TrimPrefix(r.Where, fixtures+"/"); r.Provider != w.provider || r.Billing != w.billing || where != w.where {
			t.Errorf("row %d: %s, %s, %q; want %s, %s, %q", i, r.Provider, r.Billing, where, w.provider, w.billing, w.where)
		}
	}
	// The usage row's quantities and the first DeepSeek hour's amounts come
	// across as read.
	if u := rows[0]; u.Qty[tariffs.Input] != 4000 || u.Qty[tariffs.Request] != 3 || !u.HasTokens || !u.HasRequests {
		t.Errorf("usage row %+v: want 4000 input, 3 requests, tokens and requests", u)
	}
	if d := rows[4]; !d.Billed.Equal(dec("0.000906")) || !d.ByUsage[tariffs.Output].Equal(dec("0.0006")) || d.Currency != "USD" || d.Key == "" {
		t.Errorf("deepseek row %+v: want billed 0.000906, output 0.0006, USD, a key", d)
	}
}

// TestThreeWayRowsInTotal: a row billed in one amount (DeepSeek's amount
// column alone) is billed in total.
func TestThreeWayRowsInTotal(t *testing.T) {
	x, err := Read(context.Background(), "deepseek.csv", strings.NewReader(
		"time,model,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens,amount,currency\n2026-10-12T12:00:00Z,deepseek-flash,0,3000,150,0.00054,USD\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := ThreeWayRows([]*Export{x})[0]; r.Billing != threeway.BilledInTotal || !r.Billed.Equal(dec("0.00054")) {
		t.Errorf("row billed %s %s, want billed in total 0.00054", r.Billing, r.Billed)
	}
}

func readFixture(t *testing.T, name string) *Export {
	t.Helper()
	x, err := ReadFile(context.Background(), filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

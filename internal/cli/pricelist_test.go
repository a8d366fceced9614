package cli

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
)

const priceListCalls = "testdata/pricelist/calls.csv"

// TestPriceList prices the same two calls, one to DeepSeek and one to
// OpenAI, with and without DeepSeek's CNY list. Both end on Tuesday
// 2026-10-13 at 10:00 Beijing, in DeepSeek's peak hours:
//   - deepseek-flash, 1,000,000 input and 500,000 output tokens:
//     USD 1 × 0.30 + 0.5 × 1.20 = 0.90; CNY 1 × 2 + 0.5 × 8 = 6.
//   - gpt-4o, 1,000,000 input and 100,000 output tokens: USD 1 × 2.50 +
//     0.1 × 10 = 3.50, whatever DeepSeek's list.
//
// With the CNY list the total adds 6 CNY and 3.50 USD: the report must say
// so instead of showing 9.5 as if it were one currency.
func TestPriceList(t *testing.T) {
	tests := []struct {
		name                string
		args                []string
		currency, deepseek  string
		official, warning   string
		deepseekCur, gptCur string
	}{
		{"USD list by default", nil, "USD", "0.9", "4.4", "", "USD", "USD"},
		{"CNY list chosen", []string{"--price-list", "deepseek=cny"}, "CNY+USD", "6", "9.5",
			"warning: totals add up amounts in different currencies (CNY+USD); read them by model", "CNY", "USD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"reconcile", "--calls", priceListCalls, "-o", "json"}, tt.args...)
			code, out, errs := runCLI(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var doc struct {
				Currency string `json:"currency"`
				Totals   struct {
					Official string `json:"official"`
				} `json:"totals"`
				Groups []struct {
					Keys     map[string]string `json:"keys"`
					Official string            `json:"official"`
				} `json:"groups"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Currency != tt.currency {
				t.Errorf("currency %q, want %q", doc.Currency, tt.currency)
			}
			if got := mustDecimal(t, doc.Totals.Official); !got.Equal(mustDecimal(t, tt.official)) {
				t.Errorf("official total %s, want %s", got, tt.official)
			}
			byModel := map[string]string{}
			for _, g := range doc.Groups {
				byModel[g.Keys["model"]] = g.Official
			}
			if got := mustDecimal(t, byModel["deepseek-flash"]); !got.Equal(mustDecimal(t, tt.deepseek)) {
				t.Errorf("deepseek-flash official %s, want %s", got, tt.deepseek)
			}
			if got := mustDecimal(t, byModel["gpt-4o"]); !got.Equal(mustDecimal(t, "3.5")) {
				t.Errorf("gpt-4o official %s, want 3.5", got)
			}
			if tt.warning != "" {
				checkContains(t, "stderr", errs, tt.warning)
			}
		})
	}

	// CSV names each group's currency, so a script cannot add them up unawares.
	code, out, errs := runCLI(t, "", "reconcile", "--calls", priceListCalls, "--price-list", "deepseek=cny", "-o", "csv")
	if code != exitOK {
		t.Fatalf("csv: exit %d: %s", code, errs)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("csv: %d rows, %v:\n%s", len(rows), err, out)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	want := map[string][2]string{"deepseek-flash": {"6", "CNY"}, "gpt-4o": {"3.5", "USD"}}
	for _, r := range rows[1:] {
		w, ok := want[r[col["model"]]]
		if !ok || r[col["official"]] != w[0] || r[col["currency"]] != w[1] {
			t.Errorf("csv row %v: want official and currency %v", r, w)
		}
	}
}

func TestPriceListErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"unknown list", []string{"reconcile", "--calls", priceListCalls, "--price-list", "deepseek=eur"}, exitUsage, anyOutput,
			"--price-list: no price list deepseek=eur in the catalog (there are: deepseek=cny)"},
		{"not PROVIDER=LIST", []string{"tariffs", "list", "--price-list", "cny"}, exitUsage, anyOutput, `price list "cny" is not PROVIDER=LIST`},
		{"one provider, two lists", []string{"tariffs", "list", "--price-list", "deepseek=cny", "--price-list", "deepseek=cny"}, exitUsage, anyOutput,
			"provider deepseek is given two lists"},
		{"validate checks the catalog with the list", []string{"tariffs", "validate", "--price-list", "deepseek=cny", "--strict"}, exitOK, "ok: ", anyOutput},
		{"the list shows in tariffs list", []string{"tariffs", "list", "--price-list", "deepseek=cny", "-o", "csv"}, exitOK,
			"deepseek-flash deepseek/deepseek-flash,deepseek,CNY", anyOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tt.code, errs)
			}
			checkContains(t, "stdout", out, tt.stdout)
			checkContains(t, "stderr", errs, tt.stderr)
		})
	}
}

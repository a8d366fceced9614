package budgets_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/budgets"
	"github.com/tokenfare/tokenfare/pricing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // every error, as file:line: message prefixes; none: valid
	}{
		{name: "valid", text: "currency: USD\nbudgets:\n  - team: search\n    monthly: \"1500.10\"\n  - key: search-prod\n    monthly: 300\n"},
		{name: "every problem at once", text: "currency: usd\nbudgets:\n  - team: search\n    monthly: -3\n  - key: k\n    team: t\n    monthly: 1\n  - team: x\n    monthly: 1e3x\n  - team: search\n    monthly: 2\n  - team: y\n    weekly: 2\n",
			want: []string{
				`b.yaml:1: currency "usd" is not a three-letter code`,
				`b.yaml:4: monthly -3 is not above zero`,
				`b.yaml:5: the budget names more than one team, key or tag`,
				`b.yaml:9: monthly "1e3x" is not a decimal amount`,
				`b.yaml:13: unknown field "weekly"`,
				`b.yaml:12: the budget has no monthly amount`,
			}},
		{name: "a team twice", text: "budgets:\n  - team: search\n    monthly: 1\n  - team: search\n    monthly: 2\n",
			want: []string{`b.yaml:4: team "search" has a budget already, at line 2`}},
		{name: "no list", text: "currency: USD\n", want: []string{"b.yaml:1: no budgets list"}},
		{name: "empty", text: "", want: []string{"b.yaml: the file is empty"}},
		{name: "a budget for no one", text: "budgets:\n  - monthly: 5\n", want: []string{"b.yaml:2: the budget names no team, key or tag"}},
		// Bounded as the call logs bound a spend: exponents within ±64, 40 digits.
		{name: "amounts out of range", text: "budgets:\n  - team: a\n    monthly: 1e999999999\n  - team: b\n    monthly: 1e-65\n  - team: c\n    monthly: 1" + strings.Repeat("0", 60) + "\n  - team: d\n    monthly: 1e64\n",
			want: []string{
				`b.yaml:3: monthly "1e999999999" is out of range`,
				`b.yaml:5: monthly "1e-65" is out of range`,
				`b.yaml:7: monthly "1000000000000000000000000000000000000000" is out of range`,
			}},
		{name: "not yaml", text: "budgets: [\n", want: []string{"b.yaml: "}},
		// 1e999999999 made report run for over 30 minutes, growing past 2 GiB.
		{name: "numbers beyond the bound of every number read", text: "budgets:\n  - team: a\n    monthly: 1e999999999\n  - team: b\n    monthly: \"1e65\"\n  - team: c\n    monthly: " + strings.Repeat("9", 41) + "\n",
			want: []string{
				`b.yaml:3: monthly "1e999999999" is out of range: exponents run from -64 to 64`,
				`b.yaml:5: monthly "1e65" is out of range: exponents run from -64 to 64`,
				`b.yaml:7: monthly "` + strings.Repeat("9", 40) + `" is out of range: a number has at most 128 characters and 40 significant digits`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := budgets.Parse("b.yaml", []byte(tc.text))
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if len(plan.Budgets) != 2 || plan.Currency != "USD" || !plan.Budgets[0].Monthly.Equal(decimal.RequireFromString("1500.10")) ||
					plan.Budgets[1].Kind != pricing.BudgetKey || plan.Budgets[1].Source != "b.yaml:5" {
					t.Errorf("plan %+v", plan)
				}
				return
			}
			if !errors.Is(err, budgets.ErrInvalid) {
				t.Fatalf("error %v, want ErrInvalid", err)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tc.want) {
				t.Fatalf("%d errors %q, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("error %d = %q, want %q...", i, got[i], w)
				}
			}
		})
	}
}

package savings

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// TestLess compares amounts across exponents, in integers and past them.
func TestLess(t *testing.T) {
	big := ledger.AmountOf(decimal.RequireFromString("123456789012345678901234567890"))
	tests := []struct {
		name string
		a, b ledger.Amount
		want bool
	}{
		{"same exponent", ledger.NewAmount(15, -2), ledger.NewAmount(16, -2), true},
		{"equal across exponents", ledger.NewAmount(150, -3), ledger.NewAmount(15, -2), false},
		{"finer below", ledger.NewAmount(1499, -4), ledger.NewAmount(15, -2), true},
		{"coarser above", ledger.NewAmount(2, 0), ledger.NewAmount(1999, -3), false},
		{"scaling would overflow", ledger.NewAmount(9_000_000_000_000_000_000, 0), ledger.NewAmount(1, -10), false},
		{"a wide amount", ledger.NewAmount(1, 0), big, true},
		{"negative", ledger.NewAmount(-1, 0), ledger.NewAmount(0, 0), true},
	}
	for _, tt := range tests {
		if got := less(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: less(%s, %s) = %v, want %v", tt.name, tt.a, tt.b, got, tt.want)
		}
	}
}

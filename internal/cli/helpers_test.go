package cli

import (
	"testing"

	"github.com/shopspring/decimal"
)

func decimalZero() decimal.Decimal { return decimal.Zero }

func mustDecimal(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("%q is not a decimal: %v", s, err)
	}
	return d
}

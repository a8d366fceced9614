package ledger

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestAmount(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		compact  bool // held as two integers
		zero     bool
		negative bool
	}{
		{name: "spend", in: "0.00762564", compact: true},
		{name: "zero", in: "0", compact: true, zero: true},
		{name: "zero at a scale", in: "0.000", compact: true, zero: true},
		{name: "negative", in: "-1.5", compact: true, negative: true},
		// 2^63-1 = 9223372036854775807 fits; one more does not.
		{name: "largest int64 coefficient", in: "922337203685477.5807", compact: true},
		{name: "one past int64", in: "922337203685477.5808"},
		{name: "wide negative", in: "-123456789012345678901234.5", negative: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decimal.RequireFromString(tt.in)
			a := AmountOf(d)
			if !a.Decimal().Equal(d) {
				t.Errorf("AmountOf(%s).Decimal() = %s", tt.in, a.Decimal())
			}
			if _, _, ok := a.Int64(); ok != tt.compact {
				t.Errorf("Int64 ok = %v, want %v", ok, tt.compact)
			}
			if a.IsZero() != tt.zero || a.IsNegative() != tt.negative {
				t.Errorf("IsZero %v IsNegative %v, want %v %v", a.IsZero(), a.IsNegative(), tt.zero, tt.negative)
			}
			if a.String() != d.String() {
				t.Errorf("String() = %q, want %q", a.String(), d.String())
			}
		})
	}
}

func TestAmountEqualAcrossExponents(t *testing.T) {
	// 150 × 10^-2 = 15 × 10^-1 = 1.5
	if !NewAmount(150, -2).Equal(NewAmount(15, -1)) {
		t.Error("1.50 and 1.5 differ")
	}
	if NewAmount(15, -1).Equal(NewAmount(15, -2)) {
		t.Error("1.5 and 0.15 are equal")
	}
	if (Amount{}).String() != "0" {
		t.Errorf("zero value is %s, want 0", Amount{})
	}
}

package numtext

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestDecimal(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            error
	}{
		{name: "spend", in: "0.00042", want: "0.00042"},
		{name: "exponent", in: "1.2e-5", want: "0.000012"},
		{name: "forty digits", in: strings.Repeat("9", 40), want: strings.Repeat("9", 40)},
		{name: "forty-one digits", in: strings.Repeat("9", 41), err: ErrTooLong},
		{name: "leading zeros are not significant", in: "0.000" + strings.Repeat("7", 40), want: "0.000" + strings.Repeat("7", 40)},
		{name: "ten thousand digits", in: "1" + strings.Repeat("0", 9999), err: ErrTooLong},
		{name: "long text of zeros", in: strings.Repeat("0", MaxChars+1), err: ErrTooLong},
		{name: "not a number", in: "12,5", err: ErrNotNumber},
		{name: "exponent 64", in: "1e64", want: "1" + strings.Repeat("0", 64)},
		{name: "exponent -64", in: "1e-64", want: "0." + strings.Repeat("0", 63) + "1"},
		{name: "price per token", in: "2.5e-7", want: "0.00000025"},
		{name: "exponent 65", in: "1e65", err: ErrOutOfRange},
		{name: "exponent -65", in: "1e-65", err: ErrOutOfRange},
		{name: "a budget of 1e999999999", in: "1e999999999", err: ErrOutOfRange},
		{name: "a zero's exponent too", in: "0e999999999", err: ErrOutOfRange},
		{name: "sixty-five places", in: "0." + strings.Repeat("0", 64) + "1", err: ErrOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decimal(tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Decimal(%.20q) error %v, want %v", tt.in, err, tt.err)
			}
			if tt.err == nil && !got.Equal(decimal.RequireFromString(tt.want)) {
				t.Errorf("Decimal(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestDecimalHugeIsCheap checks that a 4 MB number is refused at once:
// its digits are never converted.
func TestDecimalHugeIsCheap(t *testing.T) {
	huge := strings.Repeat("7", 4<<20)
	start := time.Now()
	if _, err := Decimal(huge); !errors.Is(err, ErrTooLong) {
		t.Fatalf("error %v, want ErrTooLong", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("refusing 4 MB took %v", d)
	}
}

package pricing

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// TestRatioOfSumsIsDivRound holds the integer ratio of two exact sums to
// DivRound's, on chosen edges (halves either way, signs, the int64
// bounds, a quotient that does not fit) and on random sums.
func TestRatioOfSumsIsDivRound(t *testing.T) {
	tests := []struct{ name, num, den string }{
		{name: "half up", num: "1", den: "2000000"}, // 0.0000005
		{name: "half down, negative", num: "-1", den: "2000000"},
		{name: "just under half", num: "0.999999", den: "1999998000000"},
		{name: "recorded zero", num: "0", den: "3.3"},
		{name: "equal", num: "57.9808", den: "57.9808"},
		{name: "negative denominator", num: "2", den: "-3"},
		{name: "exponents far apart", num: "123456789", den: "0.000000000001"},
		{name: "int64 bounds", num: "-9223372036854775808", den: "9223372036854775807"},
		{name: "quotient past int64", num: "9223372036854775807", den: "0.000001"},
		{name: "tiny numerator", num: "0.000000000000000000001", den: "7"},
	}
	check := func(t *testing.T, num, den decimal.Decimal) {
		t.Helper()
		var n, d ExactSum
		n.Add(ledger.AmountOf(num))
		d.Add(ledger.AmountOf(den))
		got, want := ratioOfSums(&n, &d, n.Value(), d.Value()), ratio(n.Value(), d.Value())
		if got.Valid != want.Valid || !got.Decimal.Equal(want.Decimal) {
			t.Fatalf("%s / %s: got %v, want %v", num, den, got.Decimal, want.Decimal)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check(t, decimal.RequireFromString(tc.num), decimal.RequireFromString(tc.den))
		})
	}
	t.Run("random", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 26))
		for range 200000 {
			n := decimal.New(r.Int64N(math.MaxInt64)-r.Int64N(math.MaxInt64), -int32(r.IntN(20)))
			if r.IntN(2) == 0 {
				n = decimal.New(r.Int64N(2000001)-1000000, -int32(r.IntN(12)))
			}
			d := decimal.New(r.Int64N(1<<40)+1, -int32(r.IntN(20)))
			if r.IntN(3) == 0 {
				d = d.Neg()
			}
			check(t, n, d)
		}
	})
}

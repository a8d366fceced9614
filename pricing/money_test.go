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

// TestGapOfSumsIsSub holds the integer gap of two exact sums to
// Decimal.Sub's, digit for digit and exponent for exponent (the text a
// report writes), on chosen edges (exponents apart, a difference past an
// int64, zero sums) and on random sums.
func TestGapOfSumsIsSub(t *testing.T) {
	tests := []struct {
		name               string
		official, recorded []string // the amounts added into each sum
		want               string
	}{
		{name: "same exponent", official: []string{"1.25"}, recorded: []string{"0.75"}, want: "0.5"},
		{name: "exponents apart", official: []string{"3"}, recorded: []string{"0.0001"}, want: "2.9999"},
		{name: "recorded more", official: []string{"0.1"}, recorded: []string{"0.35"}, want: "-0.25"},
		{name: "nothing recorded", official: []string{"0.000300"}, want: "0.0003"},
		{name: "sums that cancel keep their exponent", official: []string{"0.5", "-0.5"}, recorded: []string{"0.25"}, want: "-0.25"},
		{name: "difference past int64", official: []string{"9223372036854775807"}, recorded: []string{"-1"}, want: "9223372036854775808"},
		{name: "scaled past int64", official: []string{"92233720368547758.07"}, recorded: []string{"0.000000001"}, want: "92233720368547758.069999999"},
	}
	check := func(t *testing.T, official, recorded []decimal.Decimal) decimal.Decimal {
		t.Helper()
		var o, r ExactSum
		for _, a := range official {
			o.Add(ledger.AmountOf(a))
		}
		for _, a := range recorded {
			r.Add(ledger.AmountOf(a))
		}
		got, want := gapOfSums(&o, &r, o.Value(), r.Value()), o.Value().Sub(r.Value())
		if got.String() != want.String() || got.Exponent() != want.Exponent() {
			t.Fatalf("%v − %v: got %s (exponent %d), want Sub's %s (exponent %d)", official, recorded, got, got.Exponent(), want, want.Exponent())
		}
		return got
	}
	decimals := func(ss []string) (ds []decimal.Decimal) {
		for _, s := range ss {
			ds = append(ds, decimal.RequireFromString(s))
		}
		return ds
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := check(t, decimals(tc.official), decimals(tc.recorded)); got.String() != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	t.Run("random", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(2, 26))
		amount := func() decimal.Decimal {
			if rng.IntN(3) == 0 {
				return decimal.New(rng.Int64N(math.MaxInt64)-rng.Int64N(math.MaxInt64), -int32(rng.IntN(20)))
			}
			return decimal.New(rng.Int64N(2000001)-1000000, -int32(rng.IntN(12)))
		}
		eachRandomSums(rng, amount, func(o, r []decimal.Decimal) { check(t, o, r) })
	})
}

// eachRandomSums calls check with 100,000 pairs of up to three official
// costs and recorded spends, each drawn by amount.
func eachRandomSums(rng *rand.Rand, amount func() decimal.Decimal, check func(official, recorded []decimal.Decimal)) {
	for range 100000 {
		var o, r []decimal.Decimal
		for range rng.IntN(4) {
			o = append(o, amount())
		}
		for range rng.IntN(4) {
			r = append(r, amount())
		}
		check(o, r)
	}
}

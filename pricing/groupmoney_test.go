package pricing

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// TestGroupMoneyIsDone holds a group's money made from its exact sums
// (groupSum.money) to the decimals done makes, value, digits and exponent
// (the text a report writes), on chosen edges and on random sums: sums
// past an int64, a gap past one, a zero official cost (no ratio), and
// sums whose exponents are far apart.
func TestGroupMoneyIsDone(t *testing.T) {
	tests := []struct {
		name               string
		official, recorded []string // the amounts added into each sum
		want               [4]string
	}{
		{name: "same exponent", official: []string{"1.25"}, recorded: []string{"0.75"}, want: [4]string{"1.25", "0.75", "0.5", "0.6"}},
		{name: "nothing priced", recorded: []string{"0.35"}, want: [4]string{"0", "0.35", "-0.35", ""}},
		{name: "nothing recorded", official: []string{"0.000300"}, want: [4]string{"0.0003", "0", "0.0003", "0"}},
		{name: "thirds", official: []string{"3"}, recorded: []string{"1"}, want: [4]string{"3", "1", "2", "0.333333"}},
		{name: "official past int64", official: []string{"9223372036854775807", "1"}, recorded: []string{"2"},
			want: [4]string{"9223372036854775808", "2", "9223372036854775806", "0"}},
		{name: "gap past int64", official: []string{"9223372036854775807"}, recorded: []string{"-1"},
			want: [4]string{"9223372036854775807", "-1", "9223372036854775808", "0"}},
		{name: "ratio past int64", official: []string{"0.000000000001"}, recorded: []string{"92233720368547"},
			want: [4]string{"0.000000000001", "92233720368547", "-92233720368546.999999999999", "92233720368547000000000000"}},
	}
	decimals := func(ss []string) (ds []decimal.Decimal) {
		for _, s := range ss {
			ds = append(ds, decimal.RequireFromString(s))
		}
		return ds
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := checkGroupMoney(t, decimals(tc.official), decimals(tc.recorded))
			got := [4]string{m.Official.String(), m.Recorded.String(), m.Gap.String(), ""}
			if m.RatioValid {
				got[3] = m.Ratio.String()
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("random", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 26))
		amount := func() decimal.Decimal {
			switch rng.IntN(4) {
			case 0:
				return decimal.New(rng.Int64N(math.MaxInt64)-rng.Int64N(math.MaxInt64), -int32(rng.IntN(20)))
			case 1:
				return decimal.New(rng.Int64N(1000), 0)
			}
			return decimal.New(rng.Int64N(2000001)-1000000, -int32(rng.IntN(12)))
		}
		eachRandomSums(rng, amount, func(o, r []decimal.Decimal) { checkGroupMoney(t, o, r) })
	})
}

// checkGroupMoney sums official and recorded into a group and holds its
// money to the decimals done makes, returning the money.
func checkGroupMoney(t *testing.T, official, recorded []decimal.Decimal) GroupMoney {
	t.Helper()
	var s groupSum
	for _, a := range official {
		s.official.Add(ledger.AmountOf(a))
	}
	for _, a := range recorded {
		s.recorded.Add(ledger.AmountOf(a))
	}
	var m GroupMoney
	s.money(&m)
	g := s.done()
	for _, c := range []struct {
		what string
		got  ledger.Amount
		want decimal.Decimal
	}{{"official", m.Official, g.Official}, {"recorded", m.Recorded, g.Recorded}, {"gap", m.Gap, g.Gap}} {
		if d := c.got.Decimal(); d.String() != c.want.String() || d.Exponent() != c.want.Exponent() {
			t.Fatalf("%v, %v: %s %s (exponent %d), want done's %s (exponent %d)", official, recorded, c.what, d, d.Exponent(), c.want, c.want.Exponent())
		}
	}
	if m.RatioValid != g.Ratio.Valid {
		t.Fatalf("%v, %v: ratio valid %v, want done's %v", official, recorded, m.RatioValid, g.Ratio.Valid)
	}
	if d := m.Ratio.Decimal(); m.RatioValid && (d.String() != g.Ratio.Decimal.String() || d.Exponent() != g.Ratio.Decimal.Exponent()) {
		t.Fatalf("%v, %v: ratio %s (exponent %d), want done's %s (exponent %d)", official, recorded, d, d.Exponent(), g.Ratio.Decimal, g.Ratio.Decimal.Exponent())
	}
	return m
}

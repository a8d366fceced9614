package pricing

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// TestFixedTotalEqualsCostOf checks the integer total of a bucket's cost
// against CostOf's decimal total, to the last digit, on hand-picked and
// random prices and quantities, and that what does not fit falls back.
func TestFixedTotalEqualsCostOf(t *testing.T) {
	rates := func(prices map[tariffs.Usage]string) *tariffs.Rates {
		r := &tariffs.Rates{}
		for u, p := range prices {
			r.Set(u, decimal.RequireFromString(p))
		}
		return r
	}
	tests := []struct {
		name   string
		prices map[tariffs.Usage]string
		q      Quantities
		want   string // worked by hand; "" when it must fall back
	}{
		// 1,000,000 input at 0.28 per 1M = 0.28; 500,000 output at 0.42 = 0.21.
		{name: "input and output", prices: map[tariffs.Usage]string{tariffs.Input: "0.28", tariffs.Output: "0.42"},
			q: Quantities{tariffs.Input: 1_000_000, tariffs.Output: 500_000}, want: "0.49"},
		// Cache reads fall back to the input price: 3 × 0.28 / 1M = 0.00000084.
		{name: "fallback price", prices: map[tariffs.Usage]string{tariffs.Input: "0.28"},
			q: Quantities{tariffs.CacheRead: 3}, want: "0.00000084"},
		// 2 calls at a fee of 0.01 per request, 7 web searches at 0.025: 0.02 + 0.175.
		{name: "requests and tools", prices: map[tariffs.Usage]string{tariffs.Request: "0.01", tariffs.WebSearch: "0.025"},
			q: Quantities{tariffs.Request: 2, tariffs.WebSearch: 7}, want: "0.195"},
		{name: "nothing priced", prices: map[tariffs.Usage]string{}, q: Quantities{tariffs.Input: 9}, want: "0"},
		{name: "a sum past 128 bits", prices: map[tariffs.Usage]string{tariffs.Input: "922337203685477580.7", tariffs.Output: "0.000000001"},
			q: Quantities{tariffs.Input: math.MaxInt64, tariffs.Output: math.MaxInt64}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rates(tc.prices)
			_, want := CostOf(r, &tc.q)
			got, ok := newFixedRates(r).total(&tc.q)
			if tc.want == "" {
				if ok {
					t.Fatalf("total = %s, want a fall back to CostOf (%s)", got, want)
				}
				return
			}
			if !ok || !got.Equal(want) || !got.Equal(decimal.RequireFromString(tc.want)) {
				t.Fatalf("total = %s (ok %v), CostOf %s, by hand %s", got, ok, want, tc.want)
			}
		})
	}
	rng := rand.New(rand.NewPCG(3, 5))
	fast := 0
	for i := range 20000 {
		prices := map[tariffs.Usage]string{}
		for u := range tariffs.NumUsage {
			if rng.IntN(3) > 0 {
				prices[tariffs.Usage(u)] = decimal.New(rng.Int64N(1<<uint(rng.IntN(48)+1)), -int32(rng.IntN(9))).String()
			}
		}
		var q Quantities
		for u := range q {
			q[u] = rng.Int64N(1 << uint(rng.IntN(50)+1))
		}
		r := rates(prices)
		_, want := CostOf(r, &q)
		got, ok := newFixedRates(r).total(&q)
		if ok && !got.Equal(want) {
			t.Fatalf("case %d: total = %s, CostOf %s (prices %v, quantities %v)", i, got, want, prices, q)
		}
		if ok {
			fast++
		}
	}
	if fast < 2000 {
		t.Fatalf("only %d of 20000 random cases summed in integers: the test checks too little", fast)
	}
}

// TestCosterEqualsCostOf: a Coster gives CostOf's total to the last digit,
// where the integers fit and where they do not (it falls back), on the
// same rates again and again (made integers once) and on random ones.
func TestCosterEqualsCostOf(t *testing.T) {
	wide := &tariffs.Rates{}
	wide.Set(tariffs.Input, decimal.RequireFromString("922337203685477580.7"))
	wide.Set(tariffs.Output, decimal.RequireFromString("0.000000001"))
	plain := &tariffs.Rates{}
	plain.Set(tariffs.Input, decimal.RequireFromString("0.28"))
	plain.Set(tariffs.Output, decimal.RequireFromString("0.42"))
	var totals Coster
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 5000 {
		r := plain
		switch i % 3 {
		case 1:
			r = wide
		case 2:
			r = &tariffs.Rates{}
			for u := range tariffs.NumUsage {
				if rng.IntN(3) > 0 {
					r.Set(tariffs.Usage(u), decimal.New(rng.Int64N(1<<uint(rng.IntN(48)+1)), -int32(rng.IntN(9))))
				}
			}
		}
		var q Quantities
		for u := range q {
			q[u] = rng.Int64N(1 << uint(rng.IntN(62)+1))
		}
		_, want := CostOf(r, &q)
		if got := totals.Total(r, &q).Decimal(); !got.Equal(want) {
			t.Fatalf("case %d: Total = %s, CostOf %s (quantities %v)", i, got, want, q)
		}
	}
	// 1,000,000 input at 0.28 per 1M and 500,000 output at 0.42: 0.49, by hand.
	if got := totals.Total(plain, &Quantities{tariffs.Input: 1_000_000, tariffs.Output: 500_000}).Decimal(); !got.Equal(decimal.RequireFromString("0.49")) {
		t.Errorf("Total = %s, want 0.49", got)
	}
}

// TestFlatAmountEqualsTheGeneralSum checks the sum of rates scaled to
// one exponent (flatAmount) against the sum that scales each price to
// the smallest exponent of the usages priced, on the same random prices
// and quantities, zeros among them: the same value, or both refused.
func TestFlatAmountEqualsTheGeneralSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	flat, compared := 0, 0
	for i := range 20000 {
		prices := map[tariffs.Usage]string{}
		for u := range tariffs.NumUsage {
			if rng.IntN(3) > 0 {
				prices[tariffs.Usage(u)] = decimal.New(rng.Int64N(1<<uint(rng.IntN(40)+1)), -int32(rng.IntN(9))).String()
			}
		}
		var q Quantities
		for u := range q {
			if rng.IntN(2) > 0 {
				q[u] = rng.Int64N(1 << uint(rng.IntN(40)+1))
			}
		}
		f := newFixedRates(rates(prices))
		if !f.flat {
			continue
		}
		flat++
		general := *f
		general.flat = false
		got, gotOK := f.amount(&q)
		want, wantOK := general.amount(&q)
		if gotOK && wantOK {
			compared++
			if !got.Equal(want) {
				t.Fatalf("case %d: flat %s, general %s (prices %v, quantities %v)", i, got, want, prices, q)
			}
		}
	}
	if flat < 2000 || compared < 2000 {
		t.Fatalf("only %d flat rates and %d sums compared of 20000: the test checks too little", flat, compared)
	}
}

package pricing

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// TestExactSum checks the fast sum against plain decimal addition on
// values of every scale, sign and size, overflow included.
func TestExactSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	values := []decimal.Decimal{
		dec("0.000123456789012345678"), dec("9223372036854775807"), dec("9223372036854775807"),
		dec("-0.5"), dec("1e-30"), dec("123456789012345678901234567890"), dec("0"), dec("1.4e-05"),
	}
	for range 20000 {
		m := rng.Int64N(1<<62) - 1<<61
		values = append(values, decimal.New(m, int32(rng.IntN(40)-30)))
	}
	var s ExactSum
	want := decimal.Zero
	for i, v := range values {
		s.Add(ledger.AmountOf(v))
		want = want.Add(v)
		if i%997 == 0 && !s.Value().Equal(want) {
			t.Fatalf("after %d values: sum %s, want %s", i+1, s.Value(), want)
		}
	}
	if !s.Value().Equal(want) {
		t.Fatalf("sum %s, want %s", s.Value(), want)
	}
}

func BenchmarkExactSum(b *testing.B) {
	v := dec("0.000123456789")
	b.Run("exactSum", func(b *testing.B) {
		b.ReportAllocs()
		var s ExactSum
		a := ledger.AmountOf(v)
		for b.Loop() {
			s.Add(a)
		}
	})
	b.Run("decimal.Add", func(b *testing.B) {
		b.ReportAllocs()
		s := decimal.Zero
		for b.Loop() {
			s = s.Add(v)
		}
	})
}

package pricing

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// FuzzCostAddsUp checks the money invariants on arbitrary token counts and
// prices: the parts of a cost add up to its total, and pricing two calls'
// summed quantities equals the sum of their own costs.
func FuzzCostAddsUp(f *testing.F) {
	f.Add(int64(1000), int64(400), int64(0), int64(1000), int64(100), int64(7), int64(3), "0.3", "0.006", "1.2", "0.0028")
	f.Add(int64(1), int64(0), int64(9), int64(1), int64(1), int64(0), int64(0), "2.5", "1.25", "10", "3.75")
	f.Fuzz(func(t *testing.T, in, cached, write, out, reasoning, in2, out2 int64, pIn, pCache, pOut, pWrite string) {
		var r tariffs.Rates
		for u, p := range map[tariffs.Usage]string{tariffs.Input: pIn, tariffs.CacheRead: pCache, tariffs.Output: pOut, tariffs.CacheWrite: pWrite} {
			d, err := decimal.NewFromString(p)
			// The range tariff files accept.
			if err != nil || d.IsNegative() || len(p) > 40 || d.Exponent() < -24 || int64(d.NumDigits())+int64(d.Exponent()) > 12 {
				return
			}
			r.Set(u, d)
		}
		clip := func(n int64) int64 {
			if n < 0 {
				n = -n
			}
			return n % 1_000_000_000
		}
		a := ledger.Tokens{Input: clip(in), CacheRead: clip(cached), CacheWrite: clip(write), Output: clip(out)}
		a.Reasoning = clip(reasoning) % (a.Output + 1)
		b := ledger.Tokens{Input: clip(in2), Output: clip(out2)}
		qa, qb := QuantitiesOf(a, ledger.ToolUses{}), QuantitiesOf(b, ledger.ToolUses{})
		parts, total := CostOf(&r, &qa)
		sum := decimal.Zero
		for _, p := range parts {
			sum = sum.Add(p)
		}
		if !sum.Equal(total) {
			t.Fatalf("parts add up to %s, total %s", sum, total)
		}
		_, tb := CostOf(&r, &qb)
		both := qa
		both.Add(&qb)
		_, tboth := CostOf(&r, &both)
		if !tboth.Equal(total.Add(tb)) {
			t.Fatalf("cost of the sum %s, sum of costs %s", tboth, total.Add(tb))
		}
	})
}

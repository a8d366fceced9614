package threeway

import (
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// costs are amounts by usage type.
type costs = [tariffs.NumUsage]decimal.Decimal

// costByUsage prices quantities at rates per usage type, reasoning folded
// into output as the provider counts it.
func costByUsage(r *tariffs.Rates, q *pricing.Quantities) costs {
	by, _ := pricing.CostOf(r, q)
	by[tariffs.Output] = by[tariffs.Output].Add(by[tariffs.Reasoning])
	by[tariffs.Reasoning] = decimal.Zero
	return by
}

func addCosts(to *costs, by costs) {
	for u := range to {
		to[u] = to[u].Add(by[u])
	}
}

func zeroCosts() (z costs) {
	for u := range z {
		z[u] = decimal.Zero
	}
	return z
}

func sumCosts(by costs) decimal.Decimal {
	s := decimal.Zero
	for _, d := range by {
		s = s.Add(d)
	}
	return s
}

// usageTokens is the provider's count of usage u: output with reasoning.
func usageTokens(q *pricing.Quantities, u tariffs.Usage) int64 {
	if u == tariffs.Output {
		return q[tariffs.Output] + q[tariffs.Reasoning]
	}
	return q[u]
}

// totalTokens is every token of q, requests left out.
func totalTokens(q *pricing.Quantities) int64 {
	var n int64
	for u := range tariffs.Request {
		n += q[u]
	}
	return n
}

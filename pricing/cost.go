package pricing

import (
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Quantities are the billable quantities of one or more calls, indexed by
// tariffs.Usage, and non-overlapping: Output holds only non-reasoning output
// tokens, Reasoning the reasoning tokens, Request the number of calls.
type Quantities [tariffs.NumUsage]int64

// QuantitiesOf returns the billable quantities of one call.
func QuantitiesOf(t ledger.Tokens) Quantities {
	return Quantities{
		tariffs.Input:      t.Input,
		tariffs.CacheRead:  t.CacheRead,
		tariffs.CacheWrite: t.CacheWrite,
		tariffs.Output:     t.Output - t.Reasoning,
		tariffs.Reasoning:  t.Reasoning,
		tariffs.Request:    1,
	}
}

// Add adds o to q.
func (q *Quantities) Add(o *Quantities) {
	for i := range q {
		q[i] += o[i]
	}
}

// addChecked adds o (non-negative) to q, unless a sum, or the sum of
// output and reasoning (reports add them), would exceed the int64 range:
// then q is left as it was and addChecked returns false.
func (q *Quantities) addChecked(o *Quantities) bool {
	ok := true
	for i := range q {
		s := q[i] + o[i]
		ok = ok && s >= q[i]
		q[i] = s
	}
	if !ok || q[tariffs.Output]+q[tariffs.Reasoning] < q[tariffs.Output] {
		for i := range q {
			q[i] -= o[i]
		}
		return false
	}
	return true
}

// Cost returns the cost of quantity n of usage u at rates r: tokens at the
// price per 1M tokens, requests at the price per call. It is exact.
func Cost(r *tariffs.Rates, u tariffs.Usage, n int64) decimal.Decimal {
	if n == 0 {
		return decimal.Zero
	}
	c := r.Price(u).Mul(decimal.NewFromInt(n))
	if u == tariffs.Request {
		return c
	}
	return c.Shift(-6) // per 1M tokens; Shift is exact where Div would round
}

// CostOf returns the cost of quantities q at rates r, per usage type and in total.
func CostOf(r *tariffs.Rates, q *Quantities) (byUsage [tariffs.NumUsage]decimal.Decimal, total decimal.Decimal) {
	total = decimal.Zero
	for u := range tariffs.NumUsage {
		byUsage[u] = Cost(r, tariffs.Usage(u), q[u])
		total = total.Add(byUsage[u])
	}
	return byUsage, total
}

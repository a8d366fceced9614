package pricing

import (
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Quantities are the billable quantities of one or more calls, indexed by
// tariffs.Usage, and non-overlapping: CacheWrite holds the 5-minute (or
// unspecified) writes and CacheWrite1h the 1-hour ones, Output only
// non-reasoning output tokens, Reasoning the reasoning tokens, Request the
// number of calls, and each tool its uses.
type Quantities [tariffs.NumUsage]int64

// QuantitiesOf returns the billable quantities of one call: its tokens and
// its tool uses.
func QuantitiesOf(t ledger.Tokens, tools ledger.ToolUses) Quantities {
	return Quantities{
		tariffs.Input:        t.Input,
		tariffs.CacheRead:    t.CacheRead,
		tariffs.CacheWrite:   t.CacheWrite,
		tariffs.CacheWrite1h: t.CacheWrite1h,
		tariffs.Output:       t.Output - t.Reasoning,
		tariffs.Reasoning:    t.Reasoning,
		tariffs.Request:      1,
		tariffs.WebSearch:    tools[ledger.WebSearch],
		tariffs.WebFetch:     tools[ledger.WebFetch],
		tariffs.FileSearch:   tools[ledger.FileSearch],
	}
}

// Tokens returns the token quantities of q: every usage type counted in
// tokens, not calls or tool uses.
func (q *Quantities) Tokens() int64 {
	var n int64
	for u := range tariffs.NumTokenUsage {
		n += q[u]
	}
	return n
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
// price per 1M tokens, requests at the price per call, tools at the fee per
// use. It is exact. A usage type the rates do not price costs zero (and is
// reported as unpriced by the engine).
func Cost(r *tariffs.Rates, u tariffs.Usage, n int64) decimal.Decimal {
	if n == 0 {
		return decimal.Zero
	}
	c := r.Price(u).Mul(decimal.NewFromInt(n))
	if !u.IsToken() {
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

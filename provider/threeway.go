package provider

import (
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/threeway"
)

// ThreeWayRows returns the rows of exports, in order, as the three-way
// reconciliation takes them.
func ThreeWayRows(exports []*Export) []threeway.Row {
	n := 0
	for _, x := range exports {
		n += len(x.Rows)
	}
	out := make([]threeway.Row, 0, n)
	for _, x := range exports {
		for i := range x.Rows {
			out = append(out, x.Rows[i].threeWay())
		}
	}
	return out
}

// threeWay converts the row: its format names its provider, and Split and
// HasBilled say how it bills.
func (r *Row) threeWay() threeway.Row {
	billing := threeway.NotBilled
	switch {
	case r.HasBilled && r.Split:
		billing = threeway.BilledByUsage
	case r.HasBilled:
		billing = threeway.BilledInTotal
	}
	return threeway.Row{Provider: r.Format.Provider(), Start: r.Start, End: r.End, Model: r.Model, Key: r.Key,
		PromptSize: r.PromptSize, ServiceTier: r.ServiceTier, Region: r.Region,
		Qty: pricing.Quantities(r.Qty), HasTokens: r.HasTokens, HasRequests: r.HasRequests,
		Billing: billing, Billed: r.Billed, ByUsage: r.ByUsage, Currency: r.Currency, Where: r.Where}
}

package threeway

import (
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// Observe adds one priced gateway call; it never fails. Overlaps, failed
// calls, answers from the gateway's response cache and calls outside the
// window are left out: providers bill none of them. A call read again
// (Duplicate, in one source) counts once, as in reconcile: its copy adds
// nothing.
func (b *Builder) Observe(c *ledger.Call, pc *pricing.PricedCall) error {
	switch pc.Outcome {
	case pricing.Overlap, pricing.Duplicate, pricing.Failed, pricing.CacheHit, pricing.Outside:
		return nil
	}
	cell := b.gatewayCell(c, pc)
	cell.gwCalls++
	q := pricing.QuantitiesOf(c.Tokens, c.Tools)
	cell.gwTokens.AddQuantities(&q)
	if pc.Outcome == pricing.Priced {
		acc := cell.gwQty[pc.Rates]
		if acc == nil {
			acc = &pricing.Quantities{}
			cell.gwQty[pc.Rates] = acc
		}
		acc.Add(&q)
	}
	if !c.Recorded.IsZero() {
		cell.recorded.Add(c.Recorded)
	}
	return nil
}

// gatewayCell returns the cell of a gateway call: its UTC day, model,
// provider and, where the provider's exports have keys, key.
func (b *Builder) gatewayCell(c *ledger.Call, pc *pricing.PricedCall) *cellAcc {
	prov, currency := c.Provider, ""
	if pc.Quote.Model != nil {
		prov, currency = pc.Quote.Model.Provider.Name, pc.Quote.Model.Provider.Currency
	}
	key := ""
	if b.keyed[prov] {
		key = c.Key
	}
	cell := b.cell(utcDay(pc.At), pc.ModelName(), key, prov)
	if cell.currency == "" {
		cell.currency = currency
	}
	return cell
}

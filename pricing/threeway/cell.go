package threeway

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Cell is one UTC day of one model (and key) on both sides.
type Cell struct {
	Day      time.Time // UTC midnight
	Provider string    // tariff provider; the export's provider when the model is not in the catalog
	Model    string    // tariff model id, or the name as logged or exported; "" for billing not grouped by model
	Key      string    // hashed key, when the provider is aligned by key
	Currency string

	GatewayCalls     int64
	GatewayTokens    pricing.TokenCounts
	ProviderRequests int64
	HasRequests      bool // the provider gives request counts
	ProviderTokens   pricing.TokenCounts
	HasUsage         bool // the provider's usage exports have this cell
	MissingCalls     int64
	UnknownCalls     int64
	Missing          pricing.TokenCounts // by usage type, what the provider counted beyond the gateway
	Unknown          pricing.TokenCounts // by usage type, what the gateway logged beyond the provider

	Recorded         decimal.Decimal
	Official         decimal.Decimal     // the tariff's cost of the gateway's tokens
	ProviderOfficial decimal.NullDecimal // the tariff's cost of the provider's tokens; not valid when they cannot be priced
	Billed           decimal.Decimal
	HasBilled        bool                // the provider's cost exports cover this cell's provider
	Gap              decimal.NullDecimal // Billed − Recorded, when HasBilled
	Parts            []Part              // non-zero parts; they add up to Gap when it is valid
	Note             string              // why the provider's tokens could not be priced, if so
}

// finish works out one cell's figures and the parts of its gap.
func (b *Builder) finish(a *cellAcc) Cell {
	c := Cell{Day: time.Unix(a.key.day, 0).UTC(), Provider: a.provider, Model: a.key.model, Key: a.key.key,
		Currency: a.currency, GatewayCalls: a.gwCalls, GatewayTokens: a.gwTokens, HasRequests: b.reqs[a.provider],
		HasUsage: a.hasUsage, Recorded: a.recorded.Value(), Billed: a.billed, HasBilled: b.billed[a.provider], Note: a.unpriced}
	c.ProviderTokens.AddQuantities(&a.provQty)
	if c.HasRequests {
		c.ProviderRequests = a.provQty[tariffs.Request]
	}
	gw := zeroCosts()
	for r, q := range a.gwQty {
		addCosts(&gw, costByUsage(r, q))
	}
	c.Official = sumCosts(gw)
	c.Parts = appendPart(nil, PartRecordedVsTariff, c.Official.Sub(c.Recorded))
	compared := b.usage[a.provider] && a.unpriced == ""
	base := c.Official
	if compared {
		pv := zeroCosts()
		for _, p := range a.parts {
			addCosts(&pv, costByUsage(p.rates, &p.qty))
		}
		if !c.HasRequests {
			// No request counts: the requests are taken as the gateway logged them.
			pv[tariffs.Request] = gw[tariffs.Request]
		}
		c.ProviderOfficial = decimal.NewNullDecimal(sumCosts(pv))
		base = c.ProviderOfficial.Decimal
		c.compareUsage(gw, pv)
	}
	if !c.HasBilled {
		return c
	}
	switch {
	case !a.hasBilling:
		c.Parts = appendPart(c.Parts, PartUnbilled, base.Neg())
	case c.Model == "":
		c.Parts = appendPart(c.Parts, PartUnattributed, c.Billed.Sub(base))
	case compared:
		c.Parts = appendPart(c.Parts, PartTariffDrift, c.Billed.Sub(base))
	default:
		c.Parts = appendPart(c.Parts, PartBilledVsGatewayTokens, c.Billed.Sub(base))
	}
	c.Gap = decimal.NewNullDecimal(c.Billed.Sub(c.Recorded))
	return c
}

// compareUsage fills missing and unknown usage, and their cost at the
// tariff: for each usage type, the provider's cost minus the gateway's
// goes to missing when the provider counted at least as much, else to
// unknown.
func (c *Cell) compareUsage(gw, pv costs) {
	g, p := &c.GatewayTokens, &c.ProviderTokens
	pairs := []struct {
		u          tariffs.Usage
		gw, pv     int64
		miss, unkn *int64
	}{
		{tariffs.Input, g.Input, p.Input, &c.Missing.Input, &c.Unknown.Input},
		{tariffs.CacheRead, g.CacheRead, p.CacheRead, &c.Missing.CacheRead, &c.Unknown.CacheRead},
		{tariffs.CacheWrite, g.CacheWrite, p.CacheWrite, &c.Missing.CacheWrite, &c.Unknown.CacheWrite},
		{tariffs.Output, g.Output, p.Output, &c.Missing.Output, &c.Unknown.Output},
		{tariffs.Request, c.GatewayCalls, c.ProviderRequests, &c.MissingCalls, &c.UnknownCalls},
	}
	missing, unknown := decimal.Zero, decimal.Zero
	for _, x := range pairs {
		if x.u == tariffs.Request && !c.HasRequests {
			continue // no request counts to compare
		}
		d := pv[x.u].Sub(gw[x.u])
		if x.pv >= x.gw {
			*x.miss = x.pv - x.gw
			missing = missing.Add(d)
		} else {
			*x.unkn = x.gw - x.pv
			unknown = unknown.Add(d)
		}
	}
	c.Parts = appendPart(c.Parts, PartMissingUsage, missing)
	c.Parts = appendPart(c.Parts, PartUnknownUsage, unknown)
}

// cellLess orders cells by day, provider, model and key.
func cellLess(a, b *cellAcc) bool {
	switch {
	case a.key.day != b.key.day:
		return a.key.day < b.key.day
	case a.provider != b.provider:
		return a.provider < b.provider
	case a.key.model != b.key.model:
		return a.key.model < b.key.model
	}
	return a.key.key < b.key.key
}

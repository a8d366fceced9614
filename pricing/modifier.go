package pricing

import (
	"cmp"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// ModifierKind says what a Modifier sums.
type ModifierKind uint8

// Kinds of modifier.
const (
	ModUsage       ModifierKind = iota // a usage type beyond plain tokens: 1-hour writes, a tool
	ModServiceTier                     // calls served in a service tier other than standard
	ModRegion                          // calls processed in a region
)

// Modifier is what priced calls were billed for beyond plain tokens, in one
// currency: the quantity of a usage type (1-hour cache writes, a tool's
// uses) and its official cost, or the calls of a service tier or region
// and their whole official cost. Unpriced is the part of Quantity the
// tariff does not price (see Engine.Unpriced): no cost is in Official for
// it.
type Modifier struct {
	Kind     ModifierKind
	Usage    tariffs.Usage       // ModUsage
	Service  tariffs.ServiceTier // ModServiceTier
	Region   string              // ModRegion
	Currency string
	Quantity int64
	Official decimal.Decimal
	Unpriced int64
}

// What names the modifier: "cache_write_1h", "web_search",
// "service tier batch", "region us".
func (m *Modifier) What() string {
	u := UnpricedQuantity{Kind: UnpricedKind(m.Kind), Usage: m.Usage, Service: m.Service, Region: m.Region}
	return u.What()
}

// Unit names what Quantity counts: "tokens", "uses" or "calls".
func (m *Modifier) Unit() string {
	if m.Kind != ModUsage {
		return "calls"
	}
	return unitOf(m.Usage)
}

// unitOf names what a quantity of usage type u counts: "tokens", or
// "uses" of a tool.
func unitOf(u tariffs.Usage) string {
	if u.IsToken() {
		return "tokens"
	}
	return "uses"
}

// beyondTokens are the usage types a Modifier sums.
var beyondTokens = []tariffs.Usage{tariffs.CacheWrite1h, tariffs.WebSearch, tariffs.WebFetch, tariffs.FileSearch}

// modifiers sums the priced buckets' modifiers, in order of kind, usage
// type, service tier, region, then currency.
func (e *Engine) modifiers() []Modifier {
	type key struct {
		kind     ModifierKind
		usage    tariffs.Usage
		service  tariffs.ServiceTier
		region   string
		currency string
	}
	sums := map[key]*Modifier{}
	add := func(k key, qty int64, cost decimal.Decimal, unpriced int64) {
		m := sums[k]
		if m == nil {
			m = &Modifier{Kind: k.kind, Usage: k.usage, Service: k.service, Region: k.region, Currency: k.currency, Official: decimal.Zero}
			sums[k] = m
		}
		m.Quantity += qty
		m.Official = m.Official.Add(cost)
		m.Unpriced += unpriced
	}
	for _, b := range e.table.buckets.all() {
		if b.k.outcome != Priced || b.Rates == nil {
			continue
		}
		cur := b.Model.Provider.Currency
		for _, u := range beyondTokens {
			if n := b.Qty[u]; n > 0 {
				var unpriced int64
				if !b.Rates.Priced(u) {
					unpriced = n
				}
				add(key{kind: ModUsage, usage: u, currency: cur}, n, Cost(b.Rates, u, n), unpriced)
			}
		}
		if b.k.serviceTier() != tariffs.Standard {
			var miss int64
			if b.miss&tariffs.MissService != 0 {
				miss = b.Calls
			}
			add(key{kind: ModServiceTier, service: b.k.serviceTier(), currency: cur}, b.Calls, b.Official(), miss)
		}
		if b.k.regionName() != "" {
			var miss int64
			if b.miss&tariffs.MissRegion != 0 {
				miss = b.Calls
			}
			add(key{kind: ModRegion, region: b.k.regionName(), currency: cur}, b.Calls, b.Official(), miss)
		}
	}
	out := make([]Modifier, 0, len(sums))
	for _, m := range sums {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b Modifier) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Usage, b.Usage), cmp.Compare(a.Service, b.Service),
			strings.Compare(a.Region, b.Region), strings.Compare(a.Currency, b.Currency))
	})
	return out
}

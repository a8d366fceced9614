package pricing

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tokenfare/tokenfare/tariffs"
)

// UnpricedKind says what of priced calls their tariff has no rate for.
type UnpricedKind uint8

// Kinds of unpriced quantity.
const (
	// UnpricedUsage: a quantity of a usage type the call's rates do not
	// price (1-hour cache writes without cache_write_1h, uses of a tool
	// without a fee). It costs nothing in the official cost.
	UnpricedUsage UnpricedKind = iota
	// UnpricedServiceTier: calls served in a service tier the version has
	// no rates for their model in; priced at the standard tier.
	UnpricedServiceTier
	// UnpricedRegion: calls processed in a region the version has no
	// multiplier for their model in; priced without one.
	UnpricedRegion
)

// UnpricedQuantity is what priced calls of one model carry that their
// tariff does not price, summed over the run: never silently free.
type UnpricedQuantity struct {
	Model   string
	Kind    UnpricedKind
	Usage   tariffs.Usage       // UnpricedUsage: the usage type
	Service tariffs.ServiceTier // UnpricedServiceTier: the tier
	Region  string              // UnpricedRegion: the region
	// Quantity is the tokens or tool uses (UnpricedUsage), or the calls
	// (service tier, region).
	Quantity int64
}

// What names the unpriced quantity: the usage type ("cache_write_1h",
// "web_search"), "service tier batch" or "region us".
func (u *UnpricedQuantity) What() string {
	switch u.Kind {
	case UnpricedServiceTier:
		return "service tier " + u.Service.String()
	case UnpricedRegion:
		return "region " + u.Region
	}
	return u.Usage.String()
}

// Detail says in a sentence what the quantity is and how it was priced.
func (u *UnpricedQuantity) Detail() string {
	switch u.Kind {
	case UnpricedServiceTier:
		return fmt.Sprintf("%d call(s) served in service tier %s, which the tariff does not price for %s: priced at the standard tier", u.Quantity, u.Service, u.Model)
	case UnpricedRegion:
		return fmt.Sprintf("%d call(s) processed in region %s, which the tariff has no multiplier for on %s: priced without one", u.Quantity, u.Region, u.Model)
	}
	return fmt.Sprintf("%d %s %s that the tariff of %s does not price: not in the official cost", u.Quantity, u.Usage, unitOf(u.Usage), u.Model)
}

// Unpriced returns the quantities priced calls carry that their rates do
// not price, by model and kind, in order of model, kind, then usage type,
// service tier or region.
func (e *Engine) Unpriced() []UnpricedQuantity {
	type key struct {
		model   string
		kind    UnpricedKind
		usage   tariffs.Usage
		service tariffs.ServiceTier
		region  string
	}
	sums := map[key]int64{}
	for _, b := range e.table.buckets.all() {
		if b.k.outcome != Priced || b.Rates == nil {
			continue
		}
		name := e.nameOf(&b.k)
		for u := range tariffs.NumUsage {
			if b.Qty[u] > 0 && !b.Rates.Priced(tariffs.Usage(u)) {
				sums[key{model: name, kind: UnpricedUsage, usage: tariffs.Usage(u)}] += b.Qty[u]
			}
		}
		if b.miss&tariffs.MissService != 0 {
			sums[key{model: name, kind: UnpricedServiceTier, service: b.k.serviceTier()}] += b.Calls
		}
		if b.miss&tariffs.MissRegion != 0 {
			sums[key{model: name, kind: UnpricedRegion, region: b.k.regionName()}] += b.Calls
		}
	}
	out := make([]UnpricedQuantity, 0, len(sums))
	for k, n := range sums {
		out = append(out, UnpricedQuantity{Model: k.model, Kind: k.kind, Usage: k.usage, Service: k.service, Region: k.region, Quantity: n})
	}
	slices.SortFunc(out, func(a, b UnpricedQuantity) int {
		return cmp.Or(strings.Compare(a.Model, b.Model), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Usage, b.Usage),
			cmp.Compare(a.Service, b.Service), strings.Compare(a.Region, b.Region))
	})
	return out
}

package pricing

import (
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// blendParts are what a chargeback needs of a group's priced calls to
// price them at the gateway's blended prices once the blend is known,
// after the group's buckets are gone (spilled to a run): their quantities
// by model, each under the usage type whose blended price it is charged at
// (reasoning under output where the tariff does not price it apart), and
// the official cost of the calls of a service tier or region, which the
// blend leaves out and which count at their own cost. Blended prices are
// linear in quantities, so the group's cost at them from its parts equals
// the sum of its buckets' (atBlended), to the last digit.
type blendParts struct {
	models []blendPart
	own    ExactSum
}

// blendPart is a group's quantities of one model.
type blendPart struct {
	model *tariffs.Model
	qty   Quantities
}

// add adds priced bucket b's quantities, or its official cost when the
// blend leaves its calls out.
func (p *blendParts) add(b *bucket) {
	if b.k.outcome != Priced || b.Model == nil {
		return
	}
	if b.k.variant != 0 {
		p.own.Add(b.officialAmount())
		return
	}
	q := p.of(b.Model)
	for u := range tariffs.NumUsage {
		into := tariffs.Usage(u)
		if into == tariffs.Reasoning && !b.Rates.Listed(tariffs.Reasoning) {
			into = tariffs.Output
		}
		q[into] += b.Qty[u]
	}
}

// of returns the quantities of model m, made when new.
func (p *blendParts) of(m *tariffs.Model) *Quantities {
	for i := range p.models {
		if p.models[i].model == m {
			return &p.models[i].qty
		}
	}
	p.models = append(p.models, blendPart{model: m})
	return &p.models[len(p.models)-1].qty
}

// merge adds the parts o into p.
func (p *blendParts) merge(o *blendParts) {
	for i := range o.models {
		p.of(o.models[i].model).Add(&o.models[i].qty)
	}
	p.own.merge(&o.own)
}

// atBlended returns the parts' cost at the blended prices.
func (p *blendParts) atBlended(prices map[*tariffs.Model]*[tariffs.NumUsage]decimal.NullDecimal) decimal.Decimal {
	sum := p.own.Value()
	for i := range p.models {
		ps := prices[p.models[i].model]
		if ps == nil {
			continue
		}
		for u, n := range p.models[i].qty {
			if pr := ps[u]; pr.Valid && n != 0 {
				sum = sum.Add(costAt(pr.Decimal, tariffs.Usage(u), n))
			}
		}
	}
	return sum
}

// spillCursor is groupCursor for the groups an engine spills or streams:
// with their blend parts when the engine keeps them (OutputChargeback).
func (e *Engine) spillCursor(bs []*bucket) *groupCursor {
	c := e.groupCursor(bs)
	c.blend = e.keeps(OutputChargeback)
	return c
}

// blendCatalog is the catalog the runs' blend parts name models of; nil
// when the engine keeps none.
func (e *Engine) blendCatalog() *tariffs.Catalog {
	if !e.keeps(OutputChargeback) {
		return nil
	}
	return e.cat
}

package pricing

import (
	"fmt"
	"iter"

	"github.com/tokenfare/tokenfare/internal/extsort"
)

// A spill collapses the buckets a charge is made from: its key, team,
// user and day, and its tariff version, period, prompt-size tier, service
// tier and region, by which Charges parts the calls and finds their
// rates. An engine that keeps its charges (OutputCharges) writes,
// at each spill, the buckets it is about to collapse summed by charge key
// (chargeGroupsOf), in charge order, to a run of charge groups beside its
// runs of groups. Charges merges those runs with the buckets made since,
// in that order, as the charges are yielded (extsort.Merge): the parts of a
// charge key are summed exactly, counts as integers and the recorded
// spend as a decimal of all its digits (coefficient and exponent), so
// that the spend apportioned to its usage types has the digits of an
// engine that did not spill. A record names its model and price by number
// in a table the engine keeps (chargePrices: a few entries a model), with
// the rates of the buckets it was summed from, which no spill collapses.

// chargePrices numbers the models and prices of the charge groups in runs.
type chargePrices struct {
	list []pricedCharge
	ids  map[chargePrice]uint32
}

// pricedCharge is a charge key's price with the rates of its buckets;
// zero rates unless priced.
type pricedCharge struct {
	chargePrice
	pricing bucketPricing
}

// id returns the number of price k, whose rates are p, numbering it when
// new.
func (t *chargePrices) id(k *chargePrice, p *bucketPricing) uint32 {
	if id, ok := t.ids[*k]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = map[chargePrice]uint32{}
	}
	id := uint32(len(t.list))
	t.list = append(t.list, pricedCharge{chargePrice: *k, pricing: *p})
	t.ids[*k] = id
	return id
}

// chargeRuns is the configuration of the engine's runs of charge groups
// in store: in charge order, the parts of a charge key summed.
func (e *Engine) chargeRuns(store RunStore) extsort.Config[chargeGroup] {
	prices := &e.runs.prices
	return extsort.Config[chargeGroup]{
		Store: store, Prefix: "charges", MaxRuns: e.runs.max, Err: ErrSpill,
		Codec:   func() extsort.Codec[chargeGroup] { return &chargeCodec{prices: prices} },
		Compare: func(a, b *chargeGroup) int { return chargeCompare(&a.k, &b.k) },
		Same:    func(a, b *chargeGroup) bool { return a.k == b.k },
		Combine: (*chargeGroup).merge,
	}
}

// merge adds part o of the same charge key to g: exactly, so that the
// sum of a charge key's parts is that of its buckets summed at once.
func (g *chargeGroup) merge(o *chargeGroup) {
	g.alias = firstAlias(g.alias, o.alias)
	g.calls += o.calls
	g.qty.Add(&o.qty)
	g.recorded = g.recorded.Add(o.recorded)
}

// groups yields the charge groups, in charge order, then the error of
// reading them, if any: summed from the engine's buckets, or merged from
// its runs of charge groups and the buckets not collapsed; the runs it
// opened are closed however the loop ends.
func (c *Charges) groups() iter.Seq2[*chargeGroup, error] {
	return func(yield func(*chargeGroup, error) bool) {
		if c.runs == nil {
			for _, g := range c.e.chargeGroups() {
				if !yield(g, nil) {
					return
				}
			}
			return
		}
		m, err := c.runs.Merge(pointers(c.e.chargeGroupsOf(c.e.liveBuckets())))
		if err != nil {
			yield(nil, fmt.Errorf("%w: %w", ErrSpill, err))
			return
		}
		for g, err := range m.All() {
			if !yield(g, err) {
				return
			}
		}
	}
}

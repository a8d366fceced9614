package pricing

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/shopspring/decimal"
)

// A spill collapses the buckets a charge is made from: its key, team,
// user and day, and its tariff version, period, prompt-size tier, service
// tier and region, by which Charges parts the calls and finds their
// rates. An engine that keeps its charges (Options.SpillCharges) writes,
// at each spill, the buckets it is about to collapse summed by charge key
// (chargeGroupsOf), in charge order, to a run of charge groups beside its
// runs of groups. Charges merges those runs with the buckets made since,
// in that order, as the charges are yielded (chargeMerge): the parts of a
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

// writeChargeRun writes the buckets not collapsed, summed by charge key,
// to a new run of charge groups, merging those runs into one first when
// there are as many as the engine keeps (spillRuns.max).
func (e *Engine) writeChargeRun() error {
	if len(e.runs.charges) >= e.runs.max {
		if err := e.compactChargeRuns(); err != nil {
			return err
		}
	}
	list := listSource(e.chargeGroupsOf(e.liveBuckets()))
	return e.newChargeRun(list.next)
}

// compactChargeRuns merges every run of charge groups into one.
func (e *Engine) compactChargeRuns() error {
	old := e.runs.charges
	m, err := e.openChargeMerge(old, nil)
	if err != nil {
		return err
	}
	e.runs.charges = nil
	err = e.newChargeRun(m.next)
	err = errors.Join(err, m.close())
	for _, f := range old {
		err = errors.Join(err, e.runs.store.Remove(f))
	}
	return err
}

// newChargeRun writes the charge groups next yields to a new run.
func (e *Engine) newChargeRun(next func(*chargeGroup) (bool, error)) error {
	name := fmt.Sprintf("charges-%06d", e.runs.chargesWritten)
	created, err := writeRunFile(e.runs.store, name, false, next, func(w *runWriter, g *chargeGroup) {
		w.writeCharge(g, e.prices.id(&g.k.chargePrice, &g.pricing))
	})
	if created {
		e.runs.charges = append(e.runs.charges, name)
		e.runs.chargesWritten++
	}
	return err
}

// A record of a run of charge groups is its length (a uvarint), then the
// group's slot, its key's texts (key, team, user, the unknown model's
// name) and the key alias (each a length and bytes), its outcome, the
// number of its price (chargePrices), its calls and quantities, and its
// recorded spend: a flag, then the coefficient as a varint (flag 0) or
// its decimal text (flag 1), then the exponent. Integers are varints.

// chargeStrings is how many texts a record of a charge group holds.
const chargeStrings = 5

// writeCharge writes charge group g, whose price is numbered price.
func (w *runWriter) writeCharge(g *chargeGroup, price uint32) {
	k := &g.k
	b := binary.AppendVarint(w.buf[:0], k.slot)
	for _, s := range [chargeStrings]string{k.key, k.team, k.user, k.unknown, g.alias} {
		b = appendRunString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(k.outcome))
	b = binary.AppendUvarint(b, uint64(price))
	b = binary.AppendVarint(b, g.calls)
	for _, n := range g.qty {
		b = binary.AppendVarint(b, n)
	}
	b = appendDecimal(b, g.recorded)
	w.buf = b
	w.put(b)
}

// appendDecimal appends d with its exponent, so that it reads back with
// the same digits.
func appendDecimal(b []byte, d decimal.Decimal) []byte {
	c := d.Coefficient()
	if c.IsInt64() {
		b = binary.AppendVarint(append(b, 0), c.Int64())
	} else {
		b = appendRunString(append(b, 1), c.String())
	}
	return binary.AppendVarint(b, int64(d.Exponent()))
}

// decimal reads a decimal appendDecimal wrote.
func (d *record) decimal() decimal.Decimal {
	c := new(big.Int)
	if d.byte() == 0 {
		c.SetInt64(d.varint())
	} else {
		var text string
		d.text(&text)
		if _, ok := c.SetString(text, 10); !ok && d.err == nil {
			d.err = fmt.Errorf("coefficient %q is not an integer", text)
		}
	}
	return decimal.NewFromBigInt(c, int32(d.varint()))
}

// chargeReader reads the records of a run of charge groups back.
type chargeReader struct {
	r      *bufio.Reader
	name   string
	prices *chargePrices
	rec    record
	last   [chargeStrings]recentTexts // as runReader's
}

// next reads the next record into g; false at the end of the run.
func (r *chargeReader) next(g *chargeGroup) (bool, error) {
	ok, err := r.read(g)
	if err != nil {
		return false, fmt.Errorf("%w: read %s: %w", ErrSpill, r.name, err)
	}
	return ok, nil
}

func (r *chargeReader) read(g *chargeGroup) (bool, error) {
	if ok, err := r.rec.read(r.r); !ok || err != nil {
		return false, err
	}
	d := &r.rec
	*g = chargeGroup{}
	k := &g.k
	k.slot = d.varint()
	for i, p := range [chargeStrings]*string{&k.key, &k.team, &k.user, &k.unknown, &g.alias} {
		*p = d.recentText(&r.last[i])
	}
	k.outcome = Outcome(d.uvarint())
	price := d.uvarint()
	g.calls = d.varint()
	for u := range g.qty {
		g.qty[u] = d.varint()
	}
	g.recorded = d.decimal()
	if d.err == nil && price >= uint64(len(r.prices.list)) {
		d.err = fmt.Errorf("price %d, which the engine did not number", price)
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = errors.New("a record longer than its fields")
	}
	if d.err != nil {
		return false, d.err
	}
	p := &r.prices.list[price]
	k.chargePrice, g.pricing = p.chargePrice, p.pricing
	return true, nil
}

// listSource yields the charge groups of a list, from the first.
type listSource []*chargeGroup

func (s *listSource) next(g *chargeGroup) (bool, error) {
	if len(*s) == 0 {
		return false, nil
	}
	*g = *(*s)[0]
	*s = (*s)[1:]
	return true, nil
}

// chargeMerge merges sorted sources of partial charge groups into whole
// ones, in charge order.
type chargeMerge = runMerge[chargeGroup]

// openChargeMerge opens the runs of charge groups files, and the groups
// of mem (in charge order) after them, for merging.
func (e *Engine) openChargeMerge(files []string, mem []*chargeGroup) (*chargeMerge, error) {
	m := &chargeMerge{
		less: func(a, b *chargeGroup) bool { return chargeLess(&a.k, &b.k) },
		same: func(a, b *chargeGroup) bool { return a.k == b.k },
		add:  (*chargeGroup).merge,
	}
	var srcs []runSource[chargeGroup]
	for _, name := range files {
		f, err := e.runs.store.Open(name)
		if err != nil {
			m.close()
			return nil, err
		}
		m.files = append(m.files, f)
		srcs = append(srcs, &chargeReader{r: bufio.NewReaderSize(f, 64<<10), name: runName(f, name), prices: &e.prices})
	}
	if len(mem) > 0 {
		list := listSource(mem)
		srcs = append(srcs, &list)
	}
	if err := m.start(srcs); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

// merge adds part o of the same charge key to g: exactly, so that the
// sum of a charge key's parts is that of its buckets summed at once.
func (g *chargeGroup) merge(o *chargeGroup) {
	g.alias = firstAlias(g.alias, o.alias)
	g.calls += o.calls
	g.qty.Add(&o.qty)
	g.recorded = g.recorded.Add(o.recorded)
}

// eachChargeGroup calls fn with each of the engine's charge groups, in
// charge order, until it returns false: summed from its buckets, or
// merged from its runs of charge groups and the buckets not collapsed.
func (e *Engine) eachChargeGroup(fn func(*chargeGroup) bool) error {
	switch {
	case e.runs.removed:
		return fmt.Errorf("%w: the engine was closed", ErrSpill)
	case e.runs.written > 0 && !e.opts.SpillCharges:
		return fmt.Errorf("%w: the engine spilled its groups without their charges (Options.SpillCharges)", ErrSpill)
	case len(e.runs.charges) == 0:
		for _, g := range e.chargeGroups() {
			if !fn(g) {
				return nil
			}
		}
		return nil
	}
	m, err := e.openChargeMerge(e.runs.charges, e.chargeGroupsOf(e.liveBuckets()))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSpill, err)
	}
	defer m.close()
	var g chargeGroup
	for {
		ok, err := m.next(&g)
		if err != nil || !ok {
			return err
		}
		if !fn(&g) {
			return nil
		}
	}
}

package pricing

import (
	"time"
	"unsafe"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Rollup returns an engine holding e's buckets merged by fewer dimensions:
// one pass over the calls, grouped by every dimension a report needs, then
// rolled up into each view without reading the calls again. Quantities and
// recorded spend add exactly, so a rolled-up engine's results equal those
// of an engine that priced the same calls by dims alone. A dimension e did
// not keep reads as empty; a day is derived from an hour.
func (e *Engine) Rollup(dims []Dim) *Engine {
	r := e.empty(dims)
	fromHours := e.dims.has(DimHour)
	for _, b := range e.table.buckets.all() {
		r.mergeBucket(r.rollKey(b.k, fromHours), b)
	}
	return r
}

// empty returns an engine like e, grouped by dims, with e's row
// accounting and no bucket.
func (e *Engine) empty(dims []Dim) *Engine {
	opts := e.opts
	opts.Dims = dims
	opts.Runs = nil // a rolled-up engine lists its groups
	return &Engine{cat: e.cat, opts: opts, dims: setOf(dims), zone: e.zone, table: groupTable{labels: e.table.labels, values: e.table.values}, rows: e.rows, gate: dupGate{err: e.gate.err, conflicts: e.gate.conflicts},
		total: e.total, sumErr: e.sumErr, span: e.span, tierNotes: e.tierNotes}
}

// rollKey clears the grouping fields of k that r does not keep; fromHours
// says k's slot is an hour.
func (r *Engine) rollKey(k bucketKey, fromHours bool) bucketKey {
	if !r.dims.has(DimGroup) {
		k.group = 0
	}
	if !r.dims.has(DimKey) {
		k.holder.key = 0
	}
	if !r.dims.has(DimTeam) {
		k.holder.team = 0
	}
	if !r.dims.has(DimUser) {
		k.holder.user = 0
	}
	if !r.dims.has(DimHost) {
		k.served = 0
	}
	if !r.dims.has(DimTag) {
		k.holder.tag = 0
	}
	if !r.dims.has(DimMeta) {
		k.holder.meta = 0
	}
	switch {
	case r.dims.has(DimHour), r.dims.has(DimDay) && !fromHours:
	case r.dims.has(DimDay) && fromHours:
		lt := time.Unix(k.slot, 0).In(r.zone)
		k.slot = time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, r.zone).Unix()
	default:
		k.slot = 0
	}
	return k
}

// mergeBucket adds b's sums into the bucket of key k.
func (r *Engine) mergeBucket(k bucketKey, b *bucket) {
	nb := r.table.buckets.get(&k)
	if nb == nil {
		nb = r.table.buckets.add(&k, b.bucketPricing)
	}
	if r.dims.has(DimKey) {
		nb.KeyAlias = firstAlias(nb.KeyAlias, b.KeyAlias)
	}
	nb.Calls += b.Calls
	nb.Qty.Add(&b.Qty)
	nb.recorded.merge(&b.recorded)
}

// Within returns an engine holding the buckets of e whose day (or hour)
// starts in [from, until); e must group by day or hour. Its rows count the
// calls of those buckets by outcome: rejected rows belong to no day.
func (e *Engine) Within(from, until time.Time) *Engine {
	opts := e.opts
	opts.Since, opts.Until = from, until
	w := &Engine{cat: e.cat, opts: opts, dims: e.dims, zone: e.zone, table: groupTable{labels: e.table.labels, values: e.table.values}, gate: dupGate{err: e.gate.err},
		total: e.total, sumErr: e.sumErr}
	lo, hi := from.Unix(), until.Unix()
	for _, b := range e.table.buckets.all() {
		if b.k.slot < lo || b.k.slot >= hi {
			continue
		}
		w.mergeBucket(b.k, b)
		w.rows.countN(b.k.outcome, b.Calls)
	}
	return w
}

// timedTokens returns a priced bucket's tokens of usage types whose price
// differs between the periods of its version, and those billed in the
// dearest period.
func timedTokens(b *bucket) (timed, peak int64) {
	tu := b.timeOfUse
	if !tu.known {
		tu = timeOfUseOf(b)
	}
	for u := range tariffs.NumTokenUsage {
		if tu.timed&(1<<u) != 0 {
			timed += b.Qty[u]
		}
		if tu.peak&(1<<u) != 0 {
			peak += b.Qty[u]
		}
	}
	return timed, peak
}

// timeOfUse says, per token usage type (a bit each), whether a bucket's
// price differs between the periods of its version and tier (timed), and
// whether its period is the dearest of them (peak): what timedTokens
// counts, worked out once per price rather than per bucket.
type timeOfUse struct {
	timed, peak uint32
	known       bool // worked out; the zero value is not
}

// timeOfUseOf works out b's timeOfUse from its prices.
func timeOfUseOf(b *bucket) timeOfUse {
	tu := timeOfUse{known: true}
	for u := range tariffs.NumTokenUsage {
		low, high, isPeak := priceRange(b, tariffs.Usage(u))
		if high.GreaterThan(low) {
			tu.timed |= 1 << u
		}
		if isPeak {
			tu.peak |= 1 << u
		}
	}
	return tu
}

// pricingKey is everything a bucket's pricing is made of: its rates and
// prices, and what priceRange reads of its key besides (timeOfUse).
type pricingKey struct {
	rates   *tariffs.Rates
	prices  *tariffs.ModelPrices
	model   *tariffs.Model
	version *tariffs.Version
	tier    uint8
	miss    tariffs.Miss
	priced  bool
}

// pricingOf returns the pricing of a new bucket of key k for the priced
// call pc, made once per price and shared by its buckets, its timeOfUse
// worked out with it (unknown, the zero value, for a bucket not priced).
//
// Every new bucket asks for one (1.4M of the 4M calls of a month of 8,000
// keys by model, key and day), and the map hashes the key's seven fields:
// a memo of the last pricing for each cheap hash of the key's pointers
// answers most with one comparison.
func (e *Engine) pricingOf(k *bucketKey, pc *PricedCall) *bucketPricing {
	pk := pricingKey{pc.Rates, pc.prices, pc.Quote.Model, k.version, k.tier, pc.Miss, k.outcome == Priced}
	if e.lastPricings == nil {
		e.lastPricings = new([pricingMemoSize]pricingMemo)
	}
	memo := &e.lastPricings[pk.memoSlot()]
	if memo.p != nil && memo.k == pk {
		return memo.p
	}
	if p := e.pricings[pk]; p != nil {
		*memo = pricingMemo{pk, p}
		return p
	}
	p := &bucketPricing{Model: pk.model, Rates: pk.rates, prices: pk.prices, miss: pk.miss, fixed: e.table.fixedOf(pk.rates)}
	if p.Rates != nil && p.Model != nil && k.version != nil && pk.priced {
		p.timeOfUse = timeOfUseOf(&bucket{k: bucketKey{version: k.version, tier: k.tier}, bucketPricing: p})
	}
	if e.pricings == nil {
		e.pricings = map[pricingKey]*bucketPricing{}
	}
	e.pricings[pk] = p
	*memo = pricingMemo{pk, p}
	return p
}

// pricingMemoBits sizes the memo of pricingOf: 256 pricings, where a run
// makes a few hundred.
const (
	pricingMemoBits = 8
	pricingMemoSize = 1 << pricingMemoBits
)

// pricingMemo is a pricing and its key.
type pricingMemo struct {
	k pricingKey
	p *bucketPricing
}

// memoSlot is k's place in the memo of pricingOf: a cheap hash of the
// addresses that mostly tell prices apart, and of the rest.
func (k *pricingKey) memoSlot() uint64 {
	h := uint64(uintptr(unsafe.Pointer(k.rates))) ^ uint64(uintptr(unsafe.Pointer(k.prices)))>>3 ^
		uint64(uintptr(unsafe.Pointer(k.version)))>>6 ^ uint64(uintptr(unsafe.Pointer(k.model)))>>9
	h ^= uint64(k.tier)<<1 ^ uint64(k.miss)<<9
	if k.priced {
		h ^= 1
	}
	return (h * 0x9E3779B97F4A7C15) >> (64 - pricingMemoBits)
}

// merge adds o into s exactly.
func (s *ExactSum) merge(o *ExactSum) {
	s.Add(ledger.NewAmount(o.small, o.exp))
	if o.big != nil {
		s.addBig(*o.big)
	}
}

package pricing

import (
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Rollup returns an engine holding e's buckets merged by fewer dimensions:
// one pass over the calls, grouped by every dimension a report needs, then
// rolled up into each view without reading the calls again. Quantities and
// recorded spend add exactly, so a rolled-up engine's results equal those
// of an engine that priced the same calls by dims alone. A dimension e did
// not keep reads as empty; a day is derived from an hour.
func (e *Engine) Rollup(dims []Dim) *Engine {
	opts := e.opts
	opts.Dims = dims
	r := &Engine{cat: e.cat, opts: opts, dims: setOf(dims), zone: e.zone, rows: e.rows, seenErr: e.seenErr,
		buckets: make(map[bucketKey]*Bucket, len(e.buckets))}
	for k, b := range e.buckets {
		r.mergeBucket(r.rollKey(k), b)
	}
	return r
}

// rollKey clears the grouping fields of k that r does not keep.
func (r *Engine) rollKey(k bucketKey) bucketKey {
	if !r.dims.has(DimGroup) {
		k.group = ""
	}
	if !r.dims.has(DimKey) {
		k.key = ""
	}
	if !r.dims.has(DimTeam) {
		k.team = ""
	}
	if !r.dims.has(DimUser) {
		k.user = ""
	}
	switch {
	case r.dims.has(DimHour):
	case r.dims.has(DimDay):
		lt := time.Unix(k.slot, 0).In(r.zone)
		k.slot = time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, r.zone).Unix()
	default:
		k.slot = 0
	}
	return k
}

// mergeBucket adds b's sums into the bucket of key k.
func (r *Engine) mergeBucket(k bucketKey, b *Bucket) {
	nb := r.buckets[k]
	if nb == nil {
		nb = &Bucket{k: k, Model: b.Model, Rates: b.Rates}
		r.buckets[k] = nb
	}
	if r.dims.has(DimKey) {
		nb.KeyAlias = firstAlias(nb.KeyAlias, b.KeyAlias)
	}
	nb.Calls += b.Calls
	nb.Qty.Add(&b.Qty)
	nb.recorded.Merge(&b.recorded)
}

// Within returns an engine holding the buckets of e whose day (or hour)
// starts in [from, until); e must group by day or hour. Its rows count the
// calls of those buckets by outcome: rejected rows belong to no day.
func (e *Engine) Within(from, until time.Time) *Engine {
	opts := e.opts
	opts.Since, opts.Until = from, until
	w := &Engine{cat: e.cat, opts: opts, dims: e.dims, zone: e.zone, seenErr: e.seenErr, buckets: map[bucketKey]*Bucket{}}
	lo, hi := from.Unix(), until.Unix()
	for k, b := range e.buckets {
		if k.slot < lo || k.slot >= hi {
			continue
		}
		w.mergeBucket(k, b)
		w.rows.countN(k.outcome, b.Calls)
	}
	return w
}

// Slice is the calls of one group of an engine's dimensions, with typed
// keys and sums. Fields of dimensions not grouped by are empty.
type Slice struct {
	Model      string // tariff model id, or the logged name when unknown
	ModelGroup string
	Key        string
	KeyAlias   string
	Team       string
	User       string
	Day        time.Time // start of the day in the engine's zone; zero unless grouped by day
	Currency   string    // currency of the official cost; "" when nothing is priced, "A+B" when mixed

	Calls       int64
	PricedCalls int64
	Tokens      TokenCounts
	// TimedTokens are the priced tokens of usage types whose price differs
	// between periods; PeakTokens those of them billed in the dearest period.
	TimedTokens int64
	PeakTokens  int64
	Official    decimal.Decimal
	Recorded    decimal.Decimal
}

// Gap returns official minus recorded.
func (s *Slice) Gap() decimal.Decimal { return s.Official.Sub(s.Recorded) }

// Ratio returns recorded / official, and false when nothing is official.
func (s *Slice) Ratio() (decimal.Decimal, bool) { return Ratio(s.Recorded, s.Official) }

// PeakShare returns the share of timed tokens billed in the dearest period,
// and false when the slice has no timed tokens.
func (s *Slice) PeakShare() (decimal.Decimal, bool) {
	return Ratio(decimal.NewFromInt(s.PeakTokens), decimal.NewFromInt(s.TimedTokens))
}

// sliceKey identifies a slice.
type sliceKey struct {
	name, group, key, team, user string
	slot                         int64
}

// Slices returns e's calls grouped by its dimensions (model, group, key,
// team, user, day or hour; period and version are not split), sorted by
// those keys in that order.
func (e *Engine) Slices() []Slice {
	byKey := map[sliceKey]*Slice{}
	currencies := map[sliceKey]map[string]bool{}
	for _, b := range e.sortedBuckets() {
		k := b.k
		sk := sliceKey{group: k.group, key: k.key, team: k.team, user: k.user, slot: k.slot}
		if e.dims.has(DimModel) {
			sk.name = k.name()
		}
		s := byKey[sk]
		if s == nil {
			s = &Slice{Model: sk.name, ModelGroup: k.group, Key: k.key, Team: k.team, User: k.user,
				Official: decimal.Zero, Recorded: decimal.Zero}
			if e.dims.has(DimDay) || e.dims.has(DimHour) {
				s.Day = time.Unix(k.slot, 0).In(e.zone)
			}
			byKey[sk], currencies[sk] = s, map[string]bool{}
		}
		s.KeyAlias = firstAlias(s.KeyAlias, b.KeyAlias)
		s.Calls += b.Calls
		s.Tokens.add(&b.Qty)
		s.Recorded = s.Recorded.Add(b.Recorded())
		if k.outcome != Priced {
			continue
		}
		s.PricedCalls += b.Calls
		s.Official = s.Official.Add(b.Official())
		currencies[sk][b.Model.Provider.Currency] = true
		timed, peak := timedTokens(b)
		s.TimedTokens += timed
		s.PeakTokens += peak
	}
	out := make([]Slice, 0, len(byKey))
	for sk, s := range byKey {
		s.Currency = currencyOf(currencies[sk])
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return sliceLess(&out[i], &out[j]) })
	return out
}

func sliceLess(a, b *Slice) bool {
	switch {
	case a.Model != b.Model:
		return a.Model < b.Model
	case a.ModelGroup != b.ModelGroup:
		return a.ModelGroup < b.ModelGroup
	case a.Key != b.Key:
		return a.Key < b.Key
	case a.Team != b.Team:
		return a.Team < b.Team
	case a.User != b.User:
		return a.User < b.User
	}
	return a.Day.Before(b.Day)
}

// timedTokens returns a priced bucket's tokens of usage types whose price
// differs between the periods of its version, and those billed in the
// dearest period.
func timedTokens(b *Bucket) (timed, peak int64) {
	mp := b.k.version.Prices[b.Model]
	isPeak := peakPeriods(b)
	for u := range tariffs.NumUsage {
		if tariffs.Usage(u) == tariffs.Request || b.Qty[u] == 0 {
			continue
		}
		low := b.Rates.Price(tariffs.Usage(u))
		high := low
		for p := range b.k.version.Periods {
			x := mp.RatesAt(p, int(b.k.tier)).Price(tariffs.Usage(u))
			low, high = decimal.Min(low, x), decimal.Max(high, x)
		}
		if high.GreaterThan(low) {
			timed += b.Qty[u]
		}
		if isPeak[u] {
			peak += b.Qty[u]
		}
	}
	return timed, peak
}

package pricing

import (
	"math"

	"github.com/tokenfare/tokenfare/tariffs"
)

// groupTable is the engine's buckets: the table of them by key, the texts
// their keys number (labels: the logged names of unknown models and the
// hosts no tariff prices; values: the groupings), and the budget past
// which a new key's groupings fold into the "(other ...)" values, or the
// engine spills (Options.MaxGroups). Buckets collapsed by a spill keep
// the totals of the groups in runs; they are not counted in the budget.
type groupTable struct {
	buckets     bucketTable
	labels      *texts
	values      *texts // a spilling engine starts them again at a spill past keptValues
	maxGroups   int    // buckets before groupings fold or spill (Options.MaxGroups)
	collapsed   int    // buckets of calls whose groups are in runs
	foldedCalls int64  // calls that landed in a bucket whose groupings were folded
	fixed       map[*tariffs.Rates]*fixedRates
	// newest is the latest day or hour (bucketKey.slot) of a bucket made,
	// noSlot before the first; slotSpill the buckets at which a spilling
	// engine spills when a call opens a later one (endsSlot).
	newest    int64
	slotSpill int
	// keepValues is how many values a collapse keeps (keptValues).
	keepValues int
}

// slotSpillAt is how many buckets not collapsed an engine that spills
// holds before it spills at the end of a day or hour rather than at its
// budget (groupTable.endsSlot): 16,384 buckets, about 3.6 MiB with their
// list and index, where the budget's 388,361 are 88 MiB. A log read in time order
// opens its days one after the other; once a call opens a later day than
// any before, the groups of the days before are mostly complete, and
// writing them then leaves each group in one run, not cut in two by a
// spill inside a day, while the buckets a call looks up stay few. On a
// million groups by model, key and day (4M calls in time order, about
// 31,500 groups a day) 65,536 buckets spilled every second day, at 0.65
// of the peak memory of spilling at the budget alone (188 MiB, 292);
// since a spill keeps the values numbered (keptValues), spilling every
// day at 16,384 takes 0.98 of the CPU of 65,536 and 162 MiB (docs/scale.md,
// "Spilling every day"). A log out of time order opens few later days,
// and spills at its budget as before.
const slotSpillAt = 1 << 14

// noSlot is groupTable.newest before any bucket is made: below every slot.
const noSlot = math.MinInt64

// newGroupTable returns an empty table whose budget is maxGroups buckets,
// or, when not positive, DefaultMaxGroups for an engine that folds and
// DefaultSpillBuckets for one that spills.
func newGroupTable(maxGroups int, spills bool) groupTable {
	if maxGroups <= 0 {
		maxGroups = DefaultMaxGroups
		if spills {
			maxGroups = DefaultSpillBuckets
		}
	}
	return groupTable{labels: &texts{}, values: &texts{}, maxGroups: maxGroups, newest: noSlot, slotSpill: slotSpillAt, keepValues: keptValues}
}

// endsSlot notes the day or hour of a new bucket, slot, and reports
// whether the buckets not collapsed should be spilled before it is made:
// slot is later than any bucket's before, and they are at least
// slotSpill. An engine that groups by neither has every slot 0.
func (g *groupTable) endsSlot(slot int64) bool {
	if slot <= g.newest {
		return false
	}
	first := g.newest == noSlot
	g.newest = slot
	return !first && g.buckets.len()-g.collapsed >= g.slotSpill
}

// full reports whether the buckets not collapsed fill the budget.
func (g *groupTable) full() bool { return g.buckets.len()-g.collapsed >= g.maxGroups }

// idOf returns the function that numbers a grouping's value. Past the
// budget, in an engine that folds rather than spills, a string not
// numbered yet is not numbered (absentText: the bucket is new, its
// groupings folded), so that the texts stay within the budget too.
func (g *groupTable) idOf(spilling bool) func(string) text {
	if g.full() && !spilling {
		return g.values.lookup
	}
	return g.values.id
}

// fixedOf returns r as integers, made once per rates; nil when r is.
func (g *groupTable) fixedOf(r *tariffs.Rates) *fixedRates {
	if r == nil {
		return nil
	}
	f := g.fixed[r]
	if f == nil {
		if g.fixed == nil {
			g.fixed = map[*tariffs.Rates]*fixedRates{}
		}
		f = newFixedRates(r)
		g.fixed[r] = f
	}
	return f
}

// fold returns k with each grouping it has replaced by its "(other ...)"
// value, and the logged name of an unknown model by OtherNames.
func (g *groupTable) fold(k *bucketKey) bucketKey {
	f := *k
	f.folded = true
	for _, x := range []struct {
		v     *text
		other string
	}{{&f.holder.key, OtherKeys}, {&f.holder.team, OtherTeams}, {&f.holder.user, OtherUsers}, {&f.group, OtherGroups},
		{&f.holder.tag, OtherTags}, {&f.holder.meta, OtherMeta}} {
		if *x.v != 0 {
			*x.v = g.values.id(x.other)
		}
	}
	if f.model == nil {
		f.unknown = g.labels.id(OtherNames)
	}
	return f
}

// renumbered returns k with its groupings numbered among the values,
// from their strings in old: after a spill, which starts the values
// again.
func (g *groupTable) renumbered(k *bucketKey, old *texts) bucketKey {
	n := *k
	for _, f := range [...]*text{&n.group, &n.served, &n.holder.key, &n.holder.team, &n.holder.user, &n.holder.tag, &n.holder.meta} {
		*f = g.values.id(old.of(*f))
	}
	return n
}

// live returns the buckets not collapsed: those whose groups are not in
// a run. Buckets of calls kept apart are of no group, so in no run
// either; apart says there may be some. The collapsed buckets are the
// first of the list (collapse makes them, and only them, and no call's
// key is collapsed; a bucket dropped keeps the others' order), so that
// without calls kept apart the live ones are the rest, found without
// reading every bucket's key: a spill of a day of 31,500 buckets read
// each from memory before it sorted them.
func (g *groupTable) live(apart bool) []*bucket {
	bs := g.buckets.all()
	if !apart {
		return bs[g.collapsed:]
	}
	live := make([]*bucket, 0, len(bs)-g.collapsed)
	for _, b := range bs {
		if !b.k.collapsed && !b.k.apart {
			live = append(live, b)
		}
	}
	return live
}

// collapse replaces the buckets by one for each of their keys without
// the groupings, marked collapsed. The day is kept when keepDay: a
// month's days, by model, and its blend window are read from the
// collapsed buckets (MonthOf), and days are few (a year is 365 per
// price). No bucket has a grouping then; the values are kept while they
// are at most keptValues, and start again past it, so that they hold
// those of the buckets to the next spill, not of them all.
func (g *groupTable) collapse(keepDay bool) {
	old := g.startCollapse()
	for _, b := range old.all() {
		g.collapseInto(b, keepDay)
	}
	g.endCollapse(&old)
}

// startCollapse starts a collapse: the table is made anew, empty, and the
// old one returned, each of whose buckets is then to be collapsed into it
// (collapseInto) once, in any order, before endCollapse. Until then the
// old buckets and their list may be read; the old index may not.
func (g *groupTable) startCollapse() bucketTable {
	old := g.buckets
	live := old.len() - g.collapsed
	// The old index is not read again: the new one is made in its memory,
	// and the list in that of the list before it.
	g.buckets = bucketTable{slots: old.slots[:0], list: old.spareList}
	// Room for as many buckets to the next spill as to this one, made
	// once rather than by doubling from the first: the budget after a
	// spill at it, fewer after a spill at a day's end (endsSlot), whose
	// index then stays as small as the buckets a day or two makes.
	g.buckets.reserve(live + g.collapsed + 1)
	return old
}

// endCollapse ends the collapse of the old table, every bucket of which
// has been collapsed: its memory is kept for the buckets to come, and the
// values start again past keepValues.
func (g *groupTable) endCollapse(old *bucketTable) {
	g.buckets.recycle(old)
	g.collapsed = g.buckets.len()
	if g.values.len() > g.keepValues {
		g.values = g.values.emptied()
	}
}

// keptValues is how many values a spill keeps numbered: the keys of a
// gateway and their model groups, teams and users meet again after a
// spill at a day's end, and a value kept is not numbered again, nor are
// the keys of the calls already read ahead (Engine.AddBatch). Past it
// the values start again, as the groupings of the buckets spilled are in
// the runs. 131,072 values take about 13 MiB by the sizes of their map,
// list and index (an estimate, not measured apart), where a month of
// 8,000 keys by model, key and day numbered each again 31 times.
const keptValues = 1 << 17

// collapseInto adds b to the collapsed bucket of its key.
func (g *groupTable) collapseInto(b *bucket, keepDay bool) {
	k := b.k
	k.group, k.served, k.holder, k.collapsed = 0, 0, heldBy{}, true
	if !keepDay {
		k.slot = 0
	}
	c := g.buckets.get(&k)
	if c == nil {
		c = g.buckets.add(&k, b.bucketPricing)
	}
	c.Calls += b.Calls
	c.Qty.Add(&b.Qty)
	c.recorded.merge(&b.recorded)
}

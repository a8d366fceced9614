package pricing

import (
	"github.com/tokenfare/tokenfare/internal/extsort"
)

// An engine with Options.Runs set holds at most its budget of
// buckets (Options.MaxGroups) however many groups the input has. When a
// new bucket would go beyond it, the engine writes the groups of its
// buckets, sorted, to a run in a store of its own (spill), and collapses
// the buckets into one per price: model, version, period, tier, outcome
// and the like, without their groupings (collapse). The collapsed buckets
// keep the totals, the explanations and the billed modifiers whole; the
// runs keep the groups. Reconcile's groups are then the runs and the
// buckets made since, merged as they are read (extsort.Merge): a group whose
// calls fell on both sides of a spill is summed from its parts, exactly,
// as costs are linear in token counts and the sums are of integers.

// spill writes the groups of the buckets not yet collapsed to a new run
// and collapses every bucket.
func (e *Engine) spill() {
	err := e.writeRun()
	if err == nil && e.keeps(OutputCharges) {
		err = e.runs.charges.Write(pointers(e.chargeGroupsOf(e.liveBuckets())))
	}
	if err != nil {
		e.runs.fail(err)
		return
	}
	e.collapse()
}

// writeRun writes the groups of the buckets not yet collapsed, in order,
// to a new run, the runs merged into one first when there are as many as
// the engine keeps (spillRuns.max).
func (e *Engine) writeRun() error {
	if e.runs.store == nil {
		if err := e.runs.open(e.groupRuns, e.chargeRuns); err != nil {
			return err
		}
	}
	c := e.spillCursor(e.liveBuckets())
	return e.runs.groups.Write(extsort.SourceFunc[groupSum](func(s *groupSum) (bool, error) {
		ok := c.next(s, nil, 0)
		e.runs.aliased = e.runs.aliased || (ok && s.g.KeyAlias != "")
		return ok, nil
	}))
}

// groupRuns is the configuration of the engine's runs of groups in store:
// in the order of their keys, the parts of a group summed.
func (e *Engine) groupRuns(store RunStore) extsort.Config[groupSum] {
	dims := sortedDims(e.opts.Dims)
	zone, cat, blend := e.zone, e.blendCatalog(), e.keeps(OutputChargeback)
	return extsort.Config[groupSum]{
		Store: store, Prefix: "run", MaxRuns: e.runs.max, Err: ErrSpill,
		Codec:   func() extsort.Codec[groupSum] { return &groupCodec{zone: zone, cat: cat, blend: blend} },
		Compare: func(a, b *groupSum) int { return compareKeys(&a.g.Key, &b.g.Key, dims) },
		Same:    func(a, b *groupSum) bool { return a.g.Key == b.g.Key },
		Combine: (*groupSum).merge,
	}
}

// pointers yields the records a list points to, from the first.
func pointers[T any](list []*T) extsort.Source[T] {
	return extsort.SourceFunc[T](func(v *T) (bool, error) {
		if len(list) == 0 {
			return false, nil
		}
		*v = *list[0]
		list = list[1:]
		return true, nil
	})
}

// liveBuckets returns the buckets not collapsed: those whose groups are
// not in a run, nor kept apart (Options.Apart).
func (e *Engine) liveBuckets() []*bucket { return e.table.live(e.opts.Apart != nil) }

// collapse collapses the buckets (groupTable.collapse), keeping the day
// of an engine grouped by day, and forgets the buckets the model names'
// caches point to.
func (e *Engine) collapse() {
	e.table.collapse(e.dims.has(DimDay))
	e.names.forget()
}

// Close removes the runs the engine wrote, if any. The groups of a
// Reconciliation streamed from them cannot be read after.
func (e *Engine) Close() error { return e.runs.remove() }

// groupsOf returns the groups whose sums go by, each made with its
// decimals (groupSum.done), as a function that goes over them each time
// it is called.
func groupsOf(sums func(fn func(*groupSum) error) error) func(fn func(*Group) error) error {
	return func(fn func(*Group) error) error {
		return sums(func(s *groupSum) error {
			g := s.done()
			return fn(&g)
		})
	}
}

// streamSums returns the sums of the engine's groups, in order, as a
// function that goes over them, from the runs and the buckets not
// collapsed, each time it is called.
func (e *Engine) streamSums() func(fn func(*groupSum) error) error {
	var c *groupCursor
	return func(fn func(*groupSum) error) error {
		if c == nil {
			c = e.spillCursor(e.liveBuckets())
		}
		return e.eachSumOf(c, fn)
	}
}

// eachGroupSum calls fn with the sums of each of the engine's groups, in
// order, from the runs and the buckets not collapsed, and returns fn's
// first error or that of reading the runs. fn must not keep s past its
// call.
func (e *Engine) eachGroupSum(fn func(s *groupSum) error) error {
	return e.eachSumOf(e.spillCursor(e.liveBuckets()), fn)
}

// eachSumOf is eachGroupSum with the cursor over the buckets not
// collapsed, made once for a stream gone over more than once.
func (e *Engine) eachSumOf(c *groupCursor, fn func(s *groupSum) error) error {
	if err := e.runs.readable(); err != nil {
		return err
	}
	c.rewind()
	m, err := e.openMerge(c)
	if err != nil {
		return err
	}
	defer func() { _ = m.Close() }() // runs opened for reading: closing them loses nothing
	var s groupSum
	for {
		ok, err := m.Next(&s)
		if err != nil || !ok {
			return err
		}
		if err := fn(&s); err != nil {
			return err
		}
	}
}

// cursorSource is a groupCursor as a source of the merge.
type cursorSource struct{ c *groupCursor }

func (s cursorSource) Next(g *groupSum) (bool, error) { return s.c.next(g, nil, 0), nil }

// openMerge opens the runs of groups, and the groups of mem after them,
// for merging.
func (e *Engine) openMerge(mem *groupCursor) (*extsort.Merge[groupSum], error) {
	runs := e.runs.groups
	if runs == nil { // no spill: the groups of mem alone
		cfg := e.groupRuns(nil)
		cfg.MaxRuns = 1
		runs = extsort.New(cfg)
	}
	return runs.Merge(cursorSource{mem})
}

// compareKeys compares group keys as the groups are ordered: by their
// values in dims, one after the other (dims sorted by name).
func compareKeys(a, b *GroupKey, dims []Dim) int {
	for _, d := range dims {
		if c := compareValue(a, b, d); c != 0 {
			return c
		}
	}
	return 0
}

// merge adds the partial group o, of the same key, to s.
func (s *groupSum) merge(o *groupSum) {
	g, h := &s.g, &o.g
	s.official.merge(&o.official)
	s.recorded.merge(&o.recorded)
	g.Calls += h.Calls
	g.PricedCalls += h.PricedCalls
	for _, c := range h.Currencies {
		g.Currencies = addCurrency(g.Currencies, c)
	}
	g.Tokens.Add(&h.Tokens)
	g.TimedTokens += h.TimedTokens
	g.PeakTokens += h.PeakTokens
	g.CacheHitTokens += h.CacheHitTokens
	g.KeyAlias = firstAlias(g.KeyAlias, h.KeyAlias)
	s.blend.merge(&o.blend)
}

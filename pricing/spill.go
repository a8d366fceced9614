package pricing

import (
	"iter"

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
//
// Unless the charge groups are kept too (read from the live buckets once
// the run is written) or calls are kept apart (buckets of no group, in
// the list among the others), each bucket is collapsed as the run's
// cursor sums it, while it is in the core's cache: a collapse after the
// run read each of a day's 31,500 buckets from memory again.
func (e *Engine) spill() {
	if e.runs.store == nil {
		if err := e.runs.open(e.groupRuns, e.chargeRuns); err != nil {
			e.runs.fail(err)
			return
		}
	}
	if e.keeps(OutputCharges) || e.opts.Apart != nil {
		err := e.writeRun(e.liveBuckets(), nil)
		if err == nil && e.keeps(OutputCharges) {
			err = e.runs.charges.Write(pointers(e.chargeGroupsOf(e.liveBuckets())))
		}
		if err != nil {
			e.runs.fail(err)
			return
		}
		e.collapse()
		return
	}
	g, keepDay := &e.table, e.dims.has(DimDay)
	live := e.liveBuckets()
	old := g.startCollapse()
	for _, b := range old.all()[:g.collapsed] { // collapsed at earlier spills: the list's first (groupTable.live)
		g.collapseInto(b, keepDay)
	}
	// The cursor hands every live bucket over, the run written or not:
	// the table is whole either way, and a run that failed fails the
	// engine's results (spillRuns.fail).
	err := e.writeRun(live, func(b *bucket) { g.collapseInto(b, keepDay) })
	g.endCollapse(&old)
	e.names.forget()
	if err != nil {
		e.runs.fail(err)
	}
}

// writeRun writes the groups of the buckets live, not yet collapsed, in
// order, to a new run, the runs merged into one first when there are as
// many as the engine keeps (spillRuns.max). Each of the buckets is given
// to each, when not nil, once, whether the run could be written or not.
// The runs are open (spillRuns.open).
func (e *Engine) writeRun(live []*bucket, each func(*bucket)) error {
	c := e.spillCursor(live)
	c.each = each
	if e.runs.groups.Len() >= e.runs.groups.MaxRuns() {
		e.runs.textsOf().rank() // the runs are merged into one first
	}
	err := e.runs.groups.Write(extsort.SourceFunc[groupSum](func(s *groupSum) (bool, error) {
		ok := c.next(s, nil, 0)
		e.runs.aliased = e.runs.aliased || (ok && s.g.KeyAlias != "")
		return ok, nil
	}))
	if each != nil {
		c.drain()
	}
	return err
}

// groupRuns is the configuration of the engine's runs of groups in store:
// in the order of their keys, the parts of a group summed.
func (e *Engine) groupRuns(store RunStore) extsort.Config[groupSum] {
	dims, texts := e.opts.Dims, e.runs.textsOf()
	zone, cat, blend := e.zone, e.blendCatalog(), e.keeps(OutputChargeback)
	order := newKeyOrder(dims, texts)
	return extsort.Config[groupSum]{
		Store: store, Prefix: "run", MaxRuns: e.runs.max, Err: ErrSpill,
		Codec: func() extsort.Codec[groupSum] {
			c := newGroupCodec(zone, cat, blend, texts, dims)
			c.values = &e.table.values
			return c
		},
		Compare: order.compare,
		Same:    order.same,
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

// Close lets go of the engine's runs, if it wrote any: they are removed
// now, or once the last result that streams from them (a Reconciliation,
// a Chargeback) is closed. The engine's results made after cannot read
// them (ErrClosed). Closing it again does nothing.
func (e *Engine) Close() error { return e.runs.remove() }

// groupStream is where the groups of an engine with Options.Runs are
// read from: its runs of groups merged with the groups of its buckets
// not collapsed (mem), as they are read (extsort.Merge). ref is the
// reference to the runs' store a result's stream holds (nil for the
// engine's own reads, and when no run was written).
type groupStream struct {
	runs  *extsort.Runs[groupSum]
	texts *runTexts // ranked before the runs are read back
	mem   *groupCursor
	ref   *runFiles
	err   error // the engine was closed before the stream was made
}

// groupStream returns the stream of the engine's groups, from its runs
// and the buckets not collapsed; it holds no reference to the runs.
func (e *Engine) groupStream() *groupStream {
	if err := e.runs.readable(); err != nil {
		return &groupStream{err: err}
	}
	s := &groupStream{runs: e.runs.groups, texts: e.runs.textsOf(), mem: e.spillCursor(e.liveBuckets())}
	if s.runs == nil { // no spill: the groups of the buckets alone
		cfg := e.groupRuns(nil)
		cfg.MaxRuns = 1
		s.runs = extsort.New(cfg)
	}
	return s
}

// sums yields the sums of the stream's groups, in order, and last the
// error of reading the runs back, if any. Each pass reads the buckets
// with a cursor of its own, so that passes may be nested; a pass left
// early (break) closes the runs it opened. The sums yielded are valid
// until the next.
func (s *groupStream) sums() iter.Seq2[*groupSum, error] {
	return func(yield func(*groupSum, error) bool) {
		if s.err != nil {
			yield(nil, s.err)
			return
		}
		mem := *s.mem
		mem.rewind()
		s.texts.rank()
		m, err := s.runs.Merge(cursorSource{&mem})
		if err != nil {
			yield(nil, err)
			return
		}
		for g, err := range m.All() {
			if !yield(g, err) {
				return
			}
		}
	}
}

// groupSums yields the sums of the engine's groups, in order, from the
// runs and the buckets not collapsed (groupStream.sums).
func (e *Engine) groupSums() iter.Seq2[*groupSum, error] { return e.groupStream().sums() }

// cursorSource is a groupCursor as a source of the merge.
type cursorSource struct{ c *groupCursor }

func (s cursorSource) Next(g *groupSum) (bool, error) { return s.c.next(g, nil, 0), nil }

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
	if a := firstAlias(g.KeyAlias, h.KeyAlias); a != g.KeyAlias {
		g.KeyAlias, s.ids[slotAlias] = a, o.ids[slotAlias]
		s.numbered = s.numbered && o.numbered
	}
	s.blend.merge(&o.blend)
}

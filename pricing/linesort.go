package pricing

import (
	"errors"
	"fmt"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// The lines of a chargeback come dearest first, an order known only once
// every group is summed. An engine that spilled its groups (and groups by
// no tag, whose lines merge by tag) sorts its lines as it sorts its
// groups: at most a share of its budget of them in memory (lineBudget),
// sorted, written to a run of lines beside its runs of groups, and the
// runs merged, dearest first, as the lines are read (Chargeback.EachLine).
// A line's record is its group's, its blend parts its cost at the blended
// prices alone.

// lineEntry is a line with the sums of its group, which its record holds.
type lineEntry struct {
	s groupSum
	l ChargebackLine
}

// compareLines orders lines dearest first: by official cost descending,
// then recorded spend descending, then as Reconcile orders groups (by
// their values in dims, sorted by name).
func compareLines(a, b *ChargebackLine, dims []Dim) int {
	if c := a.Official.Cmp(b.Official); c != 0 {
		return -c
	}
	if c := a.Recorded.Cmp(b.Recorded); c != 0 {
		return -c
	}
	return compareKeys(&a.Key, &b.Key, dims)
}

// lineSorter sorts an engine's chargeback lines within its budget.
type lineSorter struct {
	e     *Engine
	dims  []Dim
	chunk []lineEntry
	runs  []string
	made  int // runs of lines made, for their names
	n     int // lines added
}

// add adds line l of group s.
func (ls *lineSorter) add(s *groupSum, l *ChargebackLine) error {
	ent := lineEntry{s: *s, l: *l}
	ent.s.blend = blendParts{}
	ent.s.blend.own.Add(ledger.AmountOf(l.AtBlended))
	ls.chunk = append(ls.chunk, ent)
	ls.n++
	if len(ls.chunk) >= ls.e.lineBudget() {
		return ls.flush()
	}
	return nil
}

// lineBudget is how many lines an engine holds before it writes them to
// a run: an eighth of its budget of buckets, as a line and the sums it is
// written from take about eight times a bucket's memory (docs/scale.md).
func (e *Engine) lineBudget() int { return max(e.maxGroups/8, 1) }

// sortChunk sorts the lines held, dearest first.
func (ls *lineSorter) sortChunk() {
	slices.SortFunc(ls.chunk, func(a, b lineEntry) int { return compareLines(&a.l, &b.l, ls.dims) })
}

// flush writes the lines held, sorted, to a new run, merging the runs
// into one first when there are as many as the engine keeps
// (spillRuns.max).
func (ls *lineSorter) flush() error {
	if len(ls.runs) >= ls.e.runs.max {
		m, err := ls.open(ls.runs)
		if err != nil {
			return err
		}
		old := ls.runs
		ls.runs = nil
		err = ls.write(groupsOfLines(m))
		err = errors.Join(err, m.close())
		for _, f := range old {
			err = errors.Join(err, ls.e.runs.store.Remove(f))
		}
		if err != nil {
			return err
		}
	}
	ls.sortChunk()
	i := 0
	err := ls.write(func(s *groupSum) (bool, error) {
		if i == len(ls.chunk) {
			return false, nil
		}
		*s = ls.chunk[i].s
		i++
		return true, nil
	})
	clear(ls.chunk)
	ls.chunk = ls.chunk[:0]
	return err
}

// write writes the groups next yields to a new run of lines.
func (ls *lineSorter) write(next func(*groupSum) (bool, error)) error {
	name := fmt.Sprintf("lines-%06d", ls.made)
	ls.made++
	created, err := writeRunFile(ls.e.runs.store, name, true, next, (*runWriter).write)
	if created {
		ls.runs = append(ls.runs, name)
	}
	return err
}

// lineMerge merges sorted runs of lines, dearest first; no two lines of
// the runs are parts of one.
type lineMerge = runMerge[lineEntry]

// open opens the runs of lines files for merging.
func (ls *lineSorter) open(files []string) (*lineMerge, error) {
	m := &lineMerge{
		less: func(a, b *lineEntry) bool { return compareLines(&a.l, &b.l, ls.dims) < 0 },
		same: func(a, b *lineEntry) bool { return false },
	}
	var readers []*runReader
	var err error
	if m.files, readers, err = openRuns(ls.e.runs.store, files, ls.e.zone, ls.e.cat); err != nil {
		return nil, err
	}
	srcs := make([]runSource[lineEntry], len(readers))
	for i, r := range readers {
		srcs[i] = lineSource{r}
	}
	if err := m.start(srcs); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

// lineSource is a run of lines as a runSource.
type lineSource struct{ r *runReader }

// next reads the run's next line.
func (s lineSource) next(ent *lineEntry) (bool, error) {
	ok, err := s.r.next(&ent.s)
	if !ok || err != nil {
		return false, err
	}
	ent.l = lineOf(&ent.s)
	return true, nil
}

// lineOf returns the line of a group read back from a run of lines.
func lineOf(s *groupSum) ChargebackLine {
	g := s.done()
	l := newLine(&g)
	l.AtBlended = s.blend.own.Value()
	l.peakQty, l.timedQty = g.PeakTokens, g.TimedTokens
	l.finish()
	return *l
}

// groupsOfLines returns a function that moves the dearest line's group
// of m to s.
func groupsOfLines(m *lineMerge) func(s *groupSum) (bool, error) {
	return func(s *groupSum) (bool, error) {
		var ent lineEntry
		ok, err := m.next(&ent)
		*s = ent.s
		return ok, err
	}
}

// sortedLines fills cb's lines from the groups the engine spilled and
// its buckets since, each priced at the blended prices from its blend
// parts (Options.SpillBlend), keeping those keep accepts: listed when
// they are within the engine's budget, else streamed from sorted runs.
func (e *Engine) sortedLines(cb *Chargeback, prices map[*tariffs.Model]*[tariffs.NumUsage]decimal.NullDecimal, keep func(*ChargebackLine) bool) error {
	if !e.opts.SpillBlend {
		return fmt.Errorf("%w: the engine spilled its groups without their blend parts (Options.SpillBlend)", ErrSpill)
	}
	ls := &lineSorter{e: e, dims: sortedDims(e.opts.Dims)}
	err := e.eachGroupSum(func(s *groupSum) error {
		g := s.done()
		l := newLine(&g)
		l.AtBlended = s.blend.atBlended(prices)
		l.peakQty, l.timedQty = g.PeakTokens, g.TimedTokens
		l.finish()
		if keep != nil && !keep(l) {
			return nil
		}
		return ls.add(s, l)
	})
	if err != nil {
		return err
	}
	cb.count = ls.n
	if len(ls.runs) == 0 {
		ls.sortChunk()
		for i := range ls.chunk {
			cb.Lines = append(cb.Lines, ls.chunk[i].l)
		}
		return nil
	}
	if len(ls.chunk) > 0 {
		if err := ls.flush(); err != nil {
			return err
		}
	}
	ls.chunk = nil // the stream keeps ls: not its share of lines
	runs := ls.runs
	cb.stream = func(fn func(*ChargebackLine) error) error {
		if e.runs.removed {
			return fmt.Errorf("%w: the engine was closed", ErrSpill)
		}
		m, err := ls.open(runs)
		if err != nil {
			return err
		}
		defer m.close()
		var ent lineEntry
		for {
			ok, err := m.next(&ent)
			if err != nil || !ok {
				return err
			}
			if err := fn(&ent.l); err != nil {
				return err
			}
		}
	}
	return nil
}

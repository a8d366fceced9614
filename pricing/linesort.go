package pricing

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/extsort"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// The lines of a chargeback come dearest first, an order known only once
// every group is summed. An engine that spilled its groups (and groups by
// no tag, whose lines merge by tag) sorts its lines as it sorts its
// groups: at most a share of its budget of them in memory (lineBudget),
// sorted, written to a run of lines beside its runs of groups, and the
// runs merged, dearest first, as the lines are read (Chargeback.Lines).
// Each chargeback's runs of lines are named apart ("lines-1-000000"), its
// own: its Close removes them.
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

// lineBudget is how many lines an engine holds before it writes them to
// a run: an eighth of its budget of buckets, as a line and the sums it is
// written from take about eight times a bucket's memory (docs/scale.md).
func (e *Engine) lineBudget() int { return max(e.table.maxGroups/8, 1) }

// lineRuns is the configuration of a new set of runs of an engine's
// lines: dearest first, no two of them parts of one, named apart from
// the sets before.
func (e *Engine) lineRuns() extsort.Config[lineEntry] {
	dims, texts := sortedDims(e.opts.Dims), e.runs.textsOf()
	zone, cat := e.zone, e.cat
	e.runs.lineSet++
	return extsort.Config[lineEntry]{
		Store: e.runs.store, Prefix: fmt.Sprintf("lines-%d", e.runs.lineSet), MaxRuns: e.runs.max, Err: ErrSpill,
		Codec: func() extsort.Codec[lineEntry] {
			return &lineCodec{groups: *newGroupCodec(zone, cat, true, texts, dims)}
		},
		Compare: func(a, b *lineEntry) int { return compareLines(&a.l, &b.l, dims) },
	}
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

// sortedLines fills cb's lines from the groups the engine spilled and
// its buckets since, each priced at the blended prices from its blend
// parts (OutputChargeback), keeping those keep accepts: listed when
// they are within the engine's budget, else streamed from sorted runs.
func (e *Engine) sortedLines(cb *Chargeback, prices map[*tariffs.Model]*[tariffs.NumUsage]decimal.NullDecimal, keep func(*ChargebackLine) bool) error {
	if !e.keeps(OutputChargeback) {
		return notAsked("Chargeback")
	}
	ls, err := e.sortLines(prices, keep)
	if err != nil {
		return err
	}
	cb.count = ls.Added()
	runs := ls.Runs()
	if runs.Len() == 0 {
		for _, ent := range ls.Held() {
			cb.lines = append(cb.lines, ent.l)
		}
		return nil
	}
	if len(ls.Held()) > 0 {
		if err := ls.Flush(); err != nil {
			return err
		}
	}
	ls.Release() // the stream keeps the runs: not a share of lines
	cb.stream = &lineStream{runs: runs, ref: e.runs.ref.hold()}
	return nil
}

// sortLines adds the lines keep accepts, priced at prices, to a sorter
// within the engine's budget of lines.
func (e *Engine) sortLines(prices map[*tariffs.Model]*[tariffs.NumUsage]decimal.NullDecimal, keep func(*ChargebackLine) bool) (*extsort.Sorter[lineEntry], error) {
	ls := extsort.NewSorter(extsort.New(e.lineRuns()), e.lineBudget())
	for s, err := range e.groupSums() {
		if err != nil {
			return ls, err
		}
		g := s.done()
		l := newLine(&g)
		l.AtBlended = s.blend.atBlended(prices)
		l.peakQty, l.timedQty = g.PeakTokens, g.TimedTokens
		l.finish()
		if keep != nil && !keep(l) {
			continue
		}
		// The record keeps the line's cost at the blended prices alone.
		ent := lineEntry{s: *s, l: *l}
		ent.s.blend = blendParts{}
		ent.s.blend.own.Add(ledger.AmountOf(l.AtBlended))
		if err := ls.Add(&ent); err != nil {
			return ls, err
		}
	}
	return ls, nil
}

// lineStream is where the lines of a chargeback that streams them are
// read from: its own runs of lines, in the engine's store, to which it
// holds a reference (ref).
type lineStream struct {
	runs *extsort.Runs[lineEntry]
	ref  *runFiles
}

// lines yields the lines of the runs, merged dearest first, then the
// error of reading them back, if any; it closes the runs it opened
// however the loop ends.
func (s *lineStream) lines(yield func(*ChargebackLine, error) bool) {
	m, err := s.runs.Merge()
	if err != nil {
		yield(nil, err)
		return
	}
	for ent, err := range m.All() {
		if err != nil {
			yield(nil, err)
			return
		}
		if !yield(&ent.l, nil) {
			return
		}
	}
}

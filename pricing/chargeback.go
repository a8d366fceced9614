package pricing

import (
	"errors"
	"fmt"
	"iter"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Chargeback is what each key, team, user or model (the engine's
// dimensions) cost over a period at official prices, beside what the
// gateway recorded and what the gateway's blended prices would charge.
//
// A gateway with one flat price per model charges every consumer the same
// blend of peak and off-peak: a consumer that works at peak pays less than
// its official cost (Subsidy < 0), the others make up the difference
// (Subsidy > 0). Subsidies add up to the blend's rounding.
//
// Its lines are read with Lines, whether they are listed or streamed from
// sorted runs (an engine that spilled more of them than its budget);
// streamed lines hold their own reference to the engine's runs, which
// Close lets go of. Close it once read.
type Chargeback struct {
	Rows         Rows
	From, Until  time.Time // the period, [From, Until)
	Currencies   []string  // of the priced calls, sorted
	By           []Dim
	MetaField    string         // the field of the key's metadata DimMeta groups by
	Gateway      ChargebackLine // the whole gateway: every call read in the period (but excluded keys')
	BlendedPrice []BlendModel   // the gateway's blended prices that AtBlended uses
	// Excluded sums the calls left out (Options.Apart, TakeApart), when
	// any were: Gateway plus Excluded is every call read in the period.
	Excluded *ChargebackLine
	// Unpriced are the period's calls left without a price, by model, host
	// and cause (Engine.UnpricedCalls); empty when none.
	Unpriced []UnpricedCalls

	lines  []ChargebackLine // the lines by the dimensions, dearest first, when listed
	stream *lineStream      // the lines, when streamed from sorted runs (sortedLines)
	count  int              // the lines streamed
	closed bool             // Close was called: the lines cannot be read
}

// Lines yields the lines by the dimensions, dearest first (see
// Chargeback), listed or streamed alike, and last, with a nil line, the
// error of reading streamed lines back (ErrSpill), or ErrClosed after
// Close. A line yielded is valid until the next: copy what is kept.
// Streamed lines can be gone over as often as wanted, their engine
// closed or not, until the chargeback is closed; a loop left early
// leaves nothing open.
func (c *Chargeback) Lines() iter.Seq2[*ChargebackLine, error] {
	return func(yield func(*ChargebackLine, error) bool) {
		switch {
		case c.closed:
			yield(nil, fmt.Errorf("the lines of a closed chargeback: %w", ErrClosed))
		case c.stream == nil:
			for i := range c.lines {
				if !yield(&c.lines[i], nil) {
					return
				}
			}
		default:
			c.stream.lines(yield)
		}
	}
}

// Len returns how many lines there are, listed or streamed.
func (c *Chargeback) Len() int {
	if c.stream != nil {
		return c.count
	}
	return len(c.lines)
}

// Close removes the runs of lines the chargeback streams from, if it
// does, and lets go of the engine's runs, which are removed once their
// engine and every other result reading them are closed too. Lines
// yields ErrClosed after. Closing again does nothing.
func (c *Chargeback) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	if c.stream == nil {
		return nil
	}
	return errors.Join(c.stream.runs.Remove(), c.stream.ref.release())
}

// ChargebackLine is one consumer's account.
type ChargebackLine struct {
	Key      GroupKey
	KeyAlias string
	Calls    int64
	Tokens   TokenCounts
	Official decimal.Decimal
	Recorded decimal.Decimal
	Diff     decimal.Decimal // Official − Recorded: positive when the gateway recorded too little
	// PeakShare is the share of the line's time-of-use tokens (of usage
	// types whose price differs between the periods of their tariff
	// version) billed in the dearest period, as the workbook's By key
	// sheet has it; not valid without such tokens.
	PeakShare decimal.NullDecimal
	// AtBlended is the line's priced quantities at the gateway's blended
	// prices (per model and usage type, over the whole period); calls of a
	// service tier or region the blend leaves out count at their official
	// cost, so they subsidise no one.
	AtBlended decimal.Decimal
	// Subsidy is AtBlended − Official: what the line pays for others under
	// a blend (negative: what others pay for it).
	Subsidy decimal.Decimal
	// ReasoningShare is reasoning tokens over output tokens; not valid
	// without output.
	ReasoningShare decimal.NullDecimal
	// CacheHitTokens are the tokens of calls answered from the gateway's
	// cache, kept out of Tokens: no provider billed them.
	CacheHitTokens int64

	peakQty, timedQty int64
}

// Chargeback builds the accounts of every group of the engine over the
// period [from, until) it priced, keeping the lines keep accepts (nil: all).
// The gateway line and the blended prices always cover every call.
//
// Lines come dearest first: by official cost descending, then recorded
// spend descending, then by their values as Reconcile orders its groups
// (dimension by dimension in the order of the dimensions' names), so the
// order is the same on every run. An engine that spilled its groups
// (Options.Runs, asked for OutputChargeback) gives the same lines, streamed from
// sorted runs when there are more than it holds (Chargeback.Lines);
// the error is that of reading its runs back (ErrSpill), or ErrClosed
// when the engine was closed after it spilled.
func (e *Engine) Chargeback(from, until time.Time, keep func(*ChargebackLine) bool) (*Chargeback, error) {
	if err := e.runs.readable(); err != nil {
		return nil, err // its groups went with its runs
	}
	rec := e.newReconciliation()
	blend := e.BlendWindow(from, until, ModePerModel)
	prices := e.blendedPrices(blend)
	cb := &Chargeback{Rows: e.rows, From: from.UTC(), Until: until.UTC(), Currencies: rec.Currencies,
		By: rec.By, MetaField: e.opts.MetaField, BlendedPrice: blend.Models, Unpriced: rec.Unpriced}
	gw := &cb.Gateway
	gw.Official, gw.Recorded, gw.AtBlended = rec.Totals.Official, rec.Totals.Recorded, decimal.Zero
	gw.Calls, gw.Diff = rec.Totals.Calls, rec.Totals.Gap
	// In list order: every sum is exact, so none depends on the order.
	for _, b := range e.table.buckets.all() {
		if b.k.outcome == CacheHit {
			gw.CacheHitTokens += b.Qty.Tokens()
		} else {
			gw.Tokens.AddQuantities(&b.Qty)
		}
		if b.k.outcome == Priced {
			gw.AtBlended = gw.AtBlended.Add(bucketAtBlended(b, prices))
			timed, peak := timedTokens(b)
			gw.peakQty += peak
			gw.timedQty += timed
		}
	}
	gw.finish()
	spilled := e.runs.files() > 0
	if spilled && !e.dims.has(DimTag) {
		if err := e.sortedLines(cb, prices, keep); err != nil {
			return nil, err
		}
		return cb, nil
	}
	var order []*ChargebackLine
	if spilled {
		var err error
		if order, err = e.streamedLines(prices); err != nil {
			return nil, err
		}
	} else {
		order = e.bucketLines(prices)
	}
	if e.dims.has(DimTag) {
		order = splitTags(order)
	}
	for _, l := range order {
		l.finish()
	}
	sort.SliceStable(order, func(i, j int) bool {
		if c := order[i].Official.Cmp(order[j].Official); c != 0 {
			return c > 0
		}
		return order[i].Recorded.GreaterThan(order[j].Recorded)
	})
	for _, l := range order {
		if keep == nil || keep(l) {
			cb.lines = append(cb.lines, *l)
		}
	}
	return cb, nil
}

// newLine starts the chargeback line of group g.
func newLine(g *Group) *ChargebackLine {
	return &ChargebackLine{Key: g.Key, KeyAlias: g.KeyAlias, Calls: g.Calls, Tokens: g.Tokens, CacheHitTokens: g.CacheHitTokens,
		Official: g.Official, Recorded: g.Recorded, Diff: g.Gap, AtBlended: decimal.Zero}
}

// bucketLines returns the lines of the engine's groups, in Reconcile's
// order, from its buckets: an engine that did not spill.
func (e *Engine) bucketLines(prices map[*tariffs.Model]*[tariffs.NumUsage]decimal.NullDecimal) []*ChargebackLine {
	of := make([]int32, e.table.buckets.len())
	groups := e.sortedGroups(of)
	order := make([]*ChargebackLine, len(groups))
	for i := range groups {
		order[i] = newLine(&groups[i])
	}
	for i, b := range e.table.buckets.all() {
		if b.k.outcome != Priced {
			continue
		}
		l := order[of[i]]
		l.AtBlended = l.AtBlended.Add(bucketAtBlended(b, prices))
		timed, peak := timedTokens(b)
		l.peakQty += peak
		l.timedQty += timed
	}
	return order
}

// streamedLines returns the lines of the engine's groups, in Reconcile's
// order, from the groups it spilled and its buckets since, merged: each
// priced at the blended prices from its blend parts (OutputChargeback).
// It serves lines by tag, which merge by tag once split, and so are held;
// other lines are sorted within the budget (sortedLines).
func (e *Engine) streamedLines(prices map[*tariffs.Model]*[tariffs.NumUsage]decimal.NullDecimal) ([]*ChargebackLine, error) {
	if !e.keeps(OutputChargeback) {
		return nil, notAsked("Chargeback")
	}
	var order []*ChargebackLine
	for s, err := range e.groupSums() {
		if err != nil {
			return nil, err
		}
		g := s.done()
		l := newLine(&g)
		l.AtBlended = s.blend.atBlended(prices)
		l.peakQty, l.timedQty = g.PeakTokens, g.TimedTokens
		order = append(order, l)
	}
	return order, nil
}

// bucketAtBlended is priced bucket b's cost at the blended prices: its
// official cost when the blend leaves its calls out (another service
// tier, a region), as no flat price charges them.
func bucketAtBlended(b *bucket, prices map[*tariffs.Model]*[tariffs.NumUsage]decimal.NullDecimal) decimal.Decimal {
	if b.k.variant != 0 {
		return b.Official()
	}
	return atBlended(b, prices[b.Model])
}

// Line returns the engine's whole account as one line: what
// Chargeback's gateway line would be, without the blend.
func (e *Engine) Line() ChargebackLine {
	rec := e.newReconciliation()
	l := ChargebackLine{Calls: rec.Totals.Calls, Official: rec.Totals.Official, Recorded: rec.Totals.Recorded,
		Diff: rec.Totals.Gap, AtBlended: decimal.Zero}
	for _, b := range e.table.buckets.all() {
		if b.k.outcome == CacheHit {
			l.CacheHitTokens += b.Qty.Tokens()
			continue
		}
		l.Tokens.AddQuantities(&b.Qty)
		if b.k.outcome == Priced {
			timed, peak := timedTokens(b)
			l.timedQty += timed
			l.peakQty += peak
		}
	}
	l.finish()
	l.AtBlended, l.Subsidy = decimal.Zero, decimal.Zero
	return l
}

// TagPlaces is the decimals to which a call's money is split among its
// tags; the first tag takes the remainder, so the parts add up exactly.
const TagPlaces = 12

// splitTags turns lines of tag sets into lines of single tags: a line of
// n tags is split evenly among them, in tokens and money, the integer
// remainders to the first tags in sort order and the money's remainder
// (beyond TagPlaces) to the first tag, so that the lines still add up to
// the gateway's totals exactly. Calls are not split: a tag's line counts
// every call that carries it, so the lines' calls add up to more than the
// gateway's when calls have several tags. Lines that share a tag (and
// their other groupings) merge. The order is Reconcile's, a merged line
// at the place of its first part.
func splitTags(lines []*ChargebackLine) []*ChargebackLine {
	byKey := map[GroupKey]*ChargebackLine{}
	var out []*ChargebackLine
	add := func(part *ChargebackLine) {
		l := byKey[part.Key]
		if l == nil {
			byKey[part.Key] = part
			out = append(out, part)
			return
		}
		l.merge(part)
	}
	for _, l := range lines {
		tags := ledger.SplitTags(l.Key.Tag)
		if len(tags) <= 1 {
			add(l)
			continue
		}
		for i, tag := range tags {
			add(l.part(i, len(tags), tag))
		}
	}
	for _, l := range out {
		l.Diff = l.Official.Sub(l.Recorded)
	}
	return out
}

// part returns part i of n of the line, for tag.
func (l *ChargebackLine) part(i, n int, tag string) *ChargebackLine {
	p := &ChargebackLine{Key: l.Key, KeyAlias: l.KeyAlias}
	p.Key.Tag = tag
	share := func(x int64) int64 {
		q, r := x/int64(n), x%int64(n)
		if int64(i) < r {
			q++
		}
		return q
	}
	money := func(d decimal.Decimal) decimal.Decimal {
		q := d.Div(decimal.NewFromInt(int64(n))).Truncate(TagPlaces)
		if i == 0 {
			return d.Sub(q.Mul(decimal.NewFromInt(int64(n - 1))))
		}
		return q
	}
	p.Calls, p.CacheHitTokens, p.peakQty, p.timedQty = l.Calls, share(l.CacheHitTokens), share(l.peakQty), share(l.timedQty)
	t := &l.Tokens
	p.Tokens = TokenCounts{Input: share(t.Input), CacheRead: share(t.CacheRead), CacheWrite: share(t.CacheWrite),
		Output: share(t.Output), Reasoning: share(t.Reasoning), CacheWrite1h: share(t.CacheWrite1h),
		WebSearch: share(t.WebSearch), WebFetch: share(t.WebFetch), FileSearch: share(t.FileSearch)}
	p.Official, p.Recorded, p.AtBlended = money(l.Official), money(l.Recorded), money(l.AtBlended)
	return p
}

// merge adds o's sums into l.
func (l *ChargebackLine) merge(o *ChargebackLine) {
	l.KeyAlias = firstAlias(l.KeyAlias, o.KeyAlias)
	l.Calls += o.Calls
	l.CacheHitTokens += o.CacheHitTokens
	l.peakQty += o.peakQty
	l.timedQty += o.timedQty
	l.Tokens.Add(&o.Tokens)
	l.Official, l.Recorded, l.AtBlended = l.Official.Add(o.Official), l.Recorded.Add(o.Recorded), l.AtBlended.Add(o.AtBlended)
}

func (l *ChargebackLine) finish() {
	l.Subsidy = l.AtBlended.Sub(l.Official)
	l.PeakShare = ratio(decimal.NewFromInt(l.peakQty), decimal.NewFromInt(l.timedQty))
	l.ReasoningShare = ratio(decimal.NewFromInt(l.Tokens.Reasoning), decimal.NewFromInt(l.Tokens.Output))
}

// blendedPrices indexes a blend's prices by model and usage type.
func (e *Engine) blendedPrices(bl *Blend) map[*tariffs.Model]*[tariffs.NumUsage]decimal.NullDecimal {
	out := map[*tariffs.Model]*[tariffs.NumUsage]decimal.NullDecimal{}
	for _, bm := range bl.Models {
		ps := &[tariffs.NumUsage]decimal.NullDecimal{}
		for _, p := range bm.Prices {
			ps[p.Usage] = decimal.NewNullDecimal(p.Blended)
		}
		out[e.cat.Model(bm.Model)] = ps
	}
	return out
}

// atBlended prices a bucket's quantities at blended prices. Reasoning the
// tariff does not price apart is blended with output, as the blend does.
func atBlended(b *bucket, ps *[tariffs.NumUsage]decimal.NullDecimal) decimal.Decimal {
	sum := decimal.Zero
	if ps == nil {
		return sum
	}
	for u := range tariffs.NumUsage {
		into := tariffs.Usage(u)
		if into == tariffs.Reasoning && !b.Rates.Listed(tariffs.Reasoning) {
			into = tariffs.Output
		}
		if p := ps[into]; p.Valid && b.Qty[u] != 0 {
			sum = sum.Add(costAt(p.Decimal, tariffs.Usage(u), b.Qty[u]))
		}
	}
	return sum
}

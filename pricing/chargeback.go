package pricing

import (
	"time"

	"github.com/shopspring/decimal"

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
type Chargeback struct {
	Rows         Rows
	From, Until  time.Time // the period, [From, Until)
	Currencies   []string  // of the priced calls, sorted
	By           []Dim
	Gateway      ChargebackLine   // the whole gateway: every call read in the period
	Lines        []ChargebackLine // by the dimensions, in the order of Reconcile's groups
	BlendedPrice []BlendModel     // the gateway's blended prices that AtBlended uses
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

	peakQty, timedQty int64
}

// Chargeback builds the accounts of every group of the engine over the
// period [from, until) it priced, keeping the lines keep accepts (nil: all).
// The gateway line and the blended prices always cover every call.
func (e *Engine) Chargeback(from, until time.Time, keep func(*ChargebackLine) bool) *Chargeback {
	rec := e.Reconcile()
	blend := e.BlendWindow(from, until, ModePerModel)
	prices := e.blendedPrices(blend)
	cb := &Chargeback{Rows: e.rows, From: from.UTC(), Until: until.UTC(), Currencies: rec.Currencies,
		By: rec.By, BlendedPrice: blend.Models}
	lines := map[GroupKey]*ChargebackLine{}
	order := make([]*ChargebackLine, 0, len(rec.Groups))
	for i := range rec.Groups {
		g := &rec.Groups[i]
		l := &ChargebackLine{Key: g.Key, KeyAlias: g.KeyAlias, Calls: g.Calls, Tokens: g.Tokens,
			Official: g.Official, Recorded: g.Recorded, Diff: g.Gap, AtBlended: decimal.Zero}
		lines[g.Key] = l
		order = append(order, l)
	}
	gw := &cb.Gateway
	gw.Official, gw.Recorded, gw.AtBlended = rec.Totals.Official, rec.Totals.Recorded, decimal.Zero
	gw.Calls, gw.Diff = rec.Totals.Calls, rec.Totals.Gap
	for _, b := range e.sortedBuckets() {
		gw.Tokens.Add(&b.Qty)
		if b.k.outcome != Priced {
			continue
		}
		l := lines[e.groupKeyOf(b)]
		at := atBlended(b, prices[b.Model])
		if b.k.variant != 0 {
			// The blend leaves out another service tier or a region: no
			// flat price charges them, so they count at their own cost.
			at = b.Official()
		}
		timed, peak := timedTokens(b)
		for _, x := range []*ChargebackLine{l, gw} {
			x.AtBlended = x.AtBlended.Add(at)
			x.peakQty += peak
			x.timedQty += timed
		}
	}
	for _, l := range append(order, gw) {
		l.finish()
	}
	for _, l := range order {
		if keep == nil || keep(l) {
			cb.Lines = append(cb.Lines, *l)
		}
	}
	return cb
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

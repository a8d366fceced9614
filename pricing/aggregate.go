package pricing

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// ErrNotExact says an aggregate cannot be priced exactly: a tariff
// boundary, the window's edge or a grouping boundary falls inside its
// span, or its billing instant is not the one the tariff bills by. The
// calls must then be priced one by one.
var ErrNotExact = errors.New("aggregate cannot be priced exactly")

// AddAggregate prices a group of calls a database summed, as if each call
// had been added: the group lands in the bucket its calls would, with its
// call count, token sums and recorded spend. billedBy is the instant the
// database truncated to the minute. Duplicates cannot be told apart within
// an aggregate: every call counts once.
//
// It fails with ErrNotExact, adding nothing, when the quote changes within
// the span, the window's edges or the report zone's offset are not whole
// spans, or billedBy is not the billing instant of the call's tariff.
func (e *Engine) AddAggregate(a *ledger.Aggregate, billedBy tariffs.BillingTime) error {
	c := ledger.Call{Gateway: a.Gateway, Model: a.Model, ModelGroup: a.ModelGroup, Status: a.Status,
		Start: a.Start, Key: a.Key, KeyAlias: a.KeyAlias, Team: a.Team, User: a.User,
		Tokens: ledger.Tokens{Input: a.Prompt}}
	ref := e.ref(&c)
	billing := tariffs.BillEnd
	if ref.model != nil {
		billing = ref.model.Provider.Billing
	}
	if e.opts.Billing != nil {
		billing = *e.opts.Billing
	}
	if billing != billedBy {
		return fmt.Errorf("%w: model %s bills by %s, the database summed by %s", ErrNotExact, loggedName(&c), billing, billedBy)
	}
	if err := e.exactSpan(a.Start, a.Span, ref); err != nil {
		return err
	}
	pc := PricedCall{modelName: loggedName(&c), ref: ref, At: a.Start}
	if ref.model != nil {
		pc.modelName = ref.model.ID
		pc.Quote.Model = ref.model
	}
	switch {
	case (!e.opts.Since.IsZero() && pc.At.Before(e.opts.Since)) || (!e.opts.Until.IsZero() && !pc.At.Before(e.opts.Until)):
		pc.Outcome = Outside
	case a.Status == ledger.StatusFailure:
		pc.Outcome = Failed
	case ref.model == nil:
		pc.Outcome = Unpriced
	default:
		e.quote(&pc, a.Prompt)
	}
	e.rows.countN(pc.Outcome, a.Calls)
	if pc.Outcome == Outside {
		return nil
	}
	q := QuantitiesOf(a.Tokens)
	q[tariffs.Request] = a.Calls
	if !e.total.addChecked(&q) {
		return fmt.Errorf("%w: in the minute %s", ErrTokenSum, a.Start.Format(time.RFC3339))
	}
	b := e.place(&pc, &c, a.ZeroSpend)
	b.Calls += a.Calls
	b.Qty.Add(&q)
	if !a.ZeroSpend {
		b.recorded.Add(a.Recorded)
	}
	return nil
}

// exactSpan checks that everything an aggregate's calls are priced and
// grouped by is the same throughout the span starting at m.
func (e *Engine) exactSpan(m time.Time, span time.Duration, ref *modelRef) error {
	if span != time.Minute && span != time.Hour {
		return fmt.Errorf("%w: a span of %s", ErrNotExact, span)
	}
	if m.Truncate(span) != m {
		return fmt.Errorf("%w: %s does not start a whole %s", ErrNotExact, m.Format(time.RFC3339Nano), span)
	}
	for _, edge := range []time.Time{e.opts.Since, e.opts.Until} {
		if !edge.IsZero() && edge.Truncate(span) != edge {
			return fmt.Errorf("%w: the window edge %s does not fall on a whole %s", ErrNotExact, edge.Format(time.RFC3339Nano), span)
		}
	}
	if e.dims.has(DimDay) || e.dims.has(DimHour) {
		if _, off := m.In(e.zone).Zone(); time.Duration(off)*time.Second%span != 0 {
			return fmt.Errorf("%w: zone %s is %ds off UTC, not whole %ss", ErrNotExact, e.zone, off, span)
		}
		if _, off := m.Add(span - time.Second).In(e.zone).Zone(); time.Duration(off)*time.Second%span != 0 {
			return fmt.Errorf("%w: zone %s is %ds off UTC, not whole %ss", ErrNotExact, e.zone, off, span)
		}
	}
	if ref.model == nil {
		return nil
	}
	q := ref.cursor.At(m)
	if end := m.Add(span).UnixNano(); q.Until < end {
		return fmt.Errorf("%w: model %s: a tariff boundary falls at %s, inside a %s", ErrNotExact, ref.model.ID,
			time.Unix(0, q.Until).UTC().Format(time.RFC3339Nano), span)
	}
	return nil
}

// AggregateSpan returns the longest span, an hour or else a minute, on
// whose whole multiples every tariff boundary of every model between from
// and until falls; 0 when some boundary is not even on a whole minute. A
// zero from or until stands for the catalog's first version and a year
// after its last.
func AggregateSpan(cat *tariffs.Catalog, from, until time.Time) time.Duration {
	if from.IsZero() || until.IsZero() {
		first, last := catalogRange(cat)
		if from.IsZero() {
			from = first
		}
		if until.IsZero() {
			until = last.AddDate(1, 0, 0)
		}
	}
	span := time.Hour
	for _, m := range cat.Models() {
		c := m.Cursor()
		for t := from; t.Before(until); {
			q := c.At(t)
			if q.Until >= until.UnixNano() {
				break
			}
			next := time.Unix(0, q.Until).UTC()
			for span > 0 && next.Truncate(span) != next {
				span = map[time.Duration]time.Duration{time.Hour: time.Minute, time.Minute: 0}[span]
			}
			if span == 0 {
				return 0
			}
			t = next
		}
	}
	return span
}

// catalogRange returns the first and last effective instants of the
// catalog's versions.
func catalogRange(cat *tariffs.Catalog) (first, last time.Time) {
	for _, p := range cat.Providers {
		for _, v := range p.Versions {
			if first.IsZero() || v.Effective.Before(first) {
				first = v.Effective
			}
			if v.Effective.After(last) {
				last = v.Effective
			}
		}
	}
	return first, last
}

// TierBounds returns every prompt-size tier boundary of the catalog,
// ascending and without repeats: a prompt's tier in any version is decided
// by how many of them it exceeds.
func TierBounds(cat *tariffs.Catalog) []int64 {
	var out []int64
	for _, p := range cat.Providers {
		for _, v := range p.Versions {
			for _, mp := range v.Prices {
				for _, t := range mp.Tiers {
					out = append(out, t.Above)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CommonBilling returns the billing instant every provider of the catalog
// bills by (the override when set), and false when they differ.
func CommonBilling(cat *tariffs.Catalog, override *tariffs.BillingTime) (tariffs.BillingTime, bool) {
	if override != nil {
		return *override, true
	}
	b := tariffs.BillEnd // calls of unknown models are placed by their end
	for _, p := range cat.Providers {
		if p.Billing != b {
			return b, false
		}
	}
	return b, true
}

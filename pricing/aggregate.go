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
// minute, or its billing instant is not the one the tariff bills by. The
// calls must then be priced one by one.
var ErrNotExact = errors.New("aggregate cannot be priced exactly")

// AddAggregate prices a group of calls a database summed, as if each call
// had been added: the group lands in the bucket its calls would, with its
// call count, token sums and recorded spend. billedBy is the instant the
// database truncated to the minute. Duplicates cannot be told apart within
// an aggregate: every call counts once.
//
// It fails with ErrNotExact, adding nothing, when the quote changes within
// the minute, the window's edges or the report zone's offset are not whole
// minutes, or billedBy is not the billing instant of the call's tariff.
func (e *Engine) AddAggregate(a *ledger.Aggregate, billedBy tariffs.BillingTime) error {
	c := ledger.Call{Gateway: a.Gateway, Model: a.Model, ModelGroup: a.ModelGroup, Status: a.Status,
		Start: a.Minute, Key: a.Key, KeyAlias: a.KeyAlias, Team: a.Team, User: a.User,
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
	if err := e.exactMinute(a.Minute, ref); err != nil {
		return err
	}
	pc := PricedCall{modelName: loggedName(&c), ref: ref, At: a.Minute}
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
		return fmt.Errorf("%w: in the minute %s", ErrTokenSum, a.Minute.Format(time.RFC3339))
	}
	b := e.place(&pc, &c, a.ZeroSpend)
	b.Calls += a.Calls
	b.Qty.Add(&q)
	if !a.ZeroSpend {
		b.recorded.Add(a.Recorded)
	}
	return nil
}

// exactMinute checks that everything an aggregate's calls are priced and
// grouped by is the same throughout the minute starting at m.
func (e *Engine) exactMinute(m time.Time, ref *modelRef) error {
	if m.Second() != 0 || m.Nanosecond() != 0 {
		return fmt.Errorf("%w: %s is not the start of a minute", ErrNotExact, m.Format(time.RFC3339Nano))
	}
	for _, edge := range []time.Time{e.opts.Since, e.opts.Until} {
		if !edge.IsZero() && edge.Truncate(time.Minute) != edge {
			return fmt.Errorf("%w: the window edge %s is not on a whole minute", ErrNotExact, edge.Format(time.RFC3339Nano))
		}
	}
	if _, off := m.In(e.zone).Zone(); off%60 != 0 && (e.dims.has(DimDay) || e.dims.has(DimHour)) {
		return fmt.Errorf("%w: zone %s is %ds off UTC, not whole minutes", ErrNotExact, e.zone, off)
	}
	if ref.model == nil {
		return nil
	}
	q := ref.cursor.At(m)
	if end := m.Add(time.Minute).UnixNano(); q.Until < end {
		return fmt.Errorf("%w: model %s: a tariff boundary falls at %s, inside a minute", ErrNotExact, ref.model.ID,
			time.Unix(0, q.Until).UTC().Format(time.RFC3339Nano))
	}
	return nil
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

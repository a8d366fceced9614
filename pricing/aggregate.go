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
// database grouped by. Duplicates cannot be told apart within an
// aggregate: every call counts once.
//
// It fails with ErrNotExact, adding nothing, when the quote changes between
// the group's first and last billing instants, the window's edge or a day
// or hour of the report zone (when grouped by them) falls between them, or
// billedBy is not the billing instant of the call's tariff.
func (e *Engine) AddAggregate(a *ledger.Aggregate, billedBy tariffs.BillingTime) error {
	return e.addSummed(a, billedBy, Priced)
}

// AddSummed adds calls summed when they were read, as AddAggregate does,
// for a store that told them apart by identity then (tokenfare serve's
// state): read is the outcome they had when read. Duplicates, overlaps
// and cache hits stay what they were (a duplicate or an overlap counts its
// rows only, as AddPriced counts one); failed calls are failed; priced, unpriced and retired
// calls are priced again at the engine's catalog.
// It fails as AddAggregate fails.
func (e *Engine) AddSummed(a *ledger.Aggregate, billedBy tariffs.BillingTime, read Outcome) error {
	return e.addSummed(a, billedBy, read)
}

// AddGroup adds a group of calls a ledger.Summer summed, as AddSummed
// does: billed by g.BilledBy, read as g.As.
func (e *Engine) AddGroup(g *ledger.Summed) error {
	read := Priced
	switch g.As {
	case ledger.SummedFailed:
		read = Failed
	case ledger.SummedDuplicate:
		read = Duplicate
	case ledger.SummedOverlap:
		read = Overlap
	case ledger.SummedCacheHit:
		read = CacheHit
	}
	return e.addSummed(&g.Aggregate, g.BilledBy, read)
}

func (e *Engine) addSummed(a *ledger.Aggregate, billedBy tariffs.BillingTime, read Outcome) error {
	c := ledger.Call{Gateway: a.Gateway, Model: a.Model, ModelGroup: a.ModelGroup, Host: a.Host, PriceKey: a.PriceKey, Status: a.Status,
		Start: a.First, Key: a.Key, KeyAlias: a.KeyAlias, Team: a.Team, User: a.User, Tags: a.Tags, KeyMeta: a.KeyMeta,
		Tokens: ledger.Tokens{Input: a.Prompt}, ServiceTier: a.ServiceTier, Region: a.Region}
	ref := e.names.ref(&c)
	if billing := e.billingOf(ref); billing != billedBy {
		return fmt.Errorf("%w: model %s bills by %s, the database summed by %s", ErrNotExact, loggedName(&c), billing, billedBy)
	}
	outside, err := e.exactSpan(a, ref)
	if err != nil {
		return err
	}
	pc := newPriced(&c, ref)
	pc.At = a.First
	switch {
	case outside:
		pc.Outcome = Outside
	case read == Duplicate || read == CacheHit || read == Overlap:
		pc.Outcome = read
	case a.Status == ledger.StatusFailure || read == Failed:
		pc.Outcome = Failed
	case ref.model == nil:
		pc.Outcome = Unpriced
	default:
		e.quote(&pc, a.Prompt, &c)
	}
	e.rows.countN(pc.Outcome, a.Calls)
	if pc.Outcome == Outside || pc.Outcome == Overlap || pc.Outcome == Duplicate {
		// Rows read again count as rows only, as AddPriced counts them;
		// a store written before repeats counted nowhere may hold a
		// duplicate's spend: it is left out as well.
		return nil
	}
	e.span.see(a.First)
	e.span.see(a.Last)
	q := QuantitiesOf(a.Tokens, a.Tools)
	q[tariffs.Request] = a.Calls
	if !e.total.addChecked(&q) {
		return fmt.Errorf("%w: in the calls from %s", ErrTokenSum, a.First.Format(time.RFC3339))
	}
	b := e.place(&pc, &c, a.ZeroSpend, nil, 0)
	b.Calls += a.Calls
	b.Qty.Add(&q)
	e.notePromotion(&pc, a.Calls)
	if !a.ZeroSpend {
		b.recorded.Add(ledger.AmountOf(a.Recorded))
	}
	return nil
}

// exactSpan checks that everything an aggregate's calls are priced and
// grouped by is the same from its first billing instant to its last, and
// reports whether they all lie outside the window.
func (e *Engine) exactSpan(a *ledger.Aggregate, ref *modelRef) (outside bool, err error) {
	first, last := a.First, a.Last
	if last.Before(first) {
		return false, fmt.Errorf("%w: the last billing instant %s is before the first %s", ErrNotExact,
			last.Format(time.RFC3339Nano), first.Format(time.RFC3339Nano))
	}
	side := func(t time.Time) int {
		switch {
		case !e.opts.Since.IsZero() && t.Before(e.opts.Since):
			return -1
		case !e.opts.Until.IsZero() && !t.Before(e.opts.Until):
			return 1
		}
		return 0
	}
	if s := side(first); s != side(last) {
		return false, fmt.Errorf("%w: calls from %s to %s lie on both sides of the window's edge", ErrNotExact,
			first.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano))
	} else if s != 0 {
		return true, nil // priced nowhere: nothing else matters
	}
	if e.dims.has(DimDay) || e.dims.has(DimHour) {
		f, l := first.In(e.zone), last.In(e.zone)
		same := f.Year() == l.Year() && f.YearDay() == l.YearDay()
		if e.dims.has(DimHour) {
			// An hour repeated when clocks go back is two hours: compare
			// the offsets too.
			_, fo := f.Zone()
			_, lo := l.Zone()
			same = same && f.Hour() == l.Hour() && fo == lo
		}
		if !same {
			return false, fmt.Errorf("%w: calls from %s to %s lie in two %s of %s", ErrNotExact,
				first.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano), map[bool]string{true: "hours", false: "days"}[e.dims.has(DimHour)], e.zone)
		}
	}
	if ref.model == nil {
		return false, nil
	}
	if q := ref.cursor.At(first); q.Until <= last.UnixNano() {
		return false, fmt.Errorf("%w: model %s: a tariff boundary falls at %s, between calls from %s to %s", ErrNotExact, ref.model.ID,
			time.Unix(0, q.Until).UTC().Format(time.RFC3339Nano), first.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano))
	}
	return false, nil
}

// AggregateBoundaries returns the instants strictly between from and
// until that a database must not group calls across, ascending and without
// repeats: every change of any model's quote, the window's edges and, when
// calls are grouped by day or hour, the starts of the report zone's days
// or hours. Calls between two neighbouring boundaries can be summed and
// priced as one (AddAggregate checks it).
func AggregateBoundaries(cat *tariffs.Catalog, opts Options, from, until time.Time) []time.Time {
	var out []time.Time
	for _, m := range cat.Models() {
		c := m.Cursor()
		for t := from; t.Before(until); {
			q := c.At(t)
			if q.Until >= until.UnixNano() {
				break
			}
			t = time.Unix(0, q.Until).UTC()
			out = append(out, t)
		}
	}
	for _, edge := range []time.Time{opts.Since, opts.Until} {
		if !edge.IsZero() {
			out = append(out, edge.UTC())
		}
	}
	dims := setOf(opts.Dims)
	if dims.has(DimDay) || dims.has(DimHour) {
		zone := opts.Zone
		if zone == nil {
			zone = time.UTC
		}
		lt := from.In(zone)
		t := time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, zone)
		for ; t.Before(until); t = t.AddDate(0, 0, 1) {
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, zone)
			if !dims.has(DimHour) {
				out = append(out, t.UTC())
				continue
			}
			// Every instant a local hour starts, whatever the day's length.
			next := t.AddDate(0, 0, 1)
			next = time.Date(next.Year(), next.Month(), next.Day(), 0, 0, 0, 0, zone)
			for h := t; h.Before(next); {
				out = append(out, h.UTC())
				h2 := h.Add(time.Hour)
				l := h2.In(zone)
				h = time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), 0, 0, 0, zone)
				if !h.After(out[len(out)-1]) {
					h = h2 // a repeated local hour starts an hour after the first
				}
			}
		}
	}
	out = slices.DeleteFunc(out, func(t time.Time) bool { return !t.After(from) || !t.Before(until) })
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return slices.CompactFunc(out, func(a, b time.Time) bool { return a.Equal(b) })
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

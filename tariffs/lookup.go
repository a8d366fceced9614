package tariffs

import (
	"math"
	"strings"
	"time"
)

// Status says whether a model has a price at an instant.
type Status uint8

// Statuses of a model at an instant.
const (
	// Unpriced: no version in force prices the model (before its first
	// version, or a version that does not list it).
	Unpriced Status = iota
	// Priced: the version in force prices the model.
	Priced
	// Retired: a version in force retired the model.
	Retired
)

var statusNames = [...]string{"unpriced", "priced", "retired"}

// String returns "unpriced", "priced" or "retired".
func (s Status) String() string { return statusNames[s] }

// span is a model's state over one version: [from, until) in Unix nanoseconds.
type span struct {
	from, until int64
	status      Status
	version     *Version
	prices      *ModelPrices
	promoEnded  bool // the version's promotion had ended: the span runs from its end
}

// Quote is what a model costs at an instant, and the range of instants
// [From, Until) (Unix nanoseconds) over which the same quote holds.
type Quote struct {
	Model   *Model
	Status  Status
	Version *Version     // nil when Status is Unpriced before any version
	Prices  *ModelPrices // nil unless Status is Priced
	Period  int          // index into Version.Periods
	// Day says whether the calendar knows the local day of the quote. It
	// is Uncovered when the day lies in a year the calendar does not
	// cover, Provisional when it is an unlisted day of a provisional year,
	// and in both cases only when a holiday or a make-up workday on it
	// would change its periods; else Covered. The quote is priced as its
	// weekday all the same. A quote never spans two local days.
	Day Coverage
	// PromotionEnded says that the version's prices are a promotion whose
	// stated end had passed at the quote's instant.
	PromotionEnded bool
	From           int64
	Until          int64
}

// PeriodName returns the name of the quote's period, or "" when unpriced.
func (q *Quote) PeriodName() string {
	if q.Status != Priced {
		return ""
	}
	return q.Version.Periods[q.Period]
}

// buildSpans lays out the model's state in each of its provider's versions.
func (m *Model) buildSpans() {
	versions := m.Provider.Versions
	m.spans = m.spans[:0]
	first := int64(math.MaxInt64)
	if len(versions) > 0 {
		first = versions[0].Effective.UnixNano()
	}
	m.spans = append(m.spans, span{from: math.MinInt64, until: first, status: Unpriced})
	retired := false
	for i, v := range versions {
		until := int64(math.MaxInt64)
		if i+1 < len(versions) {
			until = versions[i+1].Effective.UnixNano()
		}
		s := span{from: v.Effective.UnixNano(), until: until, version: v}
		switch {
		case v.Prices[m] != nil:
			s.status, s.prices, retired = Priced, v.Prices[m], false
		case v.Retired[m] || retired:
			s.status, retired = Retired, true
		}
		m.spans = appendPromoSplit(m.spans, s, v.PromotionOf(m))
	}
}

// appendPromoSplit appends s, split at the end of its version's promotion
// when that end falls inside it, the part after marked promoEnded.
func appendPromoSplit(spans []span, s span, pr *Promotion) []span {
	if pr == nil || pr.Open() || s.status != Priced {
		return append(spans, s)
	}
	end := pr.Until.UnixNano()
	if end <= s.from || end >= s.until {
		return append(spans, s)
	}
	after := s
	s.until, after.from, after.promoEnded = end, end, true
	return append(spans, s, after)
}

// StatusIn returns the model's status in version v: priced, retired (by v
// or an earlier version, and not priced again since) or unpriced.
func (m *Model) StatusIn(v *Version) Status {
	for _, s := range m.spans {
		if s.version == v {
			return s.status
		}
	}
	return Unpriced
}

// RetiredAt returns the version that retired the model, when the model is
// retired at t: the first version of the run of retired ones that holds t
// (a model priced again and retired anew is retired by the later one).
// It returns nil when the model is priced or unpriced at t.
func (m *Model) RetiredAt(t time.Time) *Version {
	i := m.spanIndex(t.UnixNano())
	if m.spans[i].status != Retired {
		return nil
	}
	for i > 0 && m.spans[i-1].status == Retired {
		i--
	}
	return m.spans[i].version
}

// spanAt returns the span holding instant ns.
func (m *Model) spanAt(ns int64) *span { return &m.spans[m.spanIndex(ns)] }

// spanIndex returns the index of the span holding instant ns.
func (m *Model) spanIndex(ns int64) int {
	lo, hi := 0, len(m.spans)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if m.spans[mid].from <= ns {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// At returns the model's quote at instant t: the version in force, the
// period t falls in and the rates. Windows include their start and exclude
// their end; weekdays and holidays are judged on the version's local
// calendar, so Friday 16:00 UTC is Saturday in Beijing. At is safe for
// concurrent use. It remembers the last quote it computed, so instants that
// come in time order mostly cost two comparisons; a Cursor does the same
// for one goroutine without atomic operations.
func (m *Model) At(t time.Time) Quote {
	ns := t.UnixNano()
	if q := m.last.Load(); q != nil && ns >= q.From && ns < q.Until {
		return *q
	}
	q := m.quoteAt(t)
	m.last.Store(&q)
	return q
}

// quoteAt computes the quote at t.
func (m *Model) quoteAt(t time.Time) Quote {
	return m.quoteIn(m.spanAt(t.UnixNano()), t)
}

// AtTariffOf returns the quote for a call at t priced at the tariff in
// force at asOf: the status, version and prices of the model at asOf, and
// the period that version's windows and calendar give at t, as if the
// version had applied then. The quote's [From, Until) is the run of
// instants around t in the same period of that version.
func (m *Model) AtTariffOf(t, asOf time.Time) Quote {
	sp := *m.spanAt(asOf.UnixNano())
	sp.from, sp.until = math.MinInt64, math.MaxInt64
	return m.quoteIn(&sp, t)
}

// quoteIn computes the quote at t within span sp.
func (m *Model) quoteIn(sp *span, t time.Time) Quote {
	ns := t.UnixNano()
	q := Quote{Model: m, Status: sp.status, Version: sp.version, Prices: sp.prices, From: sp.from, Until: sp.until,
		PromotionEnded: sp.promoEnded}
	if sp.status != Priced {
		return q
	}
	v := sp.version
	lt := t.In(v.Zone)
	y, mo, d := lt.Date()
	hh, mm, ss := lt.Clock()
	date := DateOf(y, mo, d)
	wd := v.calendar.DayAs(date, lt.Weekday())
	if v.dayMatters[lt.Weekday()] {
		q.Day = v.calendar.CoverageOf(date)
	}
	sec := int32(hh*3600 + mm*60 + ss)
	seg := v.plans[wd].find(sec)
	sub := int64(lt.Nanosecond())
	q.Period = int(seg.period)
	q.From = max(q.From, ns-int64(sec-seg.start)*1e9-sub)
	q.Until = min(q.Until, ns+int64(seg.end-sec)*1e9-sub)
	// A change of UTC offset (DST) inside the segment moves its wall-clock
	// ends: keep the quote within the offset in force at t.
	zs, ze := lt.ZoneBounds()
	if !zs.IsZero() {
		q.From = max(q.From, zs.UnixNano())
	}
	if !ze.IsZero() {
		q.Until = min(q.Until, ze.UnixNano())
	}
	return q
}

// Cursor looks up one model's quotes for instants that mostly come in time
// order, reusing the last quote while it holds. A Cursor is not safe for
// concurrent use.
type Cursor struct {
	m     *Model
	q     Quote
	ok    bool
	asOf  time.Time
	fixed bool // every quote at the tariff in force at asOf
}

// Cursor returns a new cursor over the model's quotes.
func (m *Model) Cursor() *Cursor { return &Cursor{m: m} }

// CursorAtTariffOf returns a cursor whose quotes are those of AtTariffOf
// with the tariff in force at asOf.
func (m *Model) CursorAtTariffOf(asOf time.Time) *Cursor {
	return &Cursor{m: m, asOf: asOf, fixed: true}
}

// At returns the quote at t, as Model.At does (or AtTariffOf, for a
// cursor made by CursorAtTariffOf).
func (c *Cursor) At(t time.Time) *Quote {
	ns := t.UnixNano()
	if c.ok && ns >= c.q.From && ns < c.q.Until {
		return &c.q
	}
	if c.fixed {
		c.q = c.m.AtTariffOf(t, c.asOf)
	} else {
		c.q = c.m.quoteAt(t)
	}
	c.ok = true
	return &c.q
}

// RetiredBy returns the version that retired the model as of version v:
// the first of the versions up to v in which it has been retired since,
// without a price in between; nil when the model is not retired in v.
func (m *Model) RetiredBy(v *Version) *Version {
	var by *Version
	for _, s := range m.spans {
		switch {
		case s.version == nil:
		case s.status == Retired && by == nil:
			by = s.version
		case s.status != Retired:
			by = nil
		}
		if s.version == v && v != nil {
			return by
		}
	}
	return nil
}

// FirstPricedAfter returns the first version after v that prices the
// model, nil when none does; a nil v stands for the instants before the
// provider's first version.
func (m *Model) FirstPricedAfter(v *Version) *Version {
	past := v == nil
	for _, s := range m.spans {
		switch {
		case s.version == nil:
		case s.version == v:
			past = true
		case past && s.status == Priced:
			return s.version
		}
	}
	return nil
}

// Snapshot returns the snapshot the model's one dated id names: the date
// after its id in a name such as claude-opus-4-7-20260416 or
// gpt-5.4-2026-03-05, as written there; "" when no name is a dated id of
// it, or names disagree.
func (m *Model) Snapshot() string {
	snap := ""
	prefix := strings.ToLower(m.ID) + "-"
	for _, n := range m.Names {
		n = strings.ToLower(n)
		if i := strings.IndexByte(n, '/'); i >= 0 {
			n = n[i+1:]
		}
		d, ok := strings.CutPrefix(n, prefix)
		if !ok || !isSnapshotDate(d) {
			continue
		}
		if snap != "" && snap != d {
			return ""
		}
		snap = d
	}
	return snap
}

// isSnapshotDate reports whether s is a date as dated ids write it:
// YYYYMMDD or YYYY-MM-DD.
func isSnapshotDate(s string) bool {
	layout := "20060102"
	if len(s) == len("2006-01-02") {
		layout = "2006-01-02"
	}
	_, err := time.Parse(layout, s)
	return err == nil
}

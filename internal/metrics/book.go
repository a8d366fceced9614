package metrics

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// A book holds the state's sums priced at one catalog, summed by what
// the metrics tell apart (entry), per slot: a refresh adds the sums it
// committed (add), so that the metrics need not price the whole state
// again at each refresh; only a new catalog does (newBook over Each).
// Slots before the horizon, which no window of the metrics reads any
// more, are folded into all-time totals by labels (fold), so that it
// holds about a month of slots however long serve runs.
type book struct {
	cat    *tariffs.Catalog
	pricer state.Pricer
	slots  map[int64]map[entry]*tally // by the slot's Unix second
	old    map[costLabels]*tally      // the slots folded
	// folded is the horizon of the last fold: the slots before it are in
	// old. A now whose horizon lies before it needs a new book.
	folded time.Time
	// unpriced sums the calls the catalog leaves without a price, by
	// model, host and cause, over the whole state.
	unpriced map[unpricedLabels]*unpricedTally
}

// unpricedLabels are the labels of the unpriced series: the model (its
// tariff id, or the name logged), the host the calls name, and the cause.
type unpricedLabels struct {
	model, host, cause string
}

// unpricedTally is the calls of an unpriced series and the spend recorded
// for them.
type unpricedTally struct {
	calls    int64
	recorded pricing.ExactSum
}

// addUnpriced counts the sums of k, which cat leaves without a price
// (m is its model, nil when cat knows none), under their cause.
func (l *book) addUnpriced(k *state.Key, s *state.Sums, m *tariffs.Model) {
	var u pricing.UnpricedCalls
	if m == nil {
		u = pricing.UnpricedCallsOn(l.cat, k.Model, tariffs.NormalizeHost(k.Host))
	} else {
		q := m.At(k.Slot)
		outcome := pricing.Unpriced
		if q.Status == tariffs.Retired {
			outcome = pricing.Retired
		}
		u = pricing.UnpricedCallsOf(m, q.Version, outcome)
	}
	key := unpricedLabels{model: u.Model, host: u.Host, cause: u.Cause.String()}
	t := l.unpriced[key]
	if t == nil {
		t = &unpricedTally{}
		l.unpriced[key] = t
	}
	t.calls += s.Calls
	t.recorded.Add(ledger.AmountOf(s.Recorded))
}

// entry is what the metrics read of a priced key, beside its slot.
type entry struct {
	labels  costLabels // the key alias as stored, before the top keys fold it
	keyHash string
	tags    string
	ok      bool // the tariff prices the sums
	def     bool // priced in the version's default period
}

func newBook(cat *tariffs.Catalog) *book {
	return &book{cat: cat, slots: map[int64]map[entry]*tally{}, old: map[costLabels]*tally{}, unpriced: map[unpricedLabels]*unpricedTally{}}
}

// add prices the sums of k and adds them; a slot already folded adds to
// the all-time totals.
func (l *book) add(k *state.Key, s *state.Sums) error {
	if k.Outcome == pricing.Overlap || k.Outcome == pricing.Duplicate {
		// Rows read again, from another source or the same one: counted
		// where they were read first (a state written before repeats
		// counted nowhere may hold a duplicate's spend: left out too).
		return nil
	}
	p := l.pricer.Price(l.cat, k, s)
	e := entry{labels: costLabels{provider: "unknown", model: k.Model, key: k.KeyAlias, team: k.Team},
		keyHash: k.KeyHash, tags: k.Tags, ok: p.OK, def: p.Default}
	if p.Model != nil {
		e.labels.provider, e.labels.model, e.labels.currency = p.Model.Provider.Name, p.Model.ID, p.Model.Provider.Currency
	}
	recorded := ledger.AmountOf(s.Recorded)
	if !p.OK && state.Repriced(k.Outcome) {
		l.addUnpriced(k, s, p.Model)
	}
	if k.Slot.Before(l.folded) {
		tallyOf(l.old, e.labels).add(p.Cost, recorded)
		return nil
	}
	slot := l.slots[k.Slot.Unix()]
	if slot == nil {
		slot = map[entry]*tally{}
		l.slots[k.Slot.Unix()] = slot
	}
	tallyOf(slot, e).add(p.Cost, recorded)
	return nil
}

// horizon is the first slot a window of the metrics at now may read: the
// month's start, the 24 hours before now (a slot ending after their
// start), the same weekday BaselineWeeks weeks before.
func horizon(now time.Time) time.Time {
	h := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	if t := now.Add(-24 * time.Hour).Truncate(state.Grain); t.Before(h) {
		h = t
	}
	if t := now.Truncate(24*time.Hour).AddDate(0, 0, -7*BaselineWeeks); t.Before(h) {
		h = t
	}
	return h
}

// fold moves the slots before h into the all-time totals; false when h
// lies before the last fold (the book no longer knows those slots).
func (l *book) fold(h time.Time) bool {
	if h.Before(l.folded) {
		return false
	}
	for at, slot := range l.slots {
		if !time.Unix(at, 0).Before(h) {
			continue
		}
		for e, t := range slot {
			tallyOf(l.old, e.labels).merge(t)
		}
		delete(l.slots, at)
	}
	l.folded = h
	return true
}

// snapshot gives the figures at now, from the book and the state's
// sources (calls by outcome, the newest row's age).
func (l *book) snapshot(s *state.Store, now time.Time, opts Options) (*Snapshot, error) {
	snap := &Snapshot{Cost: map[costLabels]*money{}, Calls: map[string]int64{}, Gap: map[string]*money{},
		Peak: map[string]*money{}, Age: map[string]time.Duration{}, Anomaly: map[anomalyKey]*weeks{}}
	// Money is summed exactly in integers, and made decimals once at the
	// end.
	costs, gaps, peaks := map[costLabels]*tally{}, map[string]*tally{}, map[string]*tally{}
	anomaly := map[anomalyKey]*[BaselineWeeks + 1]pricing.ExactSum{}
	wins := windows(now)
	month := wins["month"]
	bm := newBudgetMonth()
	for labels, t := range l.old {
		tallyOf(costs, labels).merge(t)
	}
	for at, slot := range l.slots {
		start := time.Unix(at, 0).UTC()
		end := start.Add(state.Grain)
		week := anomalySlot(start, now)
		for e, t := range slot {
			tallyOf(costs, e.labels).merge(t)
			if week >= 0 && e.labels.currency != "" {
				k := anomalyKey{e.labels.model, e.labels.key}
				w := anomaly[k]
				if w == nil {
					w = &[BaselineWeeks + 1]pricing.ExactSum{}
					anomaly[k] = w
				}
				w[week].Merge(&t.official)
			}
			if !e.ok {
				continue
			}
			for w, from := range wins {
				if end.After(from) && !start.After(now) {
					tallyOf(gaps, w).merge(t)
				}
			}
			if !start.Before(month) && !start.After(now) {
				bm.merge(e.labels.team, keyNames{e.keyHash, e.labels.key}, e.tags, &t.official)
			}
			if !start.Before(month) {
				// official: all the month's cost; recorded: off the default period.
				p := tallyOf(peaks, e.labels.model)
				p.official.Merge(&t.official)
				if !e.def {
					p.recorded.Merge(&t.official)
				}
			}
		}
	}
	byKey := map[string]decimal.Decimal{}
	for labels, t := range costs {
		byKey[labels.key] = byKey[labels.key].Add(t.official.Value())
	}
	top := topKeys(byKey, opts.TopKeys)
	folded := map[costLabels]*tally{}
	for labels, t := range costs {
		if !top[labels.key] {
			labels.key = Other
		}
		tallyOf(folded, labels).merge(t)
	}
	for labels, t := range folded {
		snap.Cost[labels] = t.money()
	}
	for k, w := range anomaly {
		if !top[k.key] {
			k.key = Other
		}
		out := snap.Anomaly[k]
		if out == nil {
			out = &weeks{}
			snap.Anomaly[k] = out
		}
		for i := range w {
			out[i] = out[i].Add(w[i].Value())
		}
	}
	for w, t := range gaps {
		snap.Gap[w] = t.money()
	}
	for m, t := range peaks {
		snap.Peak[m] = t.money()
	}
	if opts.Budgets != nil {
		snap.Budgets = budgetLines(opts.Budgets, bm.done(), now)
	}
	snap.Unpriced = make(map[unpricedLabels]unpricedFigures, len(l.unpriced))
	for labels, t := range l.unpriced {
		snap.Unpriced[labels] = unpricedFigures{calls: t.calls, recorded: t.recorded.Value()}
	}
	sources, err := s.Sources()
	if err != nil {
		return nil, err
	}
	for _, src := range sources {
		r := src.Rows
		for o, n := range map[string]int64{pricing.Priced.String(): r.Priced, pricing.Unpriced.String(): r.Unpriced,
			pricing.Retired.String(): r.Retired, pricing.Failed.String(): r.Failed, pricing.CacheHit.String(): r.CacheHit,
			pricing.Duplicate.String(): r.Duplicate, "rejected": r.Rejected} {
			snap.Calls[o] += n
		}
		if !src.Watermark.IsZero() {
			snap.Age[src.Name] = now.Sub(src.Watermark)
		}
	}
	return snap, nil
}

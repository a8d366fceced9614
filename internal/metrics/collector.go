package metrics

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/tariffs"
)

// DefaultTopKeys is how many key aliases are named by default.
const DefaultTopKeys = 20

// Other is the key alias every key past the top ones is counted under.
const Other = "other"

// Options shape the metrics.
type Options struct {
	TopKeys int // key aliases named, by official cost; 0 means DefaultTopKeys
	// Budgets are the team and key budgets whose spend, remainder and
	// month-end forecast are reported (tokenfare_budget_*); nil for none.
	Budgets *pricing.BudgetPlan
	// Blend gives the blend a GatewayConfig is held against (worked at
	// the billing instant the state's calls were read with, as blend
	// --state --billing-time works it); nil: the configured prices have
	// no series.
	Blend BlendFunc
	// MonthSaving gives what the state's calls billed in the UTC month of
	// now would save under each lever alone (internal/run's StateSaving);
	// nil: no tokenfare_month_saving series.
	MonthSaving func(cat *tariffs.Catalog, now time.Time) (map[savings.Lever]decimal.Decimal, error)
	// Log, when set, is told once of a label value that is not valid
	// UTF-8 (a key alias or team saved in Latin-1): its invalid bytes
	// are written as \xNN.
	Log *slog.Logger
}

var (
	descOfficial = prometheus.NewDesc("tokenfare_official_cost",
		"Official cost of the calls in the state at the tariffs loaded (priced again on a tariff change), in the tariff's currency.",
		[]string{"provider", "model", "key", "team", "currency"}, nil)
	descRecorded = prometheus.NewDesc("tokenfare_recorded_spend",
		"Spend the gateway recorded for the calls in the state (duplicates left out).",
		[]string{"provider", "model", "key", "team"}, nil)
	descCalls = prometheus.NewDesc("tokenfare_calls_total",
		"Rows read, by outcome: priced, unpriced, retired, failed, cache_hit, duplicate, rejected.",
		[]string{"outcome"}, nil)
	descGap = prometheus.NewDesc("tokenfare_gap_ratio",
		"(recorded spend - official cost) / official cost of the priced calls billed in the window: 1h, 24h, or month (UTC month to date).",
		[]string{"window"}, nil)
	descPeak = prometheus.NewDesc("tokenfare_peak_share",
		"Share of a model's official cost this UTC month billed outside its tariff's default period (peak hours).",
		[]string{"model"}, nil)
	descUnpricedCalls = prometheus.NewDesc("tokenfare_unpriced_calls",
		"Calls in the state the tariffs loaded leave without a price, by model, the host the calls name, and cause: "+
			"not_in_catalog, not_on_host, not_yet_priced or retired (docs/serve.md).",
		[]string{"model", "host", "cause"}, nil)
	descUnpricedRecorded = prometheus.NewDesc("tokenfare_unpriced_recorded_spend",
		"Spend the gateway recorded for the calls of tokenfare_unpriced_calls.",
		[]string{"model", "host", "cause"}, nil)
	descAge = prometheus.NewDesc("tokenfare_newest_row_age_seconds",
		"Seconds since the billing instant of the newest row read from the source.",
		[]string{"source"}, nil)
)

// Collector is a prometheus.Collector of the figures of its last Update.
type Collector struct {
	opts Options
	mu   sync.RWMutex
	snap *Snapshot
	// book is the state priced, kept up to date by the commits of the
	// store watched (nil until the first Update, and without Watch).
	book    *book
	watched *state.Store
	drift   *drift // the configured prices' drift last made
	// monthSaving is the month's saving per lever last made (savings.go).
	monthSaving *monthSaving
	escaped     sync.Once
}

// drift is the configured prices' drift as made at.
type drift struct {
	at  driftAt
	off map[configLabels]decimal.Decimal
	err error // nil, or wrapping ErrNoDrift
}

// driftAt is what the drift is made of, but the sums of the slot now is
// in: the slot, the catalog, and the config (GatewayConfig.key).
type driftAt struct {
	slot   time.Time
	cat    *tariffs.Catalog
	config string
}

// New returns a Collector with nothing to report until Update.
func New(opts Options) *Collector {
	if opts.TopKeys <= 0 {
		opts.TopKeys = DefaultTopKeys
	}
	return &Collector{opts: opts, snap: &Snapshot{}}
}

// costLabels are the labels of one cost series.
type costLabels struct {
	provider, model, key, team, currency string
}

// money is an official cost and a recorded spend.
type money struct{ official, recorded decimal.Decimal }

// Snapshot is the figures of one Update.
type Snapshot struct {
	Cost  map[costLabels]*money
	Calls map[string]int64
	Gap   map[string]*money // window → priced calls' money
	Peak  map[string]*money // model → month's official cost (official: all, recorded: off the default period)
	Age   map[string]time.Duration
	// ConfigOff is how far each configured price is off today's blend.
	ConfigOff map[configLabels]decimal.Decimal
	Budgets   []budgetLine
	Anomaly   map[anomalyKey]*weeks
	// Unpriced is the state's calls left without a price, and the spend
	// recorded for them, by model, host and cause.
	Unpriced map[unpricedLabels]unpricedFigures
	// Saving is what the month's calls would save under each lever alone.
	Saving map[savings.Lever]decimal.Decimal
}

// unpricedFigures are an unpriced series' calls and recorded spend.
type unpricedFigures struct {
	calls    int64
	recorded decimal.Decimal
}

// Update prices the state's sums at cat and makes them the figures the
// next scrapes report; now decides the windows and ages. The prices of
// gw, a LiteLLM config (nil: none), are held against the blend of the
// state's last BlendWindow that Options.Blend gives
// (tokenfare_config_price_off_ratio). On an error the figures of the
// last Update stay, but for one wrapping ErrNoDrift: then every other
// figure is updated and the configured prices have no series.
//
// The sums are priced once into a book, which the refreshes of s keep up
// to date (Watch); the whole state is priced again only for a new
// catalog, or a now before the book's horizon.
func (c *Collector) Update(s *state.Store, cat *tariffs.Catalog, now time.Time, gw *GatewayConfig) error {
	now = now.UTC()
	if c.watched != s || c.book == nil || c.book.cat != cat || !c.book.fold(horizon(now)) {
		b := newBook(cat)
		if err := s.Each(b.add); err != nil {
			return err
		}
		b.fold(horizon(now))
		c.book = b
	}
	snap, err := c.book.snapshot(s, now, c.opts)
	if err != nil {
		return err
	}
	if snap.Saving, err = c.saving(cat, now); err != nil {
		return err
	}
	if gw != nil && c.opts.Blend != nil {
		if snap.ConfigOff, err = c.driftOf(gw, cat, now); err != nil && !errors.Is(err, ErrNoDrift) {
			return err
		}
	}
	c.mu.Lock()
	c.snap = snap
	c.mu.Unlock()
	return err
}

// driftOf returns the drift of gw's prices. The 28 days' blend prices
// every sum of the window: it is made again once a slot, or for a new
// catalog or config, not at every refresh.
func (c *Collector) driftOf(gw *GatewayConfig, cat *tariffs.Catalog, now time.Time) (map[configLabels]decimal.Decimal, error) {
	at := driftAt{slot: now.Truncate(state.Grain), cat: cat, config: gw.key()}
	if c.drift != nil && c.drift.at == at {
		return c.drift.off, c.drift.err
	}
	off, err := configDrift(gw, c.opts.Blend, cat, now)
	if err == nil || errors.Is(err, ErrNoDrift) {
		c.drift = &drift{at: at, off: off, err: err}
	}
	return off, err
}

// windows are the gap's windows, by label, as the instant they start at.
func windows(now time.Time) map[string]time.Time {
	return map[string]time.Time{
		"1h":    now.Add(-time.Hour),
		"24h":   now.Add(-24 * time.Hour),
		"month": time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC),
	}
}

// Watch has the collector's book take in what each refresh of s commits,
// from the next Update on. Call it once, before the first refresh; the
// refreshes and Update must run in one goroutine.
func (c *Collector) Watch(s *state.Store) {
	c.watched, c.book = s, nil
	s.OnCommit(func(k *state.Key, sums *state.Sums) error {
		if c.book == nil {
			return nil // the first Update prices the whole state
		}
		return c.book.add(k, sums)
	})
}

// tally is money summed exactly in integers (pricing.ExactSum).
type tally struct{ official, recorded pricing.ExactSum }

func (t *tally) add(official, recorded ledger.Amount) {
	t.official.Add(official)
	t.recorded.Add(recorded)
}

func (t *tally) merge(o *tally) {
	t.official.Merge(&o.official)
	t.recorded.Merge(&o.recorded)
}

func (t *tally) money() *money {
	return &money{official: t.official.Value(), recorded: t.recorded.Value()}
}

// tallyOf returns m[k], made when missing.
func tallyOf[K comparable](m map[K]*tally, k K) *tally {
	v := m[k]
	if v == nil {
		v = &tally{}
		m[k] = v
	}
	return v
}

// topKeys returns the n key aliases of the highest official cost (ties
// by name).
func topKeys(byKey map[string]decimal.Decimal, n int) map[string]bool {
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if c := byKey[keys[i]].Cmp(byKey[keys[j]]); c != 0 {
			return c > 0
		}
		return keys[i] < keys[j]
	})
	out := map[string]bool{}
	for _, k := range keys[:min(n, len(keys))] {
		out[k] = true
	}
	return out
}

// logEscaped tells the log, once, of the first label value escaped.
func (c *Collector) logEscaped(raw, written string) {
	c.escaped.Do(func() {
		if c.opts.Log != nil {
			c.opts.Log.Warn("metrics: a label value is not valid UTF-8 (a file saved as Latin-1?): its invalid bytes are written as \\xNN; said once",
				"value", fmt.Sprintf("%q", raw), "written", written)
		}
	})
}

// Describe sends the descriptors of every metric.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descOfficial, descRecorded, descCalls, descGap, descPeak, descAge, descConfig, descUnpricedCalls, descUnpricedRecorded,
		descBudget, descBudgetSpent, descBudgetRemaining, descBudgetForecast, descAnomalyRatio, descAnomalyScore, descSaving} {
		ch <- d
	}
}

// Collect sends the metrics of the last Update.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.RLock()
	snap := c.snap
	c.mu.RUnlock()
	out := sender{ch: ch, escaped: c.logEscaped}
	for l, m := range snap.Cost {
		out.send(descOfficial, prometheus.GaugeValue, m.official.InexactFloat64(), l.provider, l.model, l.key, l.team, l.currency)
		out.send(descRecorded, prometheus.GaugeValue, m.recorded.InexactFloat64(), l.provider, l.model, l.key, l.team)
	}
	for o, n := range snap.Calls {
		out.send(descCalls, prometheus.CounterValue, float64(n), o)
	}
	for w, m := range snap.Gap {
		if !m.official.IsZero() {
			out.send(descGap, prometheus.GaugeValue, m.recorded.Sub(m.official).Div(m.official).InexactFloat64(), w)
		}
	}
	for model, m := range snap.Peak {
		if !m.official.IsZero() {
			out.send(descPeak, prometheus.GaugeValue, m.recorded.Div(m.official).InexactFloat64(), model)
		}
	}
	for src, age := range snap.Age {
		out.send(descAge, prometheus.GaugeValue, age.Seconds(), src)
	}
	for l, u := range snap.Unpriced {
		out.send(descUnpricedCalls, prometheus.GaugeValue, float64(u.calls), l.model, l.host, l.cause)
		out.send(descUnpricedRecorded, prometheus.GaugeValue, u.recorded.InexactFloat64(), l.model, l.host, l.cause)
	}
	collectBudgets(out, snap.Budgets)
	collectAnomalies(out, snap.Anomaly)
	collectSaving(out, snap.Saving)
	for l, off := range snap.ConfigOff {
		out.send(descConfig, prometheus.GaugeValue, off.InexactFloat64(), l.modelName, l.field)
	}
}

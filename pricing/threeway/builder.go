package threeway

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Builder gathers the provider's rows and the gateway's calls into cells.
// It is a pricing.Observer: the run shows it every call it prices.
type Builder struct {
	cat     *tariffs.Catalog
	cells   map[cellKey]*cellAcc
	keyed   map[string]bool // providers aligned by key
	usage   map[string]bool // providers with usage rows
	reqs    map[string]bool // providers whose usage rows count requests
	billed  map[string]bool // providers with billing rows
	since   time.Time
	until   time.Time
	rows    int64
	outside int64
}

var _ pricing.Observer = (*Builder)(nil)

type cellKey struct {
	day   int64
	model string
	key   string
}

// cellAcc accumulates one cell: the gateway's calls by rate set, the
// provider's usage by rate set and billing, and the billing rows that
// carry no usage (pooled).
type cellAcc struct {
	key      cellKey
	provider string
	currency string
	gwCalls  int64
	gwTokens pricing.TokenCounts
	gwQty    map[*tariffs.Rates]*pricing.Quantities
	recorded pricing.ExactSum

	hasUsage, hasBilling bool
	provQty              pricing.Quantities
	parts                map[partKey]*provPart
	unpriced             string // why some provider rows could not be priced
	pool                 [tariffs.NumUsage]decimal.Decimal
	poolSet              [tariffs.NumUsage]bool
	poolTotal            decimal.Decimal
	poolTotalSet         bool
	billed               decimal.Decimal
}

// provPart is the provider's usage of a cell at one rate set, with the
// billing its rows carried themselves (DeepSeek's export).
type provPart struct {
	rates   *tariffs.Rates
	version string
	period  string
	billing Billing
	qty     pricing.Quantities
	billed  [tariffs.NumUsage]decimal.Decimal
	total   decimal.Decimal
}

type partKey struct {
	rates   *tariffs.Rates
	billing Billing
}

// New returns a builder that aligns calls with the provider's rows, priced
// against cat. Rows whose bucket lies wholly outside the window of opts
// (Since, Until) are counted and left out, as the engine leaves out calls
// billed outside it. It fails when a bill's currency is not its tariff's.
func New(cat *tariffs.Catalog, opts pricing.Options, rows []Row) (*Builder, error) {
	b := &Builder{cat: cat, since: opts.Since, until: opts.Until, cells: map[cellKey]*cellAcc{}, keyed: map[string]bool{},
		usage: map[string]bool{}, billed: map[string]bool{}, reqs: map[string]bool{}}
	for i := range rows {
		if r := &rows[i]; r.Key != "" {
			b.keyed[b.providerOf(r)] = true
		}
	}
	for i := range rows {
		if err := b.addRow(&rows[i]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// providerOf names the tariff provider of a row: its model's, else the
// row's own.
func (b *Builder) providerOf(r *Row) string {
	if m, ok := b.cat.Resolve(r.Model); ok && r.Model != "" {
		return m.Provider.Name
	}
	return r.Provider
}

// cell returns the cell of a UTC day, model and key, made for provider
// prov if new.
func (b *Builder) cell(day time.Time, model, key, prov string) *cellAcc {
	k := cellKey{day: day.Unix(), model: model, key: key}
	c := b.cells[k]
	if c == nil {
		c = &cellAcc{key: k, provider: prov, gwQty: map[*tariffs.Rates]*pricing.Quantities{}, parts: map[partKey]*provPart{},
			billed: decimal.Zero, poolTotal: decimal.Zero, pool: zeroCosts()}
		b.cells[k] = c
	}
	return c
}

func utcDay(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }

// addRow adds one provider row to its cell, pricing its tokens at the
// tariff in force over its bucket.
func (b *Builder) addRow(r *Row) error {
	b.rows++
	if r.outside(b.since, b.until) {
		b.outside++
		return nil
	}
	model, prov := r.Model, r.Provider
	m, known := b.cat.Resolve(r.Model)
	known = known && r.Model != ""
	if known {
		model, prov = m.ID, m.Provider.Name
	}
	key := ""
	if b.keyed[prov] {
		key = r.Key
	}
	c := b.cell(utcDay(r.Start), model, key, prov)
	if known {
		c.currency = m.Provider.Currency
	}
	if r.billed() {
		if c.currency != "" && r.Currency != c.currency {
			return fmt.Errorf("%s: billed in %s, but the %s tariff is in %s", r.Where, r.Currency, prov, c.currency)
		}
		c.currency = r.Currency
		b.billed[prov], c.hasBilling = true, true
		c.billed = c.billed.Add(r.Billed)
	}
	if !r.HasTokens {
		c.poolBilling(r)
		return nil
	}
	b.usage[prov], c.hasUsage = true, true
	b.reqs[prov] = b.reqs[prov] || r.HasRequests
	c.addUsage(m, known, r)
	return nil
}

// addUsage adds a usage row to the cell's part of its rate set and billing.
func (c *cellAcc) addUsage(m *tariffs.Model, known bool, r *Row) {
	c.provQty.Add(&r.Qty)
	pk := partKey{billing: r.Billing}
	var version, period string
	if rr, why := rowRates(m, known, r); rr != nil {
		pk.rates, version, period = rr.rates, rr.version, rr.period
	} else {
		c.unpriced = why
	}
	p := c.parts[pk]
	if p == nil {
		p = &provPart{rates: pk.rates, version: version, period: period, billing: pk.billing, total: decimal.Zero, billed: zeroCosts()}
		c.parts[pk] = p
	}
	p.qty.Add(&r.Qty)
	if r.billed() {
		p.total = p.total.Add(r.Billed)
		addCosts(&p.billed, r.ByUsage)
	}
}

// poolBilling adds a billing row without usage to the cell's pool.
func (c *cellAcc) poolBilling(r *Row) {
	if r.Billing == BilledByUsage {
		for u := range c.pool {
			if !r.ByUsage[u].IsZero() {
				c.pool[u], c.poolSet[u] = c.pool[u].Add(r.ByUsage[u]), true
			}
		}
		return
	}
	c.poolTotal, c.poolTotalSet = c.poolTotal.Add(r.Billed), true
}

type rowRate struct {
	rates           *tariffs.Rates
	version, period string
}

// rowRates finds the one rate set in force over a row's whole bucket, or
// says why there is none.
func rowRates(m *tariffs.Model, known bool, r *Row) (*rowRate, string) {
	if !known {
		return nil, "the model is not in the tariffs"
	}
	q := m.At(r.Start)
	if q.Status != tariffs.Priced {
		return nil, fmt.Sprintf("the model is %s at %s", q.Status, r.Start.Format(time.RFC3339))
	}
	if q.Until < r.End.UnixNano() {
		return nil, fmt.Sprintf("the bucket from %s to %s spans more than one rate set (ask for hourly buckets)",
			r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339))
	}
	mp, _ := q.Prices.Variant(r.ServiceTier, r.Region)
	tier := 0
	if r.PromptSize > 0 {
		tier = mp.TierOf(r.PromptSize)
	}
	return &rowRate{rates: mp.RatesAt(q.Period, tier), version: q.Version.Name, period: q.PeriodName()}, ""
}

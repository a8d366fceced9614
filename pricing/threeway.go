package pricing

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/provider"
	"github.com/tokenfare/tokenfare/tariffs"
)

// ThreeWay sets three accounts of the same traffic side by side, per UTC
// day, model and (where both sides have it) key: what the gateway logged
// and recorded, what the tariff says the gateway's tokens cost, and what
// the provider counted and billed.
//
// For each cell the gap is billed minus recorded, and its parts add up to
// it exactly: recorded against the tariff, usage the provider counted and
// the gateway did not log (missing), usage the gateway logged and the
// provider did not count (unknown), and the tariff drift — what the
// provider billed against the tariff's price of the provider's own tokens.
type ThreeWay struct {
	Rows            Rows     // the gateway's row accounting
	ProviderRows    int64    // rows read from the provider's exports
	ProviderOutside int64    // of which outside the window: their bucket ends by Since or starts at Until or later
	Keyed           []string // tariff providers aligned by key as well
	Cells           []Cell
	Providers       []ProviderTotals
	Drifts          []Drift
}

// PartKind names one part of a three-way gap.
type PartKind uint8

// Parts of a three-way gap.
const (
	// PartRecordedVsTariff: the tariff's cost of the gateway's tokens
	// minus what the gateway recorded (the plain reconcile gap).
	PartRecordedVsTariff PartKind = iota
	// PartMissingUsage: the tariff's cost of the tokens and requests the
	// provider counted beyond the gateway's log.
	PartMissingUsage
	// PartUnknownUsage: the same for usage the gateway logged beyond what
	// the provider counted (negative).
	PartUnknownUsage
	// PartTariffDrift: billed minus the tariff's cost of the provider's
	// tokens: the tariff file is wrong or out of date.
	PartTariffDrift
	// PartBilledVsGatewayTokens: billed minus the tariff's cost of the
	// gateway's tokens, where the provider's tokens are not known or
	// cannot be priced at one rate set (a bucket spanning periods).
	PartBilledVsGatewayTokens
	// PartUnattributed: billed for no model: the cost export was not
	// grouped by model (line item, description).
	PartUnattributed
	// PartUnbilled: the tariff's cost of the provider's tokens of a cell
	// the cost exports bill nothing for (negative).
	PartUnbilled
	numPartKinds
)

var partNames = [numPartKinds]string{"recorded_vs_tariff", "missing_usage", "unknown_usage", "tariff_drift",
	"billed_vs_gateway_tokens", "unattributed_billing", "unbilled_usage"}

// String returns the part's name as reports spell it.
func (k PartKind) String() string { return partNames[k] }

// Part is one part of a gap.
type Part struct {
	Kind   PartKind
	Amount decimal.Decimal
}

// Cell is one UTC day of one model (and key) on both sides.
type Cell struct {
	Day      time.Time // UTC midnight
	Provider string    // tariff provider; the export's provider when the model is not in the catalog
	Model    string    // tariff model id, or the name as logged or exported; "" for billing not grouped by model
	Key      string    // hashed key, when the provider is aligned by key
	Currency string

	GatewayCalls     int64
	GatewayTokens    TokenCounts
	ProviderRequests int64
	HasRequests      bool // the provider gives request counts
	ProviderTokens   TokenCounts
	HasUsage         bool // the provider's usage exports have this cell
	MissingCalls     int64
	UnknownCalls     int64
	Missing          TokenCounts // by usage type, what the provider counted beyond the gateway
	Unknown          TokenCounts // by usage type, what the gateway logged beyond the provider

	Recorded         decimal.Decimal
	Official         decimal.Decimal     // the tariff's cost of the gateway's tokens
	ProviderOfficial decimal.NullDecimal // the tariff's cost of the provider's tokens; not valid when they cannot be priced
	Billed           decimal.Decimal
	HasBilled        bool                // the provider's cost exports cover this cell's provider
	Gap              decimal.NullDecimal // Billed − Recorded, when HasBilled
	Parts            []Part              // non-zero parts; they add up to Gap when it is valid
	Note             string              // why the provider's tokens could not be priced, if so
}

// ProviderTotals sum the cells of one provider.
type ProviderTotals struct {
	Provider         string
	Currency         string
	Cells            int
	GatewayCalls     int64
	ProviderRequests int64
	HasRequests      bool
	MissingCalls     int64
	UnknownCalls     int64
	Recorded         decimal.Decimal
	Official         decimal.Decimal
	ProviderOfficial decimal.Decimal // over the cells whose provider tokens were priced
	Billed           decimal.Decimal
	HasBilled        bool
	Gap              decimal.NullDecimal
	Parts            []Part
}

// Drift is what the provider billed against the tariff's price of the
// provider's tokens, for one model, tariff version, period and usage type.
type Drift struct {
	Provider    string
	Model       string
	Version     string // the tariff version; several joined with ", " when the billing does not tell them apart
	Period      string
	Usage       string // usage type; "" when billed in total only
	First, Last time.Time
	Tokens      int64 // the provider's tokens (requests for "request")
	Official    decimal.Decimal
	Billed      decimal.Decimal
	Drift       decimal.Decimal     // Billed − Official
	TariffPrice decimal.NullDecimal // the tariff's price per 1M (per call for requests), when one applies
	BilledPrice decimal.NullDecimal // Billed per 1M tokens, rounded to BlendPlaces; not valid without tokens
	Rounding    bool                // Billed equals Official to one part in a million: float noise of the export, not a wrong price
}

// ThreeWayBuilder gathers the provider's rows and the gateway's calls.
type ThreeWayBuilder struct {
	cat     *tariffs.Catalog
	cells   map[cellKey]*cellAcc
	keyed   map[string]bool
	usage   map[string]bool // providers with usage rows
	reqs    map[string]bool // providers whose usage rows count requests
	billed  map[string]bool // providers with billing rows
	since   time.Time
	until   time.Time
	rows    int64
	outside int64
}

type cellKey struct {
	day   int64
	model string
	key   string
}

// provPart is the provider's usage of a cell at one rate set, with the
// billing its rows carried themselves (DeepSeek's export).
type provPart struct {
	rates   *tariffs.Rates
	version string
	period  string
	mode    uint8 // 0: no billing on the row, 1: billed by usage, 2: billed in total
	qty     Quantities
	billed  [tariffs.NumUsage]decimal.Decimal
	total   decimal.Decimal
}

type cellAcc struct {
	key      cellKey
	provider string
	currency string
	gwCalls  int64
	gwTokens TokenCounts
	gwQty    map[*tariffs.Rates]*Quantities
	recorded exactSum

	hasUsage, hasBilling bool
	provQty              Quantities
	parts                map[partKey]*provPart
	unpriced             string // why some provider rows could not be priced
	pool                 [tariffs.NumUsage]decimal.Decimal
	poolSet              [tariffs.NumUsage]bool
	poolTotal            decimal.Decimal
	poolTotalSet         bool
	billed               decimal.Decimal
}

type partKey struct {
	rates *tariffs.Rates
	mode  uint8
}

// NewThreeWay returns a builder that aligns calls with the rows of exports,
// priced against cat. Rows whose bucket lies wholly outside the window of
// opts (Since, Until) are counted and left out, as the engine leaves out
// calls billed outside it. It fails when a bill's currency is not its
// tariff's.
func NewThreeWay(cat *tariffs.Catalog, opts Options, exports []*provider.Export) (*ThreeWayBuilder, error) {
	b := &ThreeWayBuilder{cat: cat, since: opts.Since, until: opts.Until, cells: map[cellKey]*cellAcc{}, keyed: map[string]bool{},
		usage: map[string]bool{}, billed: map[string]bool{}, reqs: map[string]bool{}}
	for _, x := range exports {
		for i := range x.Rows {
			if r := &x.Rows[i]; r.Key != "" {
				b.keyed[b.providerOf(r)] = true
			}
		}
	}
	for _, x := range exports {
		for i := range x.Rows {
			if err := b.addRow(&x.Rows[i]); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// providerOf names the tariff provider of a row: its model's, else the
// export's.
func (b *ThreeWayBuilder) providerOf(r *provider.Row) string {
	if m, ok := b.cat.Resolve(r.Model); ok && r.Model != "" {
		return m.Provider.Name
	}
	return r.Format.Provider()
}

func (b *ThreeWayBuilder) cell(day time.Time, model, key, prov string) *cellAcc {
	k := cellKey{day: day.Unix(), model: model, key: key}
	c := b.cells[k]
	if c == nil {
		c = &cellAcc{key: k, provider: prov, gwQty: map[*tariffs.Rates]*Quantities{}, parts: map[partKey]*provPart{},
			billed: decimal.Zero, poolTotal: decimal.Zero}
		for u := range c.pool {
			c.pool[u] = decimal.Zero
		}
		b.cells[k] = c
	}
	return c
}

func utcDay(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }

// addRow adds one provider row to its cell, pricing its tokens at the
// tariff in force over its bucket.
func (b *ThreeWayBuilder) addRow(r *provider.Row) error {
	b.rows++
	if (!b.since.IsZero() && !r.End.After(b.since)) || (!b.until.IsZero() && !r.Start.Before(b.until)) {
		b.outside++
		return nil
	}
	model, prov := r.Model, r.Format.Provider()
	m, known := b.cat.Resolve(r.Model)
	if known && r.Model != "" {
		model, prov = m.ID, m.Provider.Name
	}
	key := ""
	if b.keyed[prov] {
		key = r.Key
	}
	c := b.cell(utcDay(r.Start), model, key, prov)
	if known && r.Model != "" {
		c.currency = m.Provider.Currency
	}
	if r.HasBilled {
		if c.currency != "" && r.Currency != c.currency {
			return fmt.Errorf("%s: billed in %s, but the %s tariff is in %s", r.Where, r.Currency, prov, c.currency)
		}
		c.currency = r.Currency
		b.billed[prov], c.hasBilling = true, true
		c.billed = c.billed.Add(r.Billed)
	}
	if !r.HasTokens {
		b.poolBilling(c, r)
		return nil
	}
	b.usage[prov], c.hasUsage = true, true
	b.reqs[prov] = b.reqs[prov] || r.HasRequests
	q := Quantities(r.Qty)
	c.provQty.Add(&q)
	pk := partKey{}
	var version, period string
	if rr, why := rowRates(m, known && r.Model != "", r); rr != nil {
		pk.rates, version, period = rr.rates, rr.version, rr.period
	} else {
		c.unpriced = why
	}
	switch {
	case r.HasBilled && r.Split:
		pk.mode = 1
	case r.HasBilled:
		pk.mode = 2
	}
	p := c.parts[pk]
	if p == nil {
		p = &provPart{rates: pk.rates, version: version, period: period, mode: pk.mode, total: decimal.Zero}
		for u := range p.billed {
			p.billed[u] = decimal.Zero
		}
		c.parts[pk] = p
	}
	p.qty.Add(&q)
	if r.HasBilled {
		p.total = p.total.Add(r.Billed)
		for u := range p.billed {
			p.billed[u] = p.billed[u].Add(r.ByUsage[u])
		}
	}
	return nil
}

// poolBilling adds a cost row without tokens to its cell's pool.
func (b *ThreeWayBuilder) poolBilling(c *cellAcc, r *provider.Row) {
	if r.Split {
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
func rowRates(m *tariffs.Model, known bool, r *provider.Row) (*rowRate, string) {
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
	if r.Context == "200k-1M" {
		tier = mp.TierOf(200_001)
	}
	return &rowRate{rates: mp.RatesAt(q.Period, tier), version: q.Version.Name, period: q.PeriodName()}, ""
}

// AddCall adds one priced gateway call. Overlaps, failed calls, answers
// from the gateway's response cache and calls outside the window are left
// out: providers bill none of them. A call the gateway logged twice in one
// source (Duplicate) counts once, as in reconcile: its second row adds no
// call and no tokens, but the spend recorded on it is in the cell's
// recorded spend, since the key's budget was charged it.
func (b *ThreeWayBuilder) AddCall(c *ledger.Call, pc *PricedCall) {
	switch pc.Outcome {
	case Overlap, Failed, CacheHit, Outside:
		return
	}
	if pc.Outcome == Duplicate {
		if !c.Recorded.IsZero() {
			b.gatewayCell(c, pc).recorded.Add(c.Recorded)
		}
		return
	}
	cell := b.gatewayCell(c, pc)
	cell.gwCalls++
	q := QuantitiesOf(c.Tokens, c.Tools)
	cell.gwTokens.add(&q)
	if pc.Outcome == Priced {
		acc := cell.gwQty[pc.Rates]
		if acc == nil {
			acc = &Quantities{}
			cell.gwQty[pc.Rates] = acc
		}
		acc.Add(&q)
	}
	if !c.Recorded.IsZero() {
		cell.recorded.Add(c.Recorded)
	}
}

// gatewayCell returns the cell of a gateway call: its UTC day, model,
// provider and, where the provider's exports have keys, key.
func (b *ThreeWayBuilder) gatewayCell(c *ledger.Call, pc *PricedCall) *cellAcc {
	prov, currency := "", ""
	if pc.Quote.Model != nil {
		prov, currency = pc.Quote.Model.Provider.Name, pc.Quote.Model.Provider.Currency
	} else {
		prov = c.Provider
	}
	key := ""
	if b.keyed[prov] {
		key = c.Key
	}
	cell := b.cell(utcDay(pc.At), pc.ModelName(), key, prov)
	if cell.currency == "" {
		cell.currency = currency
	}
	return cell
}

// Build finishes the three-way reconciliation; rows is the gateway's row
// accounting.
func (b *ThreeWayBuilder) Build(rows Rows) *ThreeWay {
	tw := &ThreeWay{Rows: rows, ProviderRows: b.rows, ProviderOutside: b.outside, Cells: []Cell{}, Providers: []ProviderTotals{}, Drifts: []Drift{}}
	for p := range b.keyed {
		tw.Keyed = append(tw.Keyed, p)
	}
	sort.Strings(tw.Keyed)
	accs := make([]*cellAcc, 0, len(b.cells))
	for _, c := range b.cells {
		accs = append(accs, c)
	}
	sort.Slice(accs, func(i, j int) bool { return cellLess(accs[i], accs[j]) })
	drifts := map[driftKey]*Drift{}
	var order []driftKey
	for _, a := range accs {
		cell := b.finish(a)
		tw.Cells = append(tw.Cells, cell)
		for _, d := range b.cellDrifts(a, &cell) {
			k := driftKey{d.Provider, d.Model, d.Version, d.Period, d.Usage}
			if have := drifts[k]; have != nil {
				have.Tokens += d.Tokens
				have.Official, have.Billed = have.Official.Add(d.Official), have.Billed.Add(d.Billed)
				have.Last = d.Last
				continue
			}
			dd := d
			drifts[k] = &dd
			order = append(order, k)
		}
	}
	for _, k := range order {
		d := drifts[k]
		d.Drift = d.Billed.Sub(d.Official)
		d.Rounding = !d.Drift.IsZero() && closeTo(d.Billed, d.Official)
		if d.Tokens > 0 {
			per := d.Billed
			if u, err := tariffs.ParseUsage(d.Usage); err == nil && u.IsToken() {
				per = per.Shift(6) // per 1M tokens; per call or use otherwise
			}
			d.BilledPrice = decimal.NewNullDecimal(per.DivRound(decimal.NewFromInt(d.Tokens), BlendPlaces))
		}
		tw.Drifts = append(tw.Drifts, *d)
	}
	sort.SliceStable(tw.Drifts, func(i, j int) bool {
		a, b := &tw.Drifts[i], &tw.Drifts[j]
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		if !a.First.Equal(b.First) {
			return a.First.Before(b.First)
		}
		return a.Version+"\x00"+a.Period+"\x00"+a.Usage < b.Version+"\x00"+b.Period+"\x00"+b.Usage
	})
	tw.Providers = totalsByProvider(tw.Cells)
	return tw
}

func cellLess(a, b *cellAcc) bool {
	switch {
	case a.key.day != b.key.day:
		return a.key.day < b.key.day
	case a.provider != b.provider:
		return a.provider < b.provider
	case a.key.model != b.key.model:
		return a.key.model < b.key.model
	}
	return a.key.key < b.key.key
}

type driftKey struct{ provider, model, version, period, usage string }

// costByUsage prices quantities at rates per usage type, reasoning folded
// into output as the provider counts it.
func costByUsage(r *tariffs.Rates, q *Quantities) [tariffs.NumUsage]decimal.Decimal {
	by, _ := CostOf(r, q)
	by[tariffs.Output] = by[tariffs.Output].Add(by[tariffs.Reasoning])
	by[tariffs.Reasoning] = decimal.Zero
	return by
}

func addCosts(to *[tariffs.NumUsage]decimal.Decimal, by [tariffs.NumUsage]decimal.Decimal) {
	for u := range to {
		to[u] = to[u].Add(by[u])
	}
}

func zeroCosts() (z [tariffs.NumUsage]decimal.Decimal) {
	for u := range z {
		z[u] = decimal.Zero
	}
	return z
}

func sumCosts(by [tariffs.NumUsage]decimal.Decimal) decimal.Decimal {
	s := decimal.Zero
	for _, d := range by {
		s = s.Add(d)
	}
	return s
}

// finish works out one cell's figures and the parts of its gap.
func (b *ThreeWayBuilder) finish(a *cellAcc) Cell {
	c := Cell{Day: time.Unix(a.key.day, 0).UTC(), Provider: a.provider, Model: a.key.model, Key: a.key.key,
		Currency: a.currency, GatewayCalls: a.gwCalls, GatewayTokens: a.gwTokens, HasRequests: b.reqs[a.provider],
		HasUsage: a.hasUsage, Recorded: a.recorded.Value(), Billed: a.billed, HasBilled: b.billed[a.provider], Note: a.unpriced}
	c.ProviderTokens.add(&a.provQty)
	if c.HasRequests {
		c.ProviderRequests = a.provQty[tariffs.Request]
	}
	gw := zeroCosts()
	for r, q := range a.gwQty {
		addCosts(&gw, costByUsage(r, q))
	}
	c.Official = sumCosts(gw)
	c.Parts = appendPart(nil, PartRecordedVsTariff, c.Official.Sub(c.Recorded))
	compared := b.usage[a.provider] && a.unpriced == ""
	base := c.Official
	if compared {
		pv := zeroCosts()
		for _, p := range a.parts {
			addCosts(&pv, costByUsage(p.rates, &p.qty))
		}
		if !c.HasRequests {
			// No request counts: the requests are taken as the gateway logged them.
			pv[tariffs.Request] = gw[tariffs.Request]
		}
		c.ProviderOfficial = decimal.NewNullDecimal(sumCosts(pv))
		base = c.ProviderOfficial.Decimal
		c.compareUsage(gw, pv)
	}
	if !c.HasBilled {
		return c
	}
	switch {
	case !a.hasBilling:
		c.Parts = appendPart(c.Parts, PartUnbilled, base.Neg())
	case c.Model == "":
		c.Parts = appendPart(c.Parts, PartUnattributed, c.Billed.Sub(base))
	case compared:
		c.Parts = appendPart(c.Parts, PartTariffDrift, c.Billed.Sub(base))
	default:
		c.Parts = appendPart(c.Parts, PartBilledVsGatewayTokens, c.Billed.Sub(base))
	}
	c.Gap = decimal.NewNullDecimal(c.Billed.Sub(c.Recorded))
	return c
}

func appendPart(parts []Part, k PartKind, amount decimal.Decimal) []Part {
	if amount.IsZero() {
		return parts
	}
	return append(parts, Part{Kind: k, Amount: amount})
}

// compareUsage fills missing and unknown usage, and their cost at the
// tariff: for each usage type, the provider's cost minus the gateway's
// goes to missing when the provider counted at least as much, else to
// unknown.
func (c *Cell) compareUsage(gw, pv [tariffs.NumUsage]decimal.Decimal) {
	g, p := &c.GatewayTokens, &c.ProviderTokens
	pairs := []struct {
		u          tariffs.Usage
		gw, pv     int64
		miss, unkn *int64
	}{
		{tariffs.Input, g.Input, p.Input, &c.Missing.Input, &c.Unknown.Input},
		{tariffs.CacheRead, g.CacheRead, p.CacheRead, &c.Missing.CacheRead, &c.Unknown.CacheRead},
		{tariffs.CacheWrite, g.CacheWrite, p.CacheWrite, &c.Missing.CacheWrite, &c.Unknown.CacheWrite},
		{tariffs.Output, g.Output, p.Output, &c.Missing.Output, &c.Unknown.Output},
		{tariffs.Request, c.GatewayCalls, c.ProviderRequests, &c.MissingCalls, &c.UnknownCalls},
	}
	missing, unknown := decimal.Zero, decimal.Zero
	for _, x := range pairs {
		if x.u == tariffs.Request && !c.HasRequests {
			continue // no request counts to compare
		}
		d := pv[x.u].Sub(gw[x.u])
		if x.pv >= x.gw {
			*x.miss = x.pv - x.gw
			missing = missing.Add(d)
		} else {
			*x.unkn = x.gw - x.pv
			unknown = unknown.Add(d)
		}
	}
	c.Parts = appendPart(c.Parts, PartMissingUsage, missing)
	c.Parts = appendPart(c.Parts, PartUnknownUsage, unknown)
}

// cellDrifts compares, in a cell the provider billed and whose tokens were
// priced, each amount billed with the tariff's cost of the tokens it bills:
// per rate set and usage type where the billing says which.
func (b *ThreeWayBuilder) cellDrifts(a *cellAcc, c *Cell) []Drift {
	if !a.hasBilling || !c.ProviderOfficial.Valid || c.Model == "" {
		return nil
	}
	parts := make([]*provPart, 0, len(a.parts))
	for _, p := range a.parts {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool {
		x, y := parts[i], parts[j]
		if x.version != y.version {
			return x.version < y.version
		}
		if x.period != y.period {
			return x.period < y.period
		}
		return x.mode < y.mode
	})
	newDrift := func(version, period, usage string) Drift {
		return Drift{Provider: c.Provider, Model: c.Model, Version: version, Period: period, Usage: usage,
			First: c.Day, Last: c.Day, Official: decimal.Zero, Billed: decimal.Zero}
	}
	var out, pooled []Drift
	var unbilled []*provPart
	for _, p := range parts {
		cost := costByUsage(p.rates, &p.qty)
		switch p.mode {
		case 1:
			for u := range tariffs.NumUsage {
				if p.billed[u].IsZero() && cost[u].IsZero() || u == int(tariffs.Reasoning) {
					continue
				}
				d := newDrift(p.version, p.period, tariffs.Usage(u).String())
				d.Tokens, d.Official, d.Billed = usageTokens(&p.qty, tariffs.Usage(u)), cost[u], p.billed[u]
				d.TariffPrice = decimal.NewNullDecimal(p.rates.Price(tariffs.Usage(u)))
				out = append(out, d)
			}
		case 2:
			d := newDrift(p.version, p.period, "")
			d.Tokens, d.Official, d.Billed = totalTokens(&p.qty), sumCosts(cost), p.total
			out = append(out, d)
		default:
			unbilled = append(unbilled, p)
		}
	}
	pooled = poolDrifts(a, unbilled, newDrift)
	return append(out, pooled...)
}

// poolDrifts matches cost rows that carry no tokens (OpenAI's and
// Anthropic's cost exports) with the usage rows of the same cell.
func poolDrifts(a *cellAcc, parts []*provPart, newDrift func(version, period, usage string) Drift) []Drift {
	split := false
	for _, set := range a.poolSet {
		split = split || set
	}
	var out []Drift
	if split || !a.poolTotalSet {
		for u := range tariffs.NumUsage {
			if u == int(tariffs.Reasoning) {
				continue
			}
			var versions, periods []string
			var tokens int64
			official := decimal.Zero
			var rates *tariffs.Rates
			n := 0
			for _, p := range parts {
				cost := costByUsage(p.rates, &p.qty)[u]
				if usageTokens(&p.qty, tariffs.Usage(u)) == 0 && cost.IsZero() {
					continue
				}
				versions, periods = appendNew(versions, p.version), appendNew(periods, p.period)
				tokens += usageTokens(&p.qty, tariffs.Usage(u))
				official = official.Add(cost)
				rates = p.rates
				n++
			}
			if !a.poolSet[u] && official.IsZero() {
				continue // neither billed nor priced
			}
			d := newDrift(strings.Join(versions, ", "), strings.Join(periods, ", "), tariffs.Usage(u).String())
			d.Tokens, d.Official, d.Billed = tokens, official, a.pool[u]
			if n == 1 {
				d.TariffPrice = decimal.NewNullDecimal(rates.Price(tariffs.Usage(u)))
			}
			out = append(out, d)
		}
	}
	if a.poolTotalSet {
		var versions, periods []string
		var tokens int64
		official := decimal.Zero
		for _, p := range parts {
			versions, periods = appendNew(versions, p.version), appendNew(periods, p.period)
			if !split {
				tokens += totalTokens(&p.qty)
				official = official.Add(sumCosts(costByUsage(p.rates, &p.qty)))
			}
		}
		d := newDrift(strings.Join(versions, ", "), strings.Join(periods, ", "), "")
		d.Tokens, d.Official, d.Billed = tokens, official, a.poolTotal
		out = append(out, d)
	}
	return out
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// usageTokens is the provider's count of usage u: output with reasoning.
func usageTokens(q *Quantities, u tariffs.Usage) int64 {
	if u == tariffs.Output {
		return q[tariffs.Output] + q[tariffs.Reasoning]
	}
	return q[u]
}

// totalTokens is every token of q, requests left out.
func totalTokens(q *Quantities) int64 {
	var n int64
	for u := range tariffs.Request {
		n += q[u]
	}
	return n
}

// totalsByProvider sums the cells of each provider; parts add up by kind.
func totalsByProvider(cells []Cell) []ProviderTotals {
	byName := map[string]*ProviderTotals{}
	var names []string
	for i := range cells {
		c := &cells[i]
		t := byName[c.Provider]
		if t == nil {
			t = &ProviderTotals{Provider: c.Provider, Recorded: decimal.Zero, Official: decimal.Zero,
				ProviderOfficial: decimal.Zero, Billed: decimal.Zero, HasBilled: c.HasBilled}
			byName[c.Provider] = t
			names = append(names, c.Provider)
		}
		if t.Currency == "" {
			t.Currency = c.Currency
		}
		t.Cells++
		t.GatewayCalls += c.GatewayCalls
		t.ProviderRequests += c.ProviderRequests
		t.HasRequests = t.HasRequests || c.HasRequests
		t.MissingCalls += c.MissingCalls
		t.UnknownCalls += c.UnknownCalls
		t.Recorded, t.Official, t.Billed = t.Recorded.Add(c.Recorded), t.Official.Add(c.Official), t.Billed.Add(c.Billed)
		if c.ProviderOfficial.Valid {
			t.ProviderOfficial = t.ProviderOfficial.Add(c.ProviderOfficial.Decimal)
		}
		t.Parts = mergeParts(t.Parts, c.Parts)
	}
	sort.Strings(names)
	out := make([]ProviderTotals, 0, len(names))
	for _, n := range names {
		t := byName[n]
		if t.HasBilled {
			t.Gap = decimal.NewNullDecimal(t.Billed.Sub(t.Recorded))
		}
		out = append(out, *t)
	}
	return out
}

// mergeParts adds parts into sums by kind, in the order of the kinds.
func mergeParts(sums, parts []Part) []Part {
	for _, p := range parts {
		i := sort.Search(len(sums), func(i int) bool { return sums[i].Kind >= p.Kind })
		if i < len(sums) && sums[i].Kind == p.Kind {
			sums[i].Amount = sums[i].Amount.Add(p.Amount)
			continue
		}
		sums = append(sums, Part{})
		copy(sums[i+1:], sums[i:])
		sums[i] = p
	}
	return sums
}

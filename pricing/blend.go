package pricing

import (
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// BlendPlaces is the number of decimal places of a blended price per 1M
// tokens (1e-15 per token), or per call for request prices. Blended prices
// are rounded half away from zero, so pricing a window's quantities at its
// blended prices gives its official cost to within half a unit of the last
// place: at most tokens × 5e-16 + calls × 5e-10 in the tariff's currency.
const BlendPlaces = 9

// BlendMode says how a blended price is worked out.
type BlendMode uint8

// Blend modes.
const (
	ModePerModel BlendMode = iota // each model's own cost over its own tokens
	ModeGateway                   // one gateway-wide peak share for every model
	numModes
)

var modeNames = [numModes]string{"per-model", "gateway"}

// String returns the mode's name as --mode spells it.
func (m BlendMode) String() string { return modeNames[m] }

// ParseBlendMode reads a mode as --mode spells it.
func ParseBlendMode(s string) (BlendMode, error) {
	for i, n := range modeNames {
		if n == s {
			return BlendMode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown blend mode %q (want %s or %s)", s, ModePerModel, ModeGateway)
}

// Blend is the blended price of each model and usage type over the window
// [From, Until).
type Blend struct {
	From, Until time.Time
	// TariffAt is the instant whose tariff priced every call of the window
	// (Options.TariffAt); zero when each call was priced at the version in
	// force at its own instant, the historical blend.
	TariffAt  time.Time
	Mode      BlendMode
	PeakShare decimal.NullDecimal // gateway mode: the peak share of the window's cost at off-peak prices
	Rows      Rows
	Models    []BlendModel
	// WithoutCalls is how many models without calls in the window
	// WithCalls left out of Models; zero when Models lists every model
	// the catalog prices.
	WithoutCalls int
}

// WithCalls returns the blend with only the models that had calls in the
// window, in the same order: those with blended prices, and those whose
// calls the blend left out (another service tier, a region). WithoutCalls
// counts the models dropped. The blend itself is left as it is.
func (b *Blend) WithCalls() *Blend {
	out := *b
	out.Models = []BlendModel{}
	for _, m := range b.Models {
		if m.hasCalls() {
			out.Models = append(out.Models, m)
		} else {
			out.WithoutCalls++
		}
	}
	return &out
}

// Rates returns the blend as per-1M rates (per use, for a tool) per
// tariff model, the prices a gateway's config takes: every usage type
// with a blended price but the price per request, which a config has no
// key for. Models the catalog does not know, or without prices, are left
// out.
func (b *Blend) Rates(cat *tariffs.Catalog) map[*tariffs.Model]*tariffs.Rates {
	out := map[*tariffs.Model]*tariffs.Rates{}
	for _, bm := range b.Models {
		m := cat.Model(bm.Model)
		if m == nil || len(bm.Prices) == 0 {
			continue
		}
		r := &tariffs.Rates{}
		for _, p := range bm.Prices {
			if p.Usage != tariffs.Request {
				r.Set(p.Usage, p.Blended)
			}
		}
		out[m] = r
	}
	return out
}

// Unblended returns, for each tariff model the blend lists without
// prices, why it has none (BlendModel.Why).
func (b *Blend) Unblended(cat *tariffs.Catalog) map[*tariffs.Model]string {
	out := map[*tariffs.Model]string{}
	for _, bm := range b.Models {
		if m := cat.Model(bm.Model); m != nil && len(bm.Prices) == 0 {
			out[m] = bm.Why()
		}
	}
	return out
}

// BlendModel is one model's blended prices. Reason says why a model has
// none; Official and AtBlended are zero then.
type BlendModel struct {
	Model    string
	Provider string
	Currency string
	Calls    int64
	Reason   string
	// Versions are the tariff versions that priced the model's calls, in
	// effective order: one with a tariff instant, the version in force
	// then (for a model with no calls too).
	Versions  []string
	Official  decimal.Decimal // official cost of the window (at TariffAt's tariff when set)
	AtBlended decimal.Decimal // the window's quantities at the blended prices
	Prices    []BlendPrice
	// LeftOut is what the blend does not hold: calls of a service tier
	// other than standard or of a region (a gateway prices them with its
	// own tier and region rates, not the model's one price), and
	// quantities the tariff does not price. Their cost is not in Official.
	LeftOut []BlendLeftOut
	// Retired is set for a model retired at the blend's tariff instant
	// whose calls in the window were counted as retired: no price, no
	// blend.
	Retired *BlendRetired
}

// BlendRetired says when a model retired and what became of its calls in
// the window: they are counted as retired (Rows.Retired), left unpriced
// and out of the blend.
type BlendRetired struct {
	At      time.Time // the effective instant of the version that retired it
	Version string    // that version
	Calls   int64     // the window's calls counted as retired
}

// hasCalls reports whether the model had calls in the window, blended,
// left out or retired.
func (m *BlendModel) hasCalls() bool { return m.Calls > 0 || len(m.LeftOut) > 0 || m.Retired != nil }

// Why says why the model has no blended price: its Reason, and for a
// retired model when it retired and what its calls are left as.
func (m *BlendModel) Why() string {
	if r := m.Retired; r != nil {
		return fmt.Sprintf("retired at %s by version %s: its %d call(s) in the window are counted as retired, unpriced and out of the blend",
			r.At.UTC().Format(time.RFC3339), r.Version, r.Calls)
	}
	return m.Reason
}

// BlendLeftOut is a part of a model's window the blend leaves out.
type BlendLeftOut struct {
	What     string // "service tier batch", "region us", or a usage type the tariff does not price
	Unit     string // "calls", "tokens" or "uses"
	Quantity int64
	Official decimal.Decimal // the official cost of those calls; zero for an unpriced quantity
}

// BlendPrice is the blended price of one usage type, per 1M tokens (per
// call for request), with the range it lies in and the token shares.
type BlendPrice struct {
	Usage     tariffs.Usage
	Tokens    int64
	PeakShare decimal.Decimal // share of the tokens billed in the most expensive period
	// ShareUsed is the peak share the blended price was worked out from:
	// in gateway mode the gateway-wide share, for a price that differs
	// between periods; not valid otherwise.
	ShareUsed decimal.NullDecimal
	OffPeak   decimal.Decimal // lowest price that applied in the window
	Peak      decimal.Decimal // highest price that applied in the window
	Blended   decimal.Decimal
	Official  decimal.Decimal // official cost of these tokens
}

// usageTally sums one model's usage type over the window.
type usageTally struct {
	qty       int64
	peakQty   int64
	cost      decimal.Decimal
	low, high decimal.Decimal
	seen      bool
}

// BlendWindow computes blended prices from an engine that priced the
// window [from, until). Every model the catalog prices at until is listed,
// those without calls with the reason; WithCalls keeps the others.
func (e *Engine) BlendWindow(from, until time.Time, mode BlendMode) *Blend {
	bl := &Blend{From: from.UTC(), Until: until.UTC(), Mode: mode, Rows: e.rows, Models: []BlendModel{}}
	if !e.opts.TariffAt.IsZero() {
		bl.TariffAt = e.opts.TariffAt.UTC()
	}
	tallies, calls, versions, left := e.usageTallies()
	share := decimal.Zero
	if mode == ModeGateway {
		share = e.gatewayPeakShare()
		bl.PeakShare = decimal.NewNullDecimal(share)
	}
	at := until
	if !e.opts.TariffAt.IsZero() {
		at = e.opts.TariffAt
	}
	retired := e.retiredCalls()
	for _, m := range e.cat.Models() {
		ut, ok := tallies[m]
		if !ok {
			if bm, listed := unblended(m, at, left[m], retired[m]); listed {
				bl.Models = append(bl.Models, bm)
			}
			continue
		}
		bm := blendModel(m, ut, calls[m], mode, share)
		bm.Versions = versions[m]
		bm.LeftOut = left[m]
		bl.Models = append(bl.Models, bm)
	}
	return bl
}

// unblended is the line of a model without priced calls in the window, at
// the tariff of instant at: priced then, with the reason it has no blended
// price; or retired then with retired calls in the window, saying when it
// retired. Other models are not listed.
func unblended(m *tariffs.Model, at time.Time, left []BlendLeftOut, retired int64) (BlendModel, bool) {
	q := m.At(at)
	bm := BlendModel{Model: m.ID, Provider: m.Provider.Name, Currency: m.Provider.Currency, Official: decimal.Zero, AtBlended: decimal.Zero, LeftOut: left}
	switch {
	case q.Status == tariffs.Priced:
		bm.Reason, bm.Versions = "no priced calls in the window", []string{q.Version.Name}
		if len(left) > 0 {
			bm.Reason = "no priced calls in the window at the standard tier without a region"
		}
	case q.Status == tariffs.Retired && retired > 0:
		v := m.RetiredAt(at)
		bm.Reason, bm.Versions = "retired at "+v.Effective.UTC().Format(time.RFC3339), []string{q.Version.Name}
		bm.Retired = &BlendRetired{At: v.Effective.UTC(), Version: v.Name, Calls: retired}
	default:
		return bm, false
	}
	return bm, true
}

// retiredCalls counts the window's calls of each model counted as
// retired.
func (e *Engine) retiredCalls() map[*tariffs.Model]int64 {
	out := map[*tariffs.Model]int64{}
	for _, b := range e.table.buckets.all() {
		if b.k.outcome == Retired && b.Model != nil {
			out[b.Model] += b.Calls
		}
	}
	return out
}

func blendModel(m *tariffs.Model, ut *[tariffs.NumUsage]usageTally, calls int64, mode BlendMode, share decimal.Decimal) BlendModel {
	bm := BlendModel{Model: m.ID, Provider: m.Provider.Name, Currency: m.Provider.Currency, Calls: calls}
	official, atBlended := decimal.Zero, decimal.Zero
	for u := range tariffs.NumUsage {
		t := &ut[u]
		if !t.seen || t.qty == 0 || t.high.IsZero() {
			continue
		}
		p := BlendPrice{Usage: tariffs.Usage(u), Tokens: t.qty, OffPeak: t.low, Peak: t.high,
			PeakShare: decimal.NewFromInt(t.peakQty).DivRound(decimal.NewFromInt(t.qty), RatioPlaces), Official: t.cost}
		if mode == ModeGateway && t.high.GreaterThan(t.low) {
			p.ShareUsed = decimal.NewNullDecimal(share)
		}
		p.Blended = blendedPrice(t, tariffs.Usage(u), mode, share)
		official = official.Add(t.cost)
		atBlended = atBlended.Add(costAt(p.Blended, tariffs.Usage(u), t.qty))
		bm.Prices = append(bm.Prices, p)
	}
	bm.Official, bm.AtBlended = official, atBlended
	return bm
}

// blendedPrice is official cost over quantity (per-model), or the off-peak
// price moved toward the peak price by the gateway-wide share; either way
// clamped into [low, high] against rounding.
func blendedPrice(t *usageTally, u tariffs.Usage, mode BlendMode, share decimal.Decimal) decimal.Decimal {
	var p decimal.Decimal
	if mode == ModeGateway {
		p = t.low.Add(t.high.Sub(t.low).Mul(share)).Round(BlendPlaces)
	} else {
		per := t.cost
		if u.IsToken() {
			per = per.Shift(6)
		}
		p = per.DivRound(decimal.NewFromInt(t.qty), BlendPlaces)
	}
	return decimal.Min(decimal.Max(p, t.low), t.high)
}

func costAt(price decimal.Decimal, u tariffs.Usage, n int64) decimal.Decimal {
	var r tariffs.Rates
	r.Set(u, price)
	return Cost(&r, u, n)
}

// usageTallies sums each priced model's quantities, costs and price
// range, lists the versions that priced its calls, and what the blend
// leaves out: calls of another service tier or of a region, quantities the
// tariff does not price.
func (e *Engine) usageTallies() (map[*tariffs.Model]*[tariffs.NumUsage]usageTally, map[*tariffs.Model]int64, map[*tariffs.Model][]string, map[*tariffs.Model][]BlendLeftOut) {
	out := map[*tariffs.Model]*[tariffs.NumUsage]usageTally{}
	calls := map[*tariffs.Model]int64{}
	used := map[*tariffs.Model][]*tariffs.Version{}
	left := map[*tariffs.Model][]BlendLeftOut{}
	leave := func(m *tariffs.Model, what, unit string, n int64, cost decimal.Decimal) {
		for i := range left[m] {
			if x := &left[m][i]; x.What == what {
				x.Quantity += n
				x.Official = x.Official.Add(cost)
				return
			}
		}
		left[m] = append(left[m], BlendLeftOut{What: what, Unit: unit, Quantity: n, Official: cost})
	}
	for _, b := range e.sortedBuckets() {
		if b.k.outcome != Priced {
			continue
		}
		if b.k.variant != 0 {
			what := "service tier " + b.k.serviceTier().String()
			if b.k.serviceTier() == tariffs.Standard {
				what = "region " + b.k.regionName()
			}
			leave(b.Model, what, "calls", b.Calls, b.Official())
			continue
		}
		ut := out[b.Model]
		if ut == nil {
			ut = &[tariffs.NumUsage]usageTally{}
			out[b.Model] = ut
		}
		calls[b.Model] += b.Calls
		if !slices.Contains(used[b.Model], b.k.version) {
			used[b.Model] = append(used[b.Model], b.k.version)
		}
		peak := peakPeriods(b)
		for u := range tariffs.NumUsage {
			// Reasoning the tariff does not price apart is output: blend it
			// with the output tokens, as a gateway's one output price must.
			into := u
			if tariffs.Usage(u) == tariffs.Reasoning && !b.Rates.Listed(tariffs.Reasoning) {
				into = int(tariffs.Output)
			}
			if !b.Rates.Priced(tariffs.Usage(u)) {
				if b.Qty[u] > 0 {
					leave(b.Model, tariffs.Usage(u).String(), unitOf(tariffs.Usage(u)), b.Qty[u], decimal.Zero)
				}
				continue
			}
			t := &ut[into]
			price := b.Rates.Price(tariffs.Usage(u))
			if !t.seen {
				t.low, t.high, t.cost, t.seen = price, price, decimal.Zero, true
			}
			t.low, t.high = decimal.Min(t.low, price), decimal.Max(t.high, price)
			t.qty += b.Qty[u]
			if peak[u] {
				t.peakQty += b.Qty[u]
			}
			t.cost = t.cost.Add(Cost(b.Rates, tariffs.Usage(u), b.Qty[u]))
		}
	}
	versions := map[*tariffs.Model][]string{}
	for m, vs := range used {
		slices.SortFunc(vs, func(a, b *tariffs.Version) int { return a.Effective.Compare(b.Effective) })
		for _, v := range vs {
			versions[m] = append(versions[m], v.Name)
		}
	}
	return out, calls, versions, left
}

// priceRange returns the cheapest and the dearest price of usage u over the
// periods of the bucket's version and tier, the bucket's own price included,
// and whether the bucket's period is the dearest and dearer than the
// cheapest.
func priceRange(b *bucket, u tariffs.Usage) (low, high decimal.Decimal, peak bool) {
	mp := b.prices
	if mp == nil {
		mp = b.k.version.Prices[b.Model]
	}
	own := b.Rates.Price(u)
	low, high = own, own
	for p := range b.k.version.Periods {
		x := mp.RatesAt(p, int(b.k.tier)).Price(u)
		low, high = decimal.Min(low, x), decimal.Max(high, x)
	}
	return low, high, own.Equal(high) && high.GreaterThan(low)
}

// peakPeriods reports, per usage type, whether the bucket's period is the
// most expensive period of its version and tier and dearer than the cheapest.
func peakPeriods(b *bucket) (peak [tariffs.NumUsage]bool) {
	for u := range tariffs.NumUsage {
		_, _, peak[u] = priceRange(b, tariffs.Usage(u))
	}
	return peak
}

// gatewayPeakShare is the share of peak in the window's cost at off-peak
// prices, over every time-of-use model: the seed practice's one number.
func (e *Engine) gatewayPeakShare() decimal.Decimal {
	peakCost, allCost := decimal.Zero, decimal.Zero
	for _, b := range e.sortedBuckets() {
		if b.k.outcome != Priced || len(b.k.version.Periods) < 2 {
			continue
		}
		for u := range tariffs.NumUsage {
			usage := tariffs.Usage(u)
			low, _, peak := priceRange(b, usage)
			var r tariffs.Rates
			r.Set(usage, low)
			c := Cost(&r, usage, b.Qty[u])
			allCost = allCost.Add(c)
			if peak {
				peakCost = peakCost.Add(c)
			}
		}
	}
	if allCost.IsZero() {
		return decimal.Zero
	}
	return peakCost.DivRound(allCost, RatioPlaces)
}

package threeway

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Drift is what the provider billed against the tariff's price of the
// provider's tokens, for one model, tariff version, period and usage type.
type Drift struct {
	Provider    string
	Model       string
	Version     string // the tariff version; several joined with ", " when the billing does not tell them apart
	Period      string
	Usage       BilledUsage // the usage type billed, or InTotal
	First, Last time.Time
	Tokens      int64 // the provider's tokens (requests for "request", uses for a tool)
	Official    decimal.Decimal
	Billed      decimal.Decimal
	Drift       decimal.Decimal     // Billed − Official
	TariffPrice decimal.NullDecimal // the tariff's price per 1M (per call for requests), when one applies
	BilledPrice decimal.NullDecimal // Billed per 1M tokens (per call or use), rounded to pricing.BlendPlaces; not valid without tokens
	Rounding    bool                // Billed equals Official to one part in a million: float noise of the export, not a wrong price
}

// BilledUsage is what an amount billed is for: one usage type of the
// tariff, or InTotal when the bill does not split the usage.
type BilledUsage uint8

// InTotal is the usage of an amount billed for a whole usage at once.
const InTotal = BilledUsage(tariffs.NumUsage)

// Billed returns the BilledUsage of usage type u.
func Billed(u tariffs.Usage) BilledUsage { return BilledUsage(u) }

// Usage returns the usage type billed; ok is false for InTotal.
func (b BilledUsage) Usage() (u tariffs.Usage, ok bool) {
	if b == InTotal {
		return 0, false
	}
	return tariffs.Usage(b), true
}

// String names the usage type billed (as tariffs.Usage does), or "in
// total".
func (b BilledUsage) String() string {
	if u, ok := b.Usage(); ok {
		return u.String()
	}
	return "in total"
}

// before orders billed usages: InTotal first, then usage types by name.
func (b BilledUsage) before(o BilledUsage) bool {
	switch {
	case b == o || o == InTotal:
		return false
	case b == InTotal:
		return true
	}
	return b.String() < o.String()
}

// roundingTolerance is the relative difference under which an amount
// billed and its official cost differ only by the noise of a binary float
// in the export.
var roundingTolerance = decimal.New(1, -6)

func closeTo(a, b decimal.Decimal) bool {
	scale := decimal.Max(a.Abs(), b.Abs())
	return a.Sub(b).Abs().LessThanOrEqual(scale.Mul(roundingTolerance))
}

type driftKey struct {
	provider, model, version, period string
	usage                            BilledUsage
}

// drifts adds up the drifts of cells by model, version, period and usage,
// in the order they are first seen.
type drifts struct {
	byKey map[driftKey]*Drift
	order []driftKey
}

func (s *drifts) add(d Drift) {
	k := driftKey{d.Provider, d.Model, d.Version, d.Period, d.Usage}
	if have := s.byKey[k]; have != nil {
		have.Tokens += d.Tokens
		have.Official, have.Billed = have.Official.Add(d.Official), have.Billed.Add(d.Billed)
		have.Last = d.Last
		return
	}
	if s.byKey == nil {
		s.byKey = map[driftKey]*Drift{}
	}
	s.byKey[k] = &d
	s.order = append(s.order, k)
}

// list finishes each drift (its amount, rounding and billed price) and
// sorts them by provider, model, first day, version, period and usage.
func (s *drifts) list() []Drift {
	out := make([]Drift, 0, len(s.order))
	for _, k := range s.order {
		d := s.byKey[k]
		d.Drift = d.Billed.Sub(d.Official)
		d.Rounding = !d.Drift.IsZero() && closeTo(d.Billed, d.Official)
		if d.Tokens > 0 {
			per := d.Billed
			if u, ok := d.Usage.Usage(); !ok || u.IsToken() {
				per = per.Shift(6) // per 1M tokens (a total counts tokens only); per call or use otherwise
			}
			d.BilledPrice = decimal.NewNullDecimal(per.DivRound(decimal.NewFromInt(d.Tokens), pricing.BlendPlaces))
		}
		out = append(out, *d)
	}
	sort.SliceStable(out, func(i, j int) bool { return driftLess(&out[i], &out[j]) })
	return out
}

func driftLess(a, b *Drift) bool {
	switch {
	case a.Provider != b.Provider:
		return a.Provider < b.Provider
	case a.Model != b.Model:
		return a.Model < b.Model
	case !a.First.Equal(b.First):
		return a.First.Before(b.First)
	case a.Version != b.Version:
		return a.Version < b.Version
	case a.Period != b.Period:
		return a.Period < b.Period
	}
	return a.Usage.before(b.Usage)
}

// cellDrifts compares, in a cell the provider billed and whose tokens were
// priced, each amount billed with the tariff's cost of the tokens it bills:
// per rate set and usage type where the billing says which.
func cellDrifts(a *cellAcc, c *Cell) []Drift {
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
		return x.billing < y.billing
	})
	newDrift := func(version, period string, usage BilledUsage) Drift {
		return Drift{Provider: c.Provider, Model: c.Model, Version: version, Period: period, Usage: usage,
			First: c.Day, Last: c.Day, Official: decimal.Zero, Billed: decimal.Zero}
	}
	var out []Drift
	var unbilled []*provPart
	for _, p := range parts {
		cost := costByUsage(p.rates, &p.qty)
		switch p.billing {
		case BilledByUsage:
			for u := range tariffs.NumUsage {
				if p.billed[u].IsZero() && cost[u].IsZero() || u == int(tariffs.Reasoning) {
					continue
				}
				d := newDrift(p.version, p.period, Billed(tariffs.Usage(u)))
				d.Tokens, d.Official, d.Billed = usageTokens(&p.qty, tariffs.Usage(u)), cost[u], p.billed[u]
				d.TariffPrice = decimal.NewNullDecimal(p.rates.Price(tariffs.Usage(u)))
				out = append(out, d)
			}
		case BilledInTotal:
			d := newDrift(p.version, p.period, InTotal)
			d.Tokens, d.Official, d.Billed = totalTokens(&p.qty), sumCosts(cost), p.total
			out = append(out, d)
		default:
			unbilled = append(unbilled, p)
		}
	}
	return append(out, poolDrifts(a, unbilled, newDrift)...)
}

// driftMaker starts a drift of a cell for a version, period and usage.
type driftMaker func(version, period string, usage BilledUsage) Drift

// poolDrifts matches billing rows that carry no usage (OpenAI's and
// Anthropic's cost exports) with the usage rows of the same cell: by usage
// type, then what was billed in total.
func poolDrifts(a *cellAcc, parts []*provPart, newDrift driftMaker) []Drift {
	split := slices.Contains(a.poolSet[:], true)
	var out []Drift
	if split || !a.poolTotalSet {
		out = poolByUsage(a, parts, newDrift)
	}
	if a.poolTotalSet {
		out = append(out, poolTotal(a, parts, split, newDrift))
	}
	return out
}

// poolByUsage compares each usage type's pooled billing with the tariff's
// cost of the cell's usage of it, where either is non-zero.
func poolByUsage(a *cellAcc, parts []*provPart, newDrift driftMaker) []Drift {
	var out []Drift
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
		d := newDrift(strings.Join(versions, ", "), strings.Join(periods, ", "), Billed(tariffs.Usage(u)))
		d.Tokens, d.Official, d.Billed = tokens, official, a.pool[u]
		if n == 1 {
			d.TariffPrice = decimal.NewNullDecimal(rates.Price(tariffs.Usage(u)))
		}
		out = append(out, d)
	}
	return out
}

// poolTotal compares the pooled billing in total with the tariff's cost
// of the cell's whole usage; when the pool is also split by usage type,
// those parts have taken the usage, and the total stands on its own.
func poolTotal(a *cellAcc, parts []*provPart, split bool, newDrift driftMaker) Drift {
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
	d := newDrift(strings.Join(versions, ", "), strings.Join(periods, ", "), InTotal)
	d.Tokens, d.Official, d.Billed = tokens, official, a.poolTotal
	return d
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

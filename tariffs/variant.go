package tariffs

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// tools reads the version's tool fees and lays them into every rate set of
// each model: every period and prompt-size tier (service tiers and regions
// get them when they are derived). A fee is stored per use: price / per,
// where per is a power of ten, so the division is exact.
func (c *converter) tools(v *Version, r *rawVersion) {
	seen := map[*Model]bool{}
	for _, e := range r.Tools {
		m := c.models[e.Model.Value]
		if m == nil || v.Prices[m] == nil {
			c.errorf(e.Model.Line, "version %s: tools for model %q, which this version does not price", v.Name, e.Model.Value)
			continue
		}
		if seen[m] {
			c.errorf(e.Model.Line, "version %s: tools of model %q are listed twice", v.Name, m.ID)
			continue
		}
		seen[m] = true
		var fees Rates
		for _, f := range e.Fees {
			if d, ok := c.toolFee(v, m, f); ok {
				u, _ := parseTool(f.Tool.Value)
				fees.Set(u, d)
			}
		}
		addTools(v.Prices[m], &fees)
	}
}

// toolFee reads one tool's fee per use.
func (c *converter) toolFee(v *Version, m *Model, f rawToolPrice) (decimal.Decimal, bool) {
	if _, err := parseTool(f.Tool.Value); err != nil {
		c.errorf(f.Tool.Line, "version %s: tools of %q: %v", v.Name, m.ID, err)
		return decimal.Zero, false
	}
	what := m.ID + " " + f.Tool.Value
	if !c.required(f.Price, f.Line, "version "+v.Name+": "+what+" price") || !c.required(f.Per, f.Line, "version "+v.Name+": "+what+" per (the number of uses the price is for, e.g. 1000)") {
		return decimal.Zero, false
	}
	per, err := strconv.ParseInt(f.Per.Value, 10, 64)
	places := powerOfTen(per)
	if err != nil || places < 0 {
		c.errorf(f.Per.Line, "version %s: %s per %q is not 1, 10, 100, 1000 or another power of ten", v.Name, what, f.Per.Value)
		return decimal.Zero, false
	}
	d, ok := c.decimal(f.Price, what+" price")
	return d.Shift(-int32(places)), ok
}

// powerOfTen returns k when n is 10^k, else -1.
func powerOfTen(n int64) int {
	k := 0
	for ; n > 1 && n%10 == 0; n /= 10 {
		k++
	}
	if n != 1 {
		return -1
	}
	return k
}

// addTools lays the tool fees of t into every rate set of mp.
func addTools(mp *ModelPrices, t *Rates) {
	for i := range mp.Periods {
		mp.Periods[i] = mp.Periods[i].withTools(t)
	}
	for _, tier := range mp.Tiers {
		for i := range tier.Periods {
			tier.Periods[i] = tier.Periods[i].withTools(t)
		}
	}
}

// toolsOf returns the tool fees of mp (the same in each of its rate sets).
func toolsOf(mp *ModelPrices) *Rates {
	var t Rates
	if len(mp.Periods) > 0 {
		t = mp.Periods[0]
	}
	return &t
}

// scaledPrices returns a copy of mp whose token prices are multiplied by m.
func scaledPrices(mp *ModelPrices, m decimal.Decimal) *ModelPrices {
	out := &ModelPrices{Periods: make([]Rates, len(mp.Periods))}
	for i := range mp.Periods {
		out.Periods[i] = mp.Periods[i].scaled(m)
	}
	for _, t := range mp.Tiers {
		nt := Tier{Above: t.Above, Periods: make([]Rates, len(t.Periods))}
		for i := range t.Periods {
			nt.Periods[i] = t.Periods[i].scaled(m)
		}
		out.Tiers = append(out.Tiers, nt)
	}
	return out
}

// variants reads the version's service tiers and regions, and lays out each
// model's variants: every service tier it has rates in, each alone and in
// each region that applies to the model, and each region alone.
func (c *converter) variants(v *Version, r *rawVersion) {
	service := map[*Model][NumServiceTiers]*ModelPrices{}
	seenTier := map[ServiceTier]bool{}
	for _, raw := range r.ServiceTiers {
		s, err := ParseServiceTier(raw.Name.Value)
		if err == nil && s == Standard {
			c.errorf(raw.Name.Line, "version %s: service tier standard is the version's own prices: list only the others (batch, flex, priority)", v.Name)
			continue
		}
		if err != nil {
			c.errorf(raw.Name.Line, "version %s: %v", v.Name, err)
			continue
		}
		if seenTier[s] {
			continue // reported by the decoder as a repeated key
		}
		seenTier[s] = true
		rule := c.serviceTier(v, s, raw, service)
		v.ServiceTiers = append(v.ServiceTiers, rule)
	}
	regions := map[*Model]map[string]decimal.Decimal{}
	for _, raw := range r.Regions {
		if !validRegion(raw.Name.Value) {
			c.errorf(raw.Name.Line, "version %s: region %q is not a lowercase name of letters, digits, - and _ (e.g. us, eu)", v.Name, raw.Name.Value)
			continue
		}
		if len(raw.Prices) > 0 || len(raw.Tiers) > 0 {
			c.errorf(raw.Line, "version %s: region %s: a region has a multiplier only, not prices or tiers", v.Name, raw.Name.Value)
		}
		rule := VariantRule{Name: raw.Name.Value, Note: raw.Note.Value}
		mult, ok := c.multiplier(v, "region "+raw.Name.Value, raw, true)
		if !ok {
			continue
		}
		rule.Multiplier = mult
		rule.Models = c.ruleModels(v, "region "+raw.Name.Value, raw.Models, nil)
		for _, m := range scope(v, rule.Models, nil) {
			if regions[m] == nil {
				regions[m] = map[string]decimal.Decimal{}
			}
			regions[m][rule.Name] = mult
		}
		v.Regions = append(v.Regions, rule)
	}
	for _, m := range c.modelOrder(v) {
		c.layVariants(v.Prices[m], service[m], regions[m], v.Regions)
	}
}

// modelOrder returns the models the version prices, in file order.
func (c *converter) modelOrder(v *Version) []*Model {
	var out []*Model
	for _, m := range c.order {
		if v.Prices[m] != nil {
			out = append(out, m)
		}
	}
	return out
}

// layVariants sets mp.Variants from the rates of each service tier (nil
// where the model has none) and the multiplier of each region that applies
// to it, regions in file order.
func (c *converter) layVariants(mp *ModelPrices, service [NumServiceTiers]*ModelPrices, regions map[string]decimal.Decimal, rules []VariantRule) {
	mp.Variants = nil
	for s, sp := range service {
		if sp != nil {
			mp.Variants = append(mp.Variants, Variant{Service: ServiceTier(s), Prices: sp, Multiplier: sp.factor})
		}
	}
	for _, rule := range rules {
		mult, ok := regions[rule.Name]
		if !ok {
			continue
		}
		mp.Variants = append(mp.Variants, Variant{Service: Standard, Region: rule.Name, Multiplier: mult, Prices: scaledPrices(mp, mult)})
		for s, sp := range service {
			if sp != nil {
				// Rates of its own (factor zero) stay zero: no multiplier derived them.
				mp.Variants = append(mp.Variants, Variant{Service: ServiceTier(s), Region: rule.Name, Multiplier: sp.factor.Mul(mult), Prices: scaledPrices(sp, mult)})
			}
		}
	}
}

// serviceTier reads one service tier: its own rates for some models, a
// multiplier of the standard token prices for others; service[m][s] gets
// the model's rates in the tier.
func (c *converter) serviceTier(v *Version, s ServiceTier, raw rawVariant, service map[*Model][NumServiceTiers]*ModelPrices) VariantRule {
	what := "service tier " + s.String()
	rule := VariantRule{Name: s.String(), Note: raw.Note.Value}
	own := map[*Model]*ModelPrices{}
	for _, e := range raw.Prices {
		m := c.models[e.Model.Value]
		switch {
		case m == nil || v.Prices[m] == nil:
			c.errorf(e.Model.Line, "version %s: %s: prices for model %q, which this version does not price", v.Name, what, e.Model.Value)
			continue
		case own[m] != nil:
			c.errorf(e.Model.Line, "version %s: %s: model %q is priced twice", v.Name, what, m.ID)
			continue
		}
		own[m] = &ModelPrices{Periods: c.periodRates(v, m.ID, e.Model.Line, e.Rates)}
		rule.Priced = append(rule.Priced, m)
	}
	c.tiers(v, own, raw.Tiers, what)
	for m, mp := range own {
		addTools(mp, toolsOf(v.Prices[m]))
		sp := service[m]
		sp[s] = mp
		service[m] = sp
	}
	if !raw.Multiplier.Set {
		if len(raw.Prices) == 0 && !raw.Multiplier.bad && !c.refused[raw.Line] {
			c.errorf(raw.Line, "version %s: %s needs a multiplier or prices", v.Name, what)
		}
		if len(raw.Models) > 0 {
			c.errorf(raw.Models[0].Line, "version %s: %s: models name the models of a multiplier, and there is none", v.Name, what)
		}
		return rule
	}
	mult, ok := c.multiplier(v, what, raw, false)
	if !ok {
		return rule
	}
	rule.Multiplier = mult
	rule.Models = c.ruleModels(v, what, raw.Models, own)
	for _, m := range scope(v, rule.Models, own) {
		mp := scaledPrices(v.Prices[m], mult)
		mp.factor = mult
		sp := service[m]
		sp[s] = mp
		service[m] = sp
	}
	return rule
}

// multiplier reads a rule's multiplier: a positive decimal.
func (c *converter) multiplier(v *Version, what string, raw rawVariant, required bool) (decimal.Decimal, bool) {
	if raw.Multiplier.bad {
		return decimal.Zero, false
	}
	if !raw.Multiplier.Set {
		if required && !c.refused[raw.Line] {
			c.errorf(raw.Line, "version %s: %s: multiplier is required", v.Name, what)
		}
		return decimal.Zero, false
	}
	d, ok := c.decimal(raw.Multiplier, "version "+v.Name+": "+what+" multiplier")
	if ok && d.IsZero() {
		c.errorf(raw.Multiplier.Line, "version %s: %s: multiplier is zero (a free tier? write prices of zero instead)", v.Name, what)
		return decimal.Zero, false
	}
	return d, ok
}

// ruleModels reads the models a multiplier applies to: each must be priced
// by the version, and not have rates of its own in the rule (own).
func (c *converter) ruleModels(v *Version, what string, names []scalar, own map[*Model]*ModelPrices) []*Model {
	var out []*Model
	for _, n := range names {
		m := c.models[n.Value]
		switch {
		case m == nil || v.Prices[m] == nil:
			c.errorf(n.Line, "version %s: %s: model %q, which this version does not price", v.Name, what, n.Value)
		case own[m] != nil:
			c.errorf(n.Line, "version %s: %s: model %q has prices of its own here and is also in models", v.Name, what, m.ID)
		default:
			out = append(out, m)
		}
	}
	return out
}

// scope returns the models a multiplier applies to: models, or when nil
// every model the version prices that has no rates of its own (own).
func scope(v *Version, models []*Model, own map[*Model]*ModelPrices) []*Model {
	if models != nil {
		return models
	}
	var out []*Model
	for m := range v.Prices {
		if own[m] == nil {
			out = append(out, m)
		}
	}
	return out
}

// validRegion reports whether s is a region name: lowercase letters,
// digits, - and _, not empty.
func validRegion(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return s != ""
}

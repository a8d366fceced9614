package pricing

import (
	"sort"

	"github.com/tokenfare/tokenfare/tariffs"
)

// PromotionGap counts the priced calls of one model billed after the end
// of the promotion whose rates priced them: the version in force is a
// promotion the provider no longer promises, and the price since is not in
// the catalog. Their cost is the one reported; the provider's bill may
// differ.
type PromotionGap struct {
	Model       *tariffs.Model
	Version     *tariffs.Version
	Calls       int64
	First, Last tariffs.Date // local days, on the version's clock
}

// promoKey is a model and the promotional version that priced its calls.
type promoKey struct {
	model   *tariffs.Model
	version *tariffs.Version
}

// notePromotion counts n priced calls sharing pc's quote, when that quote
// is a promotion past its stated end.
func (e *Engine) notePromotion(pc *PricedCall, n int64) {
	if !pc.Quote.PromotionEnded || pc.Outcome != Priced {
		return
	}
	k := promoKey{pc.Quote.Model, pc.Quote.Version}
	d := tariffs.DateOf(pc.At.In(k.version.Zone).Date())
	g := e.promo[k]
	if g == nil {
		g = &PromotionGap{Model: k.model, Version: k.version, First: d, Last: d}
		e.promo[k] = g
	}
	g.Calls += n
	g.First, g.Last = min(g.First, d), max(g.Last, d)
}

// PromotionGaps returns the calls priced at a promotion past its end, by
// model and version, in order of provider, model and version.
func (e *Engine) PromotionGaps() []PromotionGap {
	out := make([]PromotionGap, 0, len(e.promo))
	for _, g := range e.promo {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		switch {
		case a.Model.Provider.Name != b.Model.Provider.Name:
			return a.Model.Provider.Name < b.Model.Provider.Name
		case a.Model.ID != b.Model.ID:
			return a.Model.ID < b.Model.ID
		}
		return a.Version.Effective.Before(b.Version.Effective)
	})
	return out
}

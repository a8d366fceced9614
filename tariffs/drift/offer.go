package drift

import (
	"errors"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
)

// ErrTimeOfUse is why an entry has no flat prices: what it charges
// depends on the time of day (LiteLLM's off_peak_pricing block, a
// genai-prices time-of-day constraint).
var ErrTimeOfUse = errors.New("its prices depend on the time of day")

// Offer is what an entry charges at an instant, as a tariff file states
// it: base rates, rates for prompts above a size, and the rates of other
// service tiers. Every rate set lists only what the table lists.
type Offer struct {
	Base  tariffs.Rates
	Tiers []OfferTier // ascending by Above
	// Service holds the rates of the batch, flex and priority tiers the
	// table lists, by tier; nil where it lists none (Standard is unused).
	Service [tariffs.NumServiceTiers]*Offer
}

// OfferTier is the rates for calls whose prompt has more than Above tokens.
type OfferTier struct {
	Above int64
	Rates tariffs.Rates
}

// Priced reports whether the entry states any price per token or per call.
func (e *Entry) Priced() bool { return e.priced() }

// PerToken reports whether the entry is priced per token like a chat
// model: LiteLLM's chat, completion and responses modes, or no mode.
func (e *Entry) PerToken() bool { return chatModes[e.Mode] }

// OfferAt returns the prices the entry states in force at t: for
// genai-prices, the last conditional price whose start date t has
// reached. It fails with ErrTimeOfUse when the entry's prices depend on
// the time of day.
func (e *Entry) OfferAt(t time.Time) (Offer, error) {
	if e.offPeak != nil {
		return Offer{}, ErrTimeOfUse
	}
	for i := range e.prices {
		if e.prices[i].daily != nil {
			return Offer{}, ErrTimeOfUse
		}
	}
	return e.choose(t).rates.offer(), nil
}

// offer converts r and its service tiers.
func (r *rates) offer() Offer {
	o := Offer{Base: r.base}
	for _, t := range r.tiers {
		o.Tiers = append(o.Tiers, OfferTier{Above: t.above, Rates: t.rates})
	}
	for s, sr := range r.service {
		if sr != nil {
			so := sr.offer()
			o.Service[s] = &so
		}
	}
	return o
}

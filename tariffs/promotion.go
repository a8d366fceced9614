package tariffs

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// FurtherNotice is how a tariff file writes a promotion with no stated end.
const FurtherNotice = "further-notice"

// Promotion says that a version's prices are a promotion: lower rates the
// provider offers for a time. A promotion either states its last day or runs
// until further notice.
type Promotion struct {
	// LastDay is the last day the provider says the promotion runs,
	// inclusive, on the version's local calendar; 0 when it runs until
	// further notice.
	LastDay Date
	// Until is the instant the promotion's last day ends in the version's
	// zone; zero when it runs until further notice.
	Until time.Time
	Note  string
	// Models are the models whose prices are promotional; nil when every
	// model the version prices is.
	Models map[*Model]bool
}

// Covers reports whether m's prices in the version are promotional.
func (p *Promotion) Covers(m *Model) bool { return p.Models == nil || p.Models[m] }

// PromotionOf returns the promotion of m's prices in v, or nil.
func (v *Version) PromotionOf(m *Model) *Promotion {
	if v.Promotion == nil || !v.Promotion.Covers(m) {
		return nil
	}
	return v.Promotion
}

// Open reports whether the promotion states no end.
func (p *Promotion) Open() bool { return p.Until.IsZero() }

// EndedBy reports whether the promotion's stated end has passed at t. A
// promotion until further notice never ends by its own terms.
func (p *Promotion) EndedBy(t time.Time) bool {
	return !p.Open() && !t.Before(p.Until)
}

// String describes the promotion as reports show it: "promotion through
// 2026-11-21" or "promotion until further notice".
func (p *Promotion) String() string {
	if p.Open() {
		return "promotion until further notice"
	}
	return "promotion through " + p.LastDay.String()
}

// promotion reads a version's promotion, if the file marks one.
func (c *converter) promotion(v *Version, r *rawPromo) {
	if r == nil {
		return
	}
	v.Promotion = &Promotion{Note: r.Note.Value}
	if len(r.Models) > 0 {
		v.Promotion.Models = map[*Model]bool{}
	}
	for _, s := range r.Models {
		if m := c.models[s.Value]; m != nil {
			v.Promotion.Models[m] = true
		} else {
			c.errorf(s.Line, "version %s: promotion names model %q, which is not defined under models", v.Name, s.Value)
		}
	}
	if !c.required(r.Until, v.Line, "promotion until (a date, or "+FurtherNotice+")") || r.Until.Value == FurtherNotice {
		return
	}
	d, err := ParseDate(r.Until.Value)
	if err != nil {
		c.errorf(r.Until.Line, "version %s: promotion until: %v (or %s)", v.Name, err, FurtherNotice)
		return
	}
	v.Promotion.LastDay = d
	v.Promotion.Until = d.Midnight(v.Zone).AddDate(0, 0, 1)
	if !v.Effective.IsZero() && !v.Promotion.Until.After(v.Effective) {
		c.errorf(r.Until.Line, "version %s: promotion ends on %s, before the version takes effect", v.Name, d)
	}
}

// PromotionsEnded returns a warning for each version in force at now whose
// promotion's stated end has passed: its prices rest on terms the provider
// no longer promises, and the version that follows the promotion is missing.
func (c *Catalog) PromotionsEnded(now time.Time) Problems {
	var out Problems
	for _, p := range c.Providers {
		for _, v := range p.Versions {
			if !v.inForce(now) || v.Promotion == nil || !v.Promotion.EndedBy(now) {
				continue
			}
			out = append(out, Problem{File: p.File, Line: v.Line, Warning: true, Msg: fmt.Sprintf(
				"version %s: its %s%s, which has passed: add the version in force since (the price after the promotion, or its extension)",
				v.Name, v.Promotion, v.Promotion.of())})
		}
	}
	return out
}

// inForce reports whether the version prices calls billed at t.
func (v *Version) inForce(t time.Time) bool {
	return !t.Before(v.Effective) && (v.End.IsZero() || t.Before(v.End))
}

// of names the promotion's models for messages: " (of gpt-5.6-sol)", or
// "" when it covers every model.
func (p *Promotion) of() string {
	if p.Models == nil {
		return ""
	}
	var ids []string
	for m := range p.Models {
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	return " (of " + strings.Join(ids, ", ") + ")"
}

package tariffs

import (
	"sort"
	"time"
)

// Upcoming is a provider's version that takes effect after some instant,
// with the models it prices, retires or stops pricing (the models whose
// quote it changes are not told apart: any version may change any price).
type Upcoming struct {
	Provider *Provider
	Version  *Version
	Models   []*Model // the provider's models the version prices or retires, in file order
}

// Next returns, for each provider, the first version taking effect after
// after and no later than until (inclusive; the zero until is no bound),
// ordered by effective instant, then provider name. A version takes effect
// at its Effective instant, inclusive, so a version effective at after
// itself is already in force and is not listed.
func (c *Catalog) Next(after, until time.Time) []Upcoming {
	var out []Upcoming
	for _, p := range c.Providers {
		for _, v := range p.Versions {
			if !v.Effective.After(after) {
				continue
			}
			if !until.IsZero() && v.Effective.After(until) {
				break
			}
			out = append(out, Upcoming{Provider: p, Version: v, Models: modelsOf(p, v)})
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Version.Effective, out[j].Version.Effective
		if !a.Equal(b) {
			return a.Before(b)
		}
		return out[i].Provider.Name < out[j].Provider.Name
	})
	return out
}

// modelsOf returns the models of p that version v prices or retires.
func modelsOf(p *Provider, v *Version) []*Model {
	var out []*Model
	for _, m := range p.Models {
		if v.Prices[m] != nil || v.Retired[m] {
			out = append(out, m)
		}
	}
	return out
}

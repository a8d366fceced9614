package tariffs

import (
	"errors"
	"fmt"

	"gopkg.in/yaml.v3"
)

// The file format is decoded into these unexported types; conversion and
// validation turn them into the domain types. Every leaf is a scalar that
// keeps its text and line, so prices never pass through float64 and every
// problem can name its line.

type scalar struct {
	Value string
	Line  int
	Set   bool
	bad   bool // a list or mapping stood where a value belongs (already reported)
}

func (s *scalar) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		*s = scalar{Line: n.Line, Set: true, bad: true}
		given := "a list"
		if n.Kind == yaml.MappingNode {
			given = "a mapping"
		}
		return lineError(n.Line, "expected a single value, not "+given)
	}
	*s = scalar{Value: n.Value, Line: n.Line, Set: true}
	return nil
}

type rawFile struct {
	Provider    scalar          `yaml:"provider"`
	DisplayName scalar          `yaml:"display_name"`
	ServiceName scalar          `yaml:"service_name"`
	Hosts       *[]scalar       `yaml:"hosts"`
	Currency    scalar          `yaml:"currency"`
	Timezone    scalar          `yaml:"timezone"`
	BillingTime scalar          `yaml:"billing_time"`
	Sources     []rawSource     `yaml:"sources"`
	FailedCalls *rawFailedCalls `yaml:"failed_calls"`
	Models      []rawModel      `yaml:"models"`
	Calendar    *rawCalendar    `yaml:"calendar"`
	Versions    []rawVersion    `yaml:"versions"`
}

type rawSource struct {
	URL     scalar `yaml:"url"`
	Kind    scalar `yaml:"kind"`
	Checked scalar `yaml:"checked"`
	Note    scalar `yaml:"note"`
}

type rawModel struct {
	ID       scalar   `yaml:"id"`
	Names    []scalar `yaml:"names"`
	Note     scalar   `yaml:"note"`
	Replaces scalar   `yaml:"replaces"`
}

type rawCalendar struct {
	HolidaysAs  scalar   `yaml:"holidays_as"`
	WorkdaysAs  scalar   `yaml:"workdays_as"`
	Provisional []scalar `yaml:"provisional"`
	Holidays    []rawDay `yaml:"holidays"`
	Workdays    []rawDay `yaml:"workdays"`
}

type rawDay struct {
	Date   scalar `yaml:"date"`
	Name   scalar `yaml:"name"`
	Source scalar `yaml:"source"`
}

type rawVersion struct {
	Effective     scalar      `yaml:"effective"`
	Name          scalar      `yaml:"name"`
	Note          scalar      `yaml:"note"`
	Source        scalar      `yaml:"source"`
	Sources       []scalar    `yaml:"sources"`
	Promotion     *rawPromo   `yaml:"promotion"`
	Unreadable    scalar      `yaml:"official_unreadable"`
	Timezone      scalar      `yaml:"timezone"`
	DefaultPeriod scalar      `yaml:"default_period"`
	Periods       []rawPeriod `yaml:"periods"`
	Prices        rawPrices   `yaml:"prices"`
	Tiers         rawTiers    `yaml:"tiers"`
	Tools         rawTools    `yaml:"tools"`
	ServiceTiers  rawModifier `yaml:"service_tiers"`
	Regions       rawModifier `yaml:"regions"`
	Retire        []scalar    `yaml:"retire"`
}

// rawPromo marks a version's prices as a promotion: the last day it runs
// (inclusive, a date) or "further-notice", and what the provider says of it.
type rawPromo struct {
	Until  scalar   `yaml:"until"`
	Note   scalar   `yaml:"note"`
	Models []scalar `yaml:"models"`
}

type rawPeriod struct {
	Name     scalar   `yaml:"name"`
	Weekdays []scalar `yaml:"weekdays"`
	Windows  []scalar `yaml:"windows"`
}

// rawRates is a rate set; its keys are checked by hand because it is
// reached through mappings with free keys (model and period names).
type rawRates struct {
	Line  int
	Price [NumUsage]scalar
}

func (r *rawRates) UnmarshalYAML(n *yaml.Node) error {
	r.Line = n.Line
	return eachPair(n, func(k, v *yaml.Node) error {
		u, err := parseRateUsage(k.Value)
		if err != nil {
			return lineError(k.Line, err.Error())
		}
		return v.Decode(&r.Price[u])
	})
}

// rawPeriodRates maps period names to rate sets, in file order.
type rawPeriodRates struct {
	Line    int
	Periods []scalar
	Rates   []rawRates
}

func (p *rawPeriodRates) UnmarshalYAML(n *yaml.Node) error {
	p.Line = n.Line
	return eachPair(n, func(k, v *yaml.Node) error {
		r := rawRates{Line: v.Line} // kept when the value is null
		err := v.Decode(&r)         // what was read is kept: the rest is still checked
		p.Periods = append(p.Periods, scalar{Value: k.Value, Line: k.Line, Set: true})
		p.Rates = append(p.Rates, r)
		return err
	})
}

// rawPrices maps model ids to their period rates, in file order.
type rawPrices []struct {
	Model scalar
	Rates rawPeriodRates
}

func (p *rawPrices) UnmarshalYAML(n *yaml.Node) error {
	return eachPair(n, func(k, v *yaml.Node) error {
		r := rawPeriodRates{Line: v.Line} // kept when the value is null
		err := v.Decode(&r)
		*p = append(*p, struct {
			Model scalar
			Rates rawPeriodRates
		}{scalar{Value: k.Value, Line: k.Line, Set: true}, r})
		return err
	})
}

type rawTier struct {
	Above  scalar
	Prices rawPeriodRates
	Line   int
}

func (t *rawTier) UnmarshalYAML(n *yaml.Node) error {
	t.Line = n.Line
	return eachPair(n, func(k, v *yaml.Node) error {
		switch k.Value {
		case "above":
			return v.Decode(&t.Above)
		case "prices":
			return v.Decode(&t.Prices)
		}
		return lineError(k.Line, fmt.Sprintf("unknown key %q (want above or prices)", k.Value))
	})
}

// rawTiers maps model ids to their tiers, in file order.
type rawTiers []struct {
	Model scalar
	Tiers []rawTier
}

func (p *rawTiers) UnmarshalYAML(n *yaml.Node) error {
	return eachPair(n, func(k, v *yaml.Node) error {
		var ts []rawTier
		err := v.Decode(&ts)
		*p = append(*p, struct {
			Model scalar
			Tiers []rawTier
		}{scalar{Value: k.Value, Line: k.Line, Set: true}, ts})
		return err
	})
}

// rawToolPrice is the fee of one tool: price per `per` uses.
type rawToolPrice struct {
	Tool  scalar
	Price scalar
	Per   scalar
	Line  int
}

// rawTools maps model ids to the fees of their tools, in file order.
type rawTools []struct {
	Model scalar
	Line  int
	Fees  []rawToolPrice
}

func (p *rawTools) UnmarshalYAML(n *yaml.Node) error {
	return eachPair(n, func(k, v *yaml.Node) error {
		var fees []rawToolPrice
		err := eachPair(v, func(tk, tv *yaml.Node) error {
			f := rawToolPrice{Tool: scalar{Value: tk.Value, Line: tk.Line, Set: true}, Line: tv.Line}
			err := eachPair(tv, func(fk, fv *yaml.Node) error {
				switch fk.Value {
				case "price":
					return fv.Decode(&f.Price)
				case "per":
					return fv.Decode(&f.Per)
				}
				return lineError(fk.Line, fmt.Sprintf("unknown key %q (want price or per)", fk.Value))
			})
			fees = append(fees, f)
			return err
		})
		*p = append(*p, struct {
			Model scalar
			Line  int
			Fees  []rawToolPrice
		}{scalar{Value: k.Value, Line: k.Line, Set: true}, v.Line, fees})
		return err
	})
}

// rawVariant is one service tier or one region of a version: a multiplier
// of the token prices of some models (all the version prices when models
// is absent) and, for service tiers, rates of their own for others.
type rawVariant struct {
	Name       scalar
	Multiplier scalar
	Models     []scalar
	Prices     rawPrices
	Tiers      rawTiers
	Note       scalar
	Line       int
}

// rawModifier maps service tier or region names to their rules, in file
// order. Which keys a rule may have is checked on conversion.
type rawModifier []rawVariant

func (p *rawModifier) UnmarshalYAML(n *yaml.Node) error {
	return eachPair(n, func(k, v *yaml.Node) error {
		r := rawVariant{Name: scalar{Value: k.Value, Line: k.Line, Set: true}, Line: v.Line}
		err := eachPair(v, func(fk, fv *yaml.Node) error {
			switch fk.Value {
			case "multiplier":
				return fv.Decode(&r.Multiplier)
			case "models":
				return fv.Decode(&r.Models)
			case "prices":
				r.Prices = rawPrices{}
				return fv.Decode(&r.Prices)
			case "tiers":
				return fv.Decode(&r.Tiers)
			case "note":
				return fv.Decode(&r.Note)
			}
			return lineError(fk.Line, fmt.Sprintf("unknown key %q (want multiplier, models, prices, tiers or note)", fk.Value))
		})
		*p = append(*p, r)
		return err
	})
}

// eachPair calls fn for each key and value of mapping n. A repeated key is
// an error: the decoder catches those only for fixed sets of keys. A pair
// fn refuses with a *yaml.TypeError does not stop the others, so that one
// pass reports every problem.
func eachPair(n *yaml.Node, fn func(k, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		given := "a list"
		if n.Kind == yaml.ScalarNode {
			given = "`" + n.Value + "`"
		}
		return lineError(n.Line, "expected a mapping of keys to values, not "+given)
	}
	var problems []string
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if first, dup := seen[k.Value]; dup {
			problems = append(problems, fmt.Sprintf("line %d: key %q is repeated (first at line %d)", k.Line, k.Value, first))
			continue
		}
		seen[k.Value] = k.Line
		err := fn(k, n.Content[i+1])
		var te *yaml.TypeError
		switch {
		case errors.As(err, &te):
			problems = append(problems, te.Errors...)
		case err != nil:
			return err
		}
	}
	if len(problems) > 0 {
		return &yaml.TypeError{Errors: problems}
	}
	return nil
}

// lineError is a decoding problem at a line. It is a *yaml.TypeError, which
// the decoder records and carries on past.
func lineError(line int, msg string) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", line, msg)}}
}

package litellm

import "github.com/shopspring/decimal"

// Staleness says how a config's value is off the one an update writes.
type Staleness uint8

// Kinds of staleness.
const (
	// StaleOff: the config's price differs from the new one by more than
	// the tolerance, relative to the new one (Stale.Off).
	StaleOff Staleness = iota
	// StaleMissing: the config has no value where the update writes one.
	StaleMissing
	// StaleBlock: an off_peak_pricing block differs; Change.Old says how
	// (empty when the config has none).
	StaleBlock
	// StaleZeroBlend: the new price is 0 and the config's is not: no
	// relative difference to a price of 0.
	StaleZeroBlend
	// StaleText: LiteLLM (PyYAML) reads the config's value as text, not a
	// number (3e-6 has no dot), however close its digits are.
	StaleText
)

// Stale is a value of the config off the update by more than a tolerance.
type Stale struct {
	Change
	Kind Staleness
	Off  decimal.Decimal // |old - new| / new, with StaleOff
}

// Stale returns the changes of u that move a value by more than
// tolerance, a fraction of the new value (0.005 for 0.5%), in order: what
// `blend --check` reports. A missing value, a differing block and a value
// LiteLLM reads as text are always stale; a price of 0 kept at 0 never is.
func (u *Update) Stale(tolerance decimal.Decimal) []Stale {
	var out []Stale
	for _, c := range u.Changes {
		s := Stale{Change: c}
		switch {
		case c.Block:
			s.Kind = StaleBlock
		case c.OldText:
			s.Kind = StaleText
		case c.Old == "":
			s.Kind = StaleMissing
		case c.NewPrice.IsZero():
			if c.OldPrice.IsZero() {
				continue
			}
			s.Kind = StaleZeroBlend
		default:
			s.Off = c.OldPrice.Sub(c.NewPrice).Abs().Div(c.NewPrice)
			if s.Off.LessThanOrEqual(tolerance) {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

package reports

import (
	"io"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/gateway/litellm"
	"github.com/tokenfare/tokenfare/reports/textdiff"
	"github.com/tokenfare/tokenfare/reports/textout"
)

// A price write-back into a LiteLLM config (blend --write) prints one of
// three things: the diff it would make (--dry-run), whether the config is
// stale (--check), or the values it wrote. Each quotes the config, so
// terminal controls in it are escaped.

// ConfigDiff writes the unified diff from old to new, the config at path
// before and after the write-back; nothing when they are equal. Secrets
// on the lines shown are masked.
func ConfigDiff(w io.Writer, path string, old, new []byte) error {
	out := &textout.Writer{W: &textout.Escaping{W: w}}
	out.Printf("%s", textdiff.Unified(path, path, old, new))
	return out.Err
}

// ConfigChanges writes each value a write-back changed in the config at
// path: "config.yaml:12: flash: model_info.input_cost_per_token 3e-7 ->
// 2.5e-7", "-" for a value the config lacked.
func ConfigChanges(w io.Writer, path string, changes []litellm.Change) error {
	out := &textout.Writer{W: &textout.Escaping{W: w}}
	for _, c := range changes {
		out.Printf("%s:%d: %s: %s %s -> %s\n", path, c.Line, c.ModelName, c.Field, orDash(c.Old), c.New)
	}
	return out.Err
}

// ConfigCheck writes each value of the config at path that is off the
// blend by more than tolerance (a fraction: 0.005 for 0.5%), and how far;
// with none, that the config matches the blend within the tolerance.
func ConfigCheck(w io.Writer, path string, stale []litellm.Stale, tolerance decimal.Decimal) error {
	out := &textout.Writer{W: &textout.Escaping{W: w}}
	for _, s := range stale {
		out.Printf("%s:%d: %s: %s is %s, blend %s (%s)\n", path, s.Line, s.ModelName, s.Field, orDash(s.Old), s.New, staleText(s))
	}
	if len(stale) == 0 {
		out.Printf("%s matches the blend within %s%%\n", path, tolerance.Shift(2))
	}
	return out.Err
}

// staleText says how a stale value is off.
func staleText(s litellm.Stale) string {
	switch s.Kind {
	case litellm.StaleBlock:
		if s.Old != "" {
			return s.Old
		}
	case litellm.StaleZeroBlend:
		return "the blend is 0"
	case litellm.StaleText:
		return "LiteLLM (PyYAML) reads it as text, not a number: write it with a dot, e.g. 3.0e-7"
	case litellm.StaleOff:
		return "off by " + s.Off.Shift(2).StringFixed(2) + "%"
	}
	return "missing"
}

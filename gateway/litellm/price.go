package litellm

import (
	"fmt"
	"math/big"
	"regexp"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Field is a per-token price key of a LiteLLM deployment and the usage
// type it prices.
type Field struct {
	Key   string
	Usage tariffs.Usage
}

// Fields are the price keys tokenfare reads and writes, in the order it
// adds missing ones.
var Fields = []Field{
	{"input_cost_per_token", tariffs.Input},
	{"cache_read_input_token_cost", tariffs.CacheRead},
	{"cache_creation_input_token_cost", tariffs.CacheWrite},
	{"output_cost_per_token", tariffs.Output},
	{"output_cost_per_reasoning_token", tariffs.Reasoning},
}

// SignificantDigits is the most significant digits a written price keeps.
// Any decimal of at most 15 significant digits survives a trip through a
// binary64 float: the float nearest to it prints back (shortest repr) as
// the same decimal, which is what LiteLLM reads with PyYAML.
const SignificantDigits = 15

// FormatPerToken writes a price per 1M tokens as LiteLLM's price per
// token: scientific notation with a dot in the mantissa and a signed
// exponent ("3.0e-7", "1.23456789e-6"), the form YAML 1.1 (PyYAML) reads
// as a float; "3e-7" or "1.0e7" would be read as strings. Values with more
// than SignificantDigits significant digits are rounded half away from
// zero to that many.
func FormatPerToken(perMillion decimal.Decimal) string {
	d := perMillion.Shift(-6)
	if d.IsZero() {
		return "0.0"
	}
	coef, exp := d.Coefficient(), int(d.Exponent())
	neg := coef.Sign() < 0
	digits := new(big.Int).Abs(coef).String()
	if len(digits) > SignificantDigits {
		drop := len(digits) - SignificantDigits
		d = d.Round(int32(-(exp + drop)))
		coef, exp = d.Coefficient(), int(d.Exponent())
		digits = new(big.Int).Abs(coef).String()
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	e := exp + len(digits) - 1
	mant := digits[1:]
	if mant == "" {
		mant = "0"
	}
	sign := "+"
	if e < 0 {
		sign, e = "-", -e
	}
	out := fmt.Sprintf("%s.%se%s%d", digits[:1], mant, sign, e)
	if neg {
		out = "-" + out
	}
	return out
}

// pyFloat and pyInt are the plain scalars PyYAML (YAML 1.1) resolves as
// numbers; any other plain scalar reaches LiteLLM as a string.
var (
	pyFloat = regexp.MustCompile(`^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?)$`)
	pyInt   = regexp.MustCompile(`^[-+]?(?:0|[1-9][0-9_]*)$`)
)

// ReadsAsNumber reports whether LiteLLM (PyYAML) reads the scalar n as a
// number rather than a string.
func ReadsAsNumber(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false
	}
	if n.Tag == "!!float" && n.Style&yaml.TaggedStyle != 0 {
		return true
	}
	return pyFloat.MatchString(n.Value) || pyInt.MatchString(n.Value)
}

// PerMillion reads a per-token price as written and returns it per 1M
// tokens, exactly (from the text, not through a float).
func PerMillion(n *yaml.Node) (decimal.Decimal, error) {
	d, err := tariffs.ScalarDecimal(n)
	if err != nil {
		return d, err
	}
	return d.Shift(6), nil
}

// priced reports whether mapping m carries any per-token price.
func priced(m *yaml.Node) bool {
	for _, f := range Fields {
		if k, _ := lookup(m, f.Key); k != nil {
			return true
		}
	}
	return false
}

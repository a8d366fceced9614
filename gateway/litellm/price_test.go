package litellm

import (
	"testing"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"
)

func TestFormatPerToken(t *testing.T) {
	tests := []struct {
		name, perMillion, want string
	}{
		{"one digit gets .0", "0.3", "3.0e-7"},
		{"blend with nine places", "0.213456789", "2.13456789e-7"},
		{"trailing zeros dropped", "1.200", "1.2e-6"},
		{"whole dollars per 1M", "10", "1.0e-5"},
		{"a dollar per token", "1000000", "1.0e+0"},
		{"above a dollar per token", "12500000", "1.25e+1"},
		{"zero", "0", "0.0"},
		// 16 significant digits per token: rounded to 15, half away from zero.
		{"rounded to 15 digits", "0.1234567890123456", "1.23456789012346e-7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := FormatPerToken(decimal.RequireFromString(tc.perMillion))
			if got != tc.want {
				t.Errorf("FormatPerToken(%s) = %s, want %s", tc.perMillion, got, tc.want)
			}
			if tc.name != "zero" && !pyFloat.MatchString(got) {
				t.Errorf("%s is not read as a float by PyYAML", got)
			}
		})
	}
}

func TestReadsAsNumber(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"v: 3.0e-7", true},
		{"v: 0.00000015", true},
		{"v: 3e-7", false},  // YAML 1.1 floats need a dot
		{"v: 3.0e7", false}, // and a signed exponent
		{"v: 3.0e+7", true},
		{"v: 0", true},
		{`v: "3.0e-7"`, false},
		{"v: !!float 3e-7", true},
	}
	for _, tc := range tests {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tc.src), &doc); err != nil {
			t.Fatal(err)
		}
		if got := ReadsAsNumber(doc.Content[0].Content[1]); got != tc.want {
			t.Errorf("ReadsAsNumber(%s) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

package litellm

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"
)

// readBackScript loads a config with PyYAML, as LiteLLM does, and prints
// every price as [model_name, where, key, Python type, repr].
const readBackScript = `
import json, sys, yaml
keys = ["input_cost_per_token", "cache_read_input_token_cost", "cache_creation_input_token_cost",
        "output_cost_per_token", "output_cost_per_reasoning_token"]
out = []
for e in yaml.safe_load(open(sys.argv[1]))["model_list"]:
    for sec in ("litellm_params", "model_info"):
        m = e.get(sec) or {}
        for where, d in ((sec, m), (sec + ".off_peak_pricing", m.get("off_peak_pricing") or {})):
            for k in keys:
                if k in d:
                    out.append([e["model_name"], where, k, type(d[k]).__name__, repr(d[k])])
print(json.dumps(out))
`

// pyYAML returns the prices PyYAML reads from the config at path.
func pyYAML(t *testing.T, path string) [][5]string {
	t.Helper()
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import yaml").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s with PyYAML is required under CI (Debian package python3-yaml): %v", python, err)
		}
		t.Skipf("%s with PyYAML not available (install python3-yaml): %v", python, err)
	}
	out, err := exec.Command(python, "-c", readBackScript, path).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var rows [][5]string
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("python output %q: %v", out, err)
	}
	return rows
}

// TestPyYAMLRoundTrip reads the written golden configs with PyYAML and
// checks each price, as the float LiteLLM gets, against the decimal meant.
func TestPyYAMLRoundTrip(t *testing.T) {
	// Blended prices per token = per 1M / 10^6, from blendPrices.
	flash := map[string]string{"input_cost_per_token": "0.000000213456789", "cache_read_input_token_cost": "0.000000004123", "output_cost_per_token": "0.00000085"}
	blend := map[string]map[string]string{
		"deepseek-flash": flash, "flash-cheap": flash, "flash-relay": flash,
		"deepseek-v4-pro": {"input_cost_per_token": "0.0000009", "cache_read_input_token_cost": "0.00000003", "output_cost_per_token": "0.0000027"},
		// An azure/ deployment: Azure's prices (testdata/tariffs/azure-openai.yaml), not OpenAI's.
		"gpt-4o": {"input_cost_per_token": "0.00000275", "cache_read_input_token_cost": "0.000001375", "output_cost_per_token": "0.000011"},
	}
	// Off-peak: standard = peak rates, the block = off-peak rates, per 1M
	// from testdata/tariffs/deepseek.yaml divided by 10^6; cache writes at
	// the input rate.
	offpeak := map[string]map[string]string{
		"deepseek-flash":                   {"input_cost_per_token": "0.0000003", "cache_read_input_token_cost": "0.000000006", "cache_creation_input_token_cost": "0.0000003", "output_cost_per_token": "0.0000012"},
		"deepseek-flash.off_peak_pricing":  {"input_cost_per_token": "0.00000015", "cache_read_input_token_cost": "0.000000003", "cache_creation_input_token_cost": "0.00000015", "output_cost_per_token": "0.0000006"},
		"deepseek-v4-pro":                  {"input_cost_per_token": "0.00000132", "cache_read_input_token_cost": "0.000000044", "cache_creation_input_token_cost": "0.00000132", "output_cost_per_token": "0.00000396"},
		"deepseek-v4-pro.off_peak_pricing": {"input_cost_per_token": "0.00000066", "cache_read_input_token_cost": "0.000000022", "cache_creation_input_token_cost": "0.00000066", "output_cost_per_token": "0.00000198"},
		"gpt-4o":                           {"input_cost_per_token": "0.0000025", "cache_read_input_token_cost": "0.00000125", "output_cost_per_token": "0.00001"},
	}
	for _, tc := range []struct {
		file string
		want map[string]map[string]string
	}{{"testdata/blend/after.yaml", blend}, {"testdata/offpeak/after.yaml", offpeak}} {
		path, _ := filepath.Abs(tc.file)
		rows := pyYAML(t, path)
		seen := 0
		for _, r := range rows {
			name := r[0]
			if len(r[1]) > len(".off_peak_pricing") && r[1][len(r[1])-len(".off_peak_pricing"):] == ".off_peak_pricing" {
				name += ".off_peak_pricing"
			}
			want, ok := tc.want[name][r[2]]
			if !ok {
				t.Errorf("%s: %s %s.%s = %s: not expected", tc.file, r[0], r[1], r[2], r[4])
				continue
			}
			seen++
			if r[3] != "float" {
				t.Errorf("%s: %s %s.%s read by PyYAML as %s %s, want a float", tc.file, r[0], r[1], r[2], r[3], r[4])
				continue
			}
			got, err := decimal.NewFromString(r[4])
			if err != nil || !got.Equal(decimal.RequireFromString(want)) {
				t.Errorf("%s: %s %s.%s: PyYAML float %s, want %s", tc.file, r[0], r[1], r[2], r[4], want)
			}
		}
		total := 0
		for _, m := range tc.want {
			total += len(m)
		}
		if seen < total {
			t.Errorf("%s: %d prices read back, want at least %d", tc.file, seen, total)
		}
	}
}

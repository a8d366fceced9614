package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/gateway/litellm"
)

const (
	gwTariffs = "../../gateway/litellm/testdata/tariffs"
	gwChecks  = "../../gateway/litellm/testdata/check/"
)

func TestCheckCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"price out of bounds names file:line", []string{"--config", gwChecks + "price-bounds-fail.yaml"}, exitFindings,
			gwChecks + "price-bounds-fail.yaml:6: finding: price-bounds: deepseek-flash: model_info.input_cost_per_token 1.4e-7 (want 1.5e-7 .. 3.0e-7)", anyOutput},
		{"clean config", []string{"--config", gwChecks + "price-bounds-pass.yaml"}, exitOK, "0 finding(s), 0 warning(s)", anyOutput},
		{"untariffed is a warning", []string{"--config", gwChecks + "untariffed-fail.yaml"}, exitOK, "warning: untariffed", anyOutput},
		{"untariffed with --strict", []string{"--config", gwChecks + "untariffed-fail.yaml", "--strict"}, exitFindings, "finding: untariffed", anyOutput},
		{"cooldown threshold as a flag", []string{"--config", gwChecks + "cooldown-fail.yaml", "--max-cooldown", "90s", "--min-allowed-fails", "1"}, exitOK, "0 finding(s)", anyOutput},
		{"rate limits not retried", []string{"--config", gwChecks + "rate-limit-retry-fail.yaml"}, exitFindings,
			gwChecks + "rate-limit-retry-fail.yaml:11: finding: rate-limit-retry: gpt-4o: router_settings.retry_policy.RateLimitErrorRetries 0 (want >= 1)", anyOutput},
		{"rate-limit threshold as a flag", []string{"--config", gwChecks + "rate-limit-retry-fail.yaml", "--min-rate-limit-retries", "0"}, exitOK, "0 finding(s)", anyOutput},
		{"a chain leaving the perimeter in its second hop", []string{"--config", gwChecks + "private-fallback-fail.yaml"}, exitFindings,
			`private-fallback: private/llama: router_settings.context_window_fallbacks gpt-4o (want a group matching private/*): private group "private/llama" reaches, through "private/qwen", a fallback to "gpt-4o"`, anyOutput},
		{"--private names the perimeter", []string{"--config", gwChecks + "private-fallback-fail.yaml", "--private", "secret/*"}, exitOK, "0 finding(s)", anyOutput},
		{"--private repeated", []string{"--config", gwChecks + "private-fallback-fail.yaml", "--private", "secret/*", "--private", "private/q*"}, exitFindings,
			"private-fallback: private/qwen:", anyOutput},
		{"--private-domain admits a host", []string{"--config", gwChecks + "private-address-pass.yaml", "--private-domain", "corp.internal"}, exitOK, "0 finding(s)", anyOutput},
		{"without --private-domain the host is public", []string{"--config", gwChecks + "private-address-pass.yaml"}, exitFindings,
			`private-address: private/big: litellm_params.api_base https://gpu-1.LLM.corp.internal/v1`, anyOutput},
		{"a bad --private glob", []string{"--config", gwChecks + "private-fallback-fail.yaml", "--private", "private/["}, exitUsage, anyOutput, `--private "private/[" is not a glob`},
		{"CLIProxyAPI: cooling off globally over a pool", []string{"--config", "../../gateway/cliproxy/testdata/global-cooling-off-fail.yaml"}, exitFindings,
			"global-cooling-off-fail.yaml:6: finding: global-cooling-off: claude", anyOutput},
		{"CLIProxyAPI: --pool-keys", []string{"--config", "../../gateway/cliproxy/testdata/global-cooling-off-fail.yaml", "--pool-keys", "4"}, exitFindings,
			"global-cooling-off-fail.yaml:15: finding: single-key-cooling: pooled-own", anyOutput},
		{"CLIProxyAPI: --pool-keys below two", []string{"--config", "../../gateway/cliproxy/testdata/global-cooling-off-fail.yaml", "--pool-keys", "1"}, exitUsage, anyOutput, "a pool holds two keys or more"},
		{"CLIProxyAPI config detected", []string{"--config", "../../gateway/cliproxy/testdata/single-key-cooling-fail.yaml"}, exitFindings,
			"single-key-cooling-fail.yaml:6: finding: single-key-cooling: claude", anyOutput},
		{"no --config", nil, exitUsage, anyOutput, "--config FILE is required"},
		{"missing file", []string{"--config", "testdata/configs/nope.yaml"}, exitUsage, anyOutput, "no such file"},
		{"broken YAML names the line", []string{"--config", "testdata/configs/broken.yaml"}, exitUsage, anyOutput, "testdata/configs/broken.yaml:4: found character that cannot start any token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"check", "--tariffs", gwTariffs, "--at", "2026-11-02"}, tc.args...)
			code, out, errs := runCLI(t, "", args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errs)
			}
			checkContains(t, "stdout", out, tc.stdout)
			checkContains(t, "stderr", errs, tc.stderr)
		})
	}
}

// copyConfig copies a test config into a temporary folder.
func copyConfig(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/configs", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// blendedPerToken runs the blend as JSON and returns each model's blended
// price per token (per 1M / 10^6) by usage type.
func blendedPerToken(t *testing.T, args ...string) map[string]map[string]decimal.Decimal {
	t.Helper()
	code, out, errs := runCLI(t, "", append(append([]string{"blend"}, args...), "-o", "json")...)
	if code != exitOK {
		t.Fatalf("blend: exit %d: %s", code, errs)
	}
	var doc struct {
		Models []struct {
			Model  string
			Prices []struct{ Usage, Blended string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]decimal.Decimal{}
	for _, m := range doc.Models {
		got[m.Model] = map[string]decimal.Decimal{}
		for _, p := range m.Prices {
			got[m.Model][p.Usage] = mustDecimal(t, p.Blended).Shift(-6)
		}
	}
	return got
}

func TestBlendWrite(t *testing.T) {
	window := []string{"--calls", sample, "--as-of", "2026-10-29"}
	path := copyConfig(t, "litellm.yaml")
	before, _ := os.ReadFile(path)
	blend := func(extra ...string) (int, string, string) {
		return runCLI(t, "", append(append([]string{"blend"}, window...), append([]string{"--write", path}, extra...)...)...)
	}

	// --check on the hand-set prices: stale, exit 1, each price listed with
	// how far it is off the blend: |3.0e-7 - blended| / blended.
	want := blendedPerToken(t, window...)
	flashIn := want["deepseek-flash"]["input"]
	flashText := litellm.FormatPerToken(flashIn.Shift(6))
	off := mustDecimal(t, "0.0000003").Sub(flashIn).Abs().Div(flashIn).Shift(2).StringFixed(2)
	code, out, _ := blend("--check")
	if code != exitFindings || !strings.Contains(out, path+":9: deepseek-flash: model_info.input_cost_per_token is 3.0e-7, blend "+flashText+" (off by "+off+"%)") {
		t.Errorf("--check before writing: exit %d, want 1 and input off by %s%%\n%s", code, off, out)
	}
	// --dry-run prints the diff and writes nothing.
	code, out, _ = blend("--dry-run")
	// The comment keeps its column: the new value takes spaces before it.
	newLine := "      input_cost_per_token: " + flashText
	newLine += strings.Repeat(" ", max(1, len("      input_cost_per_token: 3.0e-7           ")-len(newLine))) + "# peak, set by hand"
	if code != exitOK || !strings.Contains(out, "@@ -6,15 +6,23 @@\n") || !strings.Contains(out, "\n-      input_cost_per_token: 3.0e-7           # peak, set by hand\n") ||
		!strings.Contains(out, "\n+"+newLine+"\n") {
		t.Errorf("--dry-run: exit %d\n%s", code, out)
	}
	if now, _ := os.ReadFile(path); string(now) != string(before) {
		t.Fatal("--dry-run wrote the file")
	}
	// The write: every entry of deepseek-flash and gpt-4o carries the blend.
	if code, out, errs := blend(); code != exitOK {
		t.Fatalf("--write: exit %d\n%s%s", code, out, errs)
	} else if !strings.Contains(errs, "left alone: no tariff model") || !strings.Contains(errs, "tariff in force at 2026-10-29T00:00:00Z") {
		t.Errorf("--write stderr lacks the untariffed entry or the tariff used:\n%s", errs)
	}
	data, _ := os.ReadFile(path)
	cfg, err := litellm.Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{"input_cost_per_token": "input", "cache_read_input_token_cost": "cache_read", "output_cost_per_token": "output"}
	written := 0
	for _, e := range cfg.Entries {
		model := map[string]string{"deepseek-flash": "deepseek-flash", "flash-legacy": "deepseek-flash", "gpt-4o": "gpt-4o"}[e.ModelName]
		if model == "" {
			continue
		}
		for key, usage := range keys {
			v := valueOf(t, data, e, key)
			if v == "" {
				t.Errorf("%s: %s not written", e.ModelName, key)
				continue
			}
			written++
			if !mustDecimal(t, v).Equal(want[model][usage]) {
				t.Errorf("%s: %s = %s, blend %s", e.ModelName, key, v, want[model][usage])
			}
		}
	}
	if written != 9 {
		t.Errorf("%d prices written, want 3 entries × 3 keys", written)
	}
	// A second write changes nothing; --check now passes.
	if code, _, errs := blend(); code != exitOK || !strings.Contains(errs, "is up to date") {
		t.Errorf("second write: exit %d: %s", code, errs)
	}
	if again, _ := os.ReadFile(path); string(again) != string(data) {
		t.Error("second write changed the file")
	}
	if code, out, _ := blend("--check"); code != exitOK || !strings.Contains(out, "matches the blend within 0.5%") {
		t.Errorf("--check after writing: exit %d\n%s", code, out)
	}
}

// valueOf finds key in an entry's model_info or litellm_params by reading
// the config again with a plain YAML decoder.
func valueOf(t *testing.T, data []byte, e *litellm.Entry, key string) string {
	t.Helper()
	var doc struct {
		ModelList []struct {
			ModelName     string               `yaml:"model_name"`
			LitellmParams map[string]yaml.Node `yaml:"litellm_params"`
			ModelInfo     map[string]yaml.Node `yaml:"model_info"`
		} `yaml:"model_list"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, m := range doc.ModelList {
		if m.ModelName != e.ModelName {
			continue
		}
		for _, sec := range []map[string]yaml.Node{m.ModelInfo, m.LitellmParams} {
			if v, ok := sec[key]; ok {
				return v.Value
			}
		}
	}
	return ""
}

func TestBlendWriteRefusals(t *testing.T) {
	window := []string{"blend", "--calls", sample, "--as-of", "2026-10-29"}
	tests := []struct {
		name, config string
		args         []string
		code         int
		stderr       string
	}{
		{"off_peak_pricing block without the flag", "with-block.yaml", nil, exitUsage, "config.yaml:2: deepseek-flash: has an off_peak_pricing block (line 7)"},
		{"a config that does not parse", "broken.yaml", nil, exitUsage, "config.yaml:4: found character that cannot start any token"},
		{"--check and --dry-run together", "litellm.yaml", []string{"--check", "--dry-run"}, exitUsage, "--dry-run and --check exclude each other"},
		{"--tariff-at and --historical together", "", []string{"--tariff-at", "2026-10-29", "--historical"}, exitUsage, "exclude each other"},
		{"--dry-run without --write", "", []string{"--dry-run"}, exitUsage, "go with --write FILE"},
		{"bad tolerance", "litellm.yaml", []string{"--check", "--tolerance", "lots"}, exitUsage, "--tolerance \"lots\" is not a percentage"},
		{"--tolerance without --check", "litellm.yaml", []string{"--tolerance", "1%"}, exitUsage, "--tolerance goes with --check"},
		{"-o with --write", "litellm.yaml", []string{"--check", "-o", "json"}, exitUsage, "-o does not apply with --write"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{}, window...)
			var path string
			var before []byte
			if tc.config != "" {
				path = copyConfig(t, tc.config)
				before, _ = os.ReadFile(path)
				args = append(args, "--write", path)
			}
			code, _, errs := runCLI(t, "", append(args, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errs)
			}
			checkContains(t, "stderr", errs, tc.stderr)
			if path != "" {
				if now, _ := os.ReadFile(path); string(now) != string(before) {
					t.Error("the config was written")
				}
			}
		})
	}
}

func TestBlendTariffFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
		not  string
	}{
		{"default: the tariff in force at --as-of", nil, `"tariff_at": "2026-10-29T00:00:00Z"`, ""},
		{"a future tariff instant", []string{"--tariff-at", "2027-01-01"}, `"tariff_at": "2027-01-01T00:00:00Z"`, ""},
		{"historical", []string{"--historical"}, `"versions": [`, `"tariff_at"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"blend", "--calls", sample, "--as-of", "2026-10-29", "-o", "json"}, tc.args...)
			code, out, errs := runCLI(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			checkContains(t, "stdout", out, tc.want)
			if tc.not != "" && strings.Contains(out, tc.not) {
				t.Errorf("stdout has %q", tc.not)
			}
		})
	}
}

// TestParseTolerance: a bare number is a percentage, as for --fail-over.
func TestParseTolerance(t *testing.T) {
	tests := []struct {
		in, want string // want as a fraction; "" for a usage error
	}{
		{"0.5%", "0.005"},
		{"0.5", "0.005"}, // not 50%: a stale price must not pass
		{"1", "0.01"},
		{" 2% ", "0.02"},
		{"0", "0"},
		{"-1", ""},
		{"lots", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseTolerance(tc.in)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("parseTolerance(%q) = %s, want an error", tc.in, got)
				}
				return
			}
			if err != nil || !got.Equal(mustDecimal(t, tc.want)) {
				t.Errorf("parseTolerance(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
			}
		})
	}
}

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// blendModels runs blend -o json and returns its models, by name, in
// order, with how many it says it left out.
func blendModels(t *testing.T, args ...string) (models []blendModelRow, without int) {
	t.Helper()
	code, out, errs := runCLI(t, "", append(append([]string{"blend"}, args...), "-o", "json")...)
	if code != exitOK {
		t.Fatalf("blend %v: exit %d: %s", args, code, errs)
	}
	var doc struct {
		Without *int            `json:"models_without_calls"`
		Models  []blendModelRow `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Without == nil {
		t.Fatalf("blend %v: no models_without_calls in the JSON", args)
	}
	return doc.Models, *doc.Without
}

type blendModelRow struct {
	Model   string            `json:"model"`
	Calls   int64             `json:"calls"`
	Reason  string            `json:"reason"`
	LeftOut []json.RawMessage `json:"left_out"`
}

func TestBlendListsModelsWithCalls(t *testing.T) {
	window := []string{"--calls", sample, "--as-of", "2026-11-01"}
	all, allWithout := blendModels(t, append(window, "--all-models")...)
	called, without := blendModels(t, window...)
	var wantCalled []string
	idle := 0
	for _, m := range all {
		if m.Calls > 0 || len(m.LeftOut) > 0 {
			wantCalled = append(wantCalled, m.Model)
		} else if m.Reason != "" {
			idle++
		}
	}
	var gotCalled []string
	for _, m := range called {
		gotCalled = append(gotCalled, m.Model)
	}
	if allWithout != 0 {
		t.Errorf("--all-models: models_without_calls = %d, want 0: every model is listed", allWithout)
	}
	if idle == 0 || len(wantCalled) == 0 {
		t.Fatalf("the sample should have models with and without calls: %d with, %d without", len(wantCalled), idle)
	}
	if !slices.Equal(gotCalled, wantCalled) {
		t.Errorf("default models = %v, want the models with calls of --all-models %v", gotCalled, wantCalled)
	}
	if without != idle || without+len(called) != len(all) {
		t.Errorf("models_without_calls = %d, want %d (%d listed of %d)", without, idle, len(called), len(all))
	}

	tests := []struct {
		name      string
		args      []string
		idleRows  int    // table rows with no priced calls
		stderrHas string // "" when no note is wanted
	}{
		{"table: only models with calls, a note on stderr", nil, 0, "note: " + strconv.Itoa(idle) + " model(s) of the catalog had no calls in the window and are not listed; --all-models lists them"},
		{"csv: the same rows, the same note", []string{"-o", "csv"}, 0, "note: " + strconv.Itoa(idle) + " model(s)"},
		{"--all-models: every model, no note", []string{"--all-models"}, idle, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", append(append([]string{"blend"}, window...), tc.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if n := strings.Count(out, "no priced calls in the window\n") + strings.Count(out, "no priced calls in the window "); n != tc.idleRows {
				t.Errorf("%d rows without priced calls, want %d:\n%s", n, tc.idleRows, out)
			}
			for _, m := range wantCalled {
				if !strings.Contains(out, m) {
					t.Errorf("%s, which had calls, is not listed:\n%s", m, out)
				}
			}
			if tc.stderrHas == "" && strings.Contains(errs, "--all-models") {
				t.Errorf("stderr has a note it should not:\n%s", errs)
			}
			if tc.stderrHas != "" && !strings.Contains(errs, tc.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderrHas, errs)
			}
		})
	}
}

// A model the config names that had no calls in the window is still named,
// with its reason, when blend writes into the config.
func TestBlendWriteNamesConfigModelWithoutCalls(t *testing.T) {
	const config = `model_list:
  - model_name: flash
    litellm_params: {model: deepseek/deepseek-flash}
    model_info: {input_cost_per_token: 3.0e-7}
  - model_name: opus
    litellm_params: {model: anthropic/claude-opus-4-7}
    model_info: {input_cost_per_token: 5.0e-6}
`
	window := []string{"blend", "--calls", sample, "--as-of", "2026-11-01"}
	all, _ := blendModels(t, window[1:]...)
	if i := slices.IndexFunc(all, func(m blendModelRow) bool { return m.Model == "claude-opus-4-7" }); i >= 0 {
		t.Fatalf("claude-opus-4-7 had calls in the sample's window; the test needs a model without: %+v", all[i])
	}
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"--dry-run", []string{"--dry-run"}, exitOK},
		{"--check", []string{"--check"}, exitFindings}, // flash's hand-set price is off the blend
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLI(t, "", append(append(window, "--write", path), tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s%s", code, tc.code, out, errs)
			}
			want := path + ":5: opus: left alone: no price for claude-opus-4-7 (no priced calls in the window)"
			if !strings.Contains(errs, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errs)
			}
			for _, line := range strings.Split(out, "\n") {
				diffLine := strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+")
				if diffLine && strings.Contains(line, "5.0e-6") || strings.Contains(line, ": opus: ") {
					t.Errorf("the price of the model without calls is changed or listed: %s", line)
				}
			}
			if strings.Contains(errs, "--all-models") {
				t.Errorf("--write notes models not listed, though it lists none:\n%s", errs)
			}
		})
	}
}

// One write with --off-peak-pricing leaves a config its own check passes:
// flat prices the entry keeps in litellm_params are rewritten beside the
// block, whether model_info is added or already there.
func TestBlendOffPeakWriteOnce(t *testing.T) {
	configs := []struct{ name, config string }{
		{"prices in litellm_params, no model_info", `model_list:
  - model_name: flash
    litellm_params:
      model: deepseek/deepseek-flash
      input_cost_per_token: 1.0e-7
      output_cost_per_token: 2.0e-7
`},
		{"flow litellm_params, no model_info", `model_list:
  - model_name: flash
    litellm_params: {model: deepseek/deepseek-flash, input_cost_per_token: 1.0e-7}
`},
		{"model_info without prices", `model_list:
  - model_name: flash
    litellm_params:
      model: deepseek/deepseek-flash
      output_cost_per_token: 2.0e-7
    model_info:
      id: flash-1
`},
	}
	window := []string{"blend", "--calls", sample, "--as-of", "2026-11-01", "--off-peak-pricing", "--write"}
	for _, tc := range configs {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, out, errs := runCLI(t, "", append(window, path)...); code != exitOK {
				t.Fatalf("write: exit %d: %s%s", code, out, errs)
			}
			if code, out, errs := runCLI(t, "", append(window, path, "--check")...); code != exitOK {
				t.Errorf("blend --check after one write: exit %d, want 0: %s%s", code, out, errs)
			}
			if code, out, errs := runCLI(t, "", "check", "--config", path, "--at", "2026-11-01"); code != exitOK {
				t.Errorf("check after one write: exit %d, want 0: %s%s", code, out, errs)
			}
		})
	}
}

// pyYAMLType returns the Python type PyYAML (a YAML 1.1 reader, as
// LiteLLM uses) gives to litellm_params[key] of the first entry of the
// config at path.
func pyYAMLType(t *testing.T, path, key string) string {
	t.Helper()
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import yaml").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s with PyYAML is required under CI (Debian package python3-yaml): %v", python, err)
		}
		t.Skipf("%s with PyYAML not available (install python3-yaml): %v", python, err)
	}
	script := `import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
print(type(doc["model_list"][0]["litellm_params"][sys.argv[2]]).__name__)`
	out, err := exec.Command(python, "-c", script, path, key).Output()
	if err != nil {
		t.Fatalf("PyYAML: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// A price LiteLLM reads as text fails the CI check as it fails `check`:
// 3e-6 (no dot) is a string to PyYAML, whatever its digits say, and one
// write makes it a number.
func TestBlendCheckFailsOnPriceReadAsText(t *testing.T) {
	window := []string{"blend", "--calls", sample, "--as-of", "2026-11-01", "--write"}
	path := filepath.Join(t.TempDir(), "config.yaml")
	config := "model_list:\n  - model_name: sonnet\n    litellm_params:\n      model: anthropic/claude-sonnet-4-5-20250929\n"
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "", append(window, path)...); code != exitOK {
		t.Fatalf("write: exit %d: %s%s", code, out, errs)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Claude Sonnet 4.5's input is 3 per 1M at the tariff of 2026-11-01.
	written := "input_cost_per_token: 3.0e-6"
	if !strings.Contains(string(data), written) {
		t.Fatalf("the write lacks %q:\n%s", written, data)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), written, "input_cost_per_token: 3e-6", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := pyYAMLType(t, path, "input_cost_per_token"); got != "str" {
		t.Fatalf("PyYAML reads 3e-6 as %s; the test needs a price it reads as text", got)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"blend --write --check", append(window, path, "--check"), path + ":5: sonnet: litellm_params.input_cost_per_token is 3e-6, blend 3.0e-6 (LiteLLM (PyYAML) reads it as text"},
		{"check --config", []string{"check", "--config", path, "--at", "2026-11-01"}, path + ":5: finding: price-format: sonnet: litellm_params.input_cost_per_token 3e-6"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tc.args...)
			if code != exitFindings {
				t.Errorf("exit %d, want %d: %s%s", code, exitFindings, out, errs)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out)
			}
		})
	}
	if code, out, errs := runCLI(t, "", append(window, path)...); code != exitOK {
		t.Fatalf("rewrite: exit %d: %s%s", code, out, errs)
	}
	if got := pyYAMLType(t, path, "input_cost_per_token"); got != "float" {
		t.Errorf("after the rewrite PyYAML reads the price as %s, want float", got)
	}
}

// A model retired at the tariff instant is named with its retirement, not
// dropped as a model without calls: the sample's window holds 1,083
// successful Claude Sonnet 4.5 calls, one of them a duplicate, so 1,082
// are counted as retired once the tariff of 2026-12-01 prices them
// (Sonnet 4.5 retired 2026-11-30 17:00 UTC, anthropic.yaml).
func TestBlendNamesRetiredModel(t *testing.T) {
	window := []string{"blend", "--calls", sample, "--as-of", "2026-11-01", "--tariff-at", "2026-12-01"}
	const why = "retired at 2026-11-30T17:00:00Z by version 2026-11-30-sonnet-4-5-retired: its 1082 call(s) in the window are counted as retired, unpriced and out of the blend"
	path := filepath.Join(t.TempDir(), "config.yaml")
	config := "model_list:\n  - model_name: sonnet\n    litellm_params: {model: anthropic/claude-sonnet-4-5-20250929, input_cost_per_token: 3.0e-6}\n"
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		out, errs string
	}{
		{name: "table", args: window, out: "retired   claude-sonnet-4-5: " + why},
		{name: "rows", args: window, out: "retired 1082, other 293"},
		{name: "json", args: append(window, "-o", "json"), out: `"retired": {
        "at": "2026-11-30T17:00:00Z",
        "version": "2026-11-30-sonnet-4-5-retired",
        "calls": 1082
      }`},
		{name: "write", args: append(window, "--write", path, "--dry-run"), errs: path + ":2: sonnet: left alone: no price for claude-sonnet-4-5 (" + why + ")"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tc.args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s%s", code, out, errs)
			}
			if !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.errs) {
				t.Errorf("output lacks %q or stderr lacks %q:\n%s\n%s", tc.out, tc.errs, out, errs)
			}
			if strings.Contains(out+errs, "claude-sonnet-4-5 (no priced calls in the window)") {
				t.Errorf("the retired model is said to have no priced calls:\n%s%s", out, errs)
			}
		})
	}
}

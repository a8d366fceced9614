package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const providerFixtures = "../../testdata/provider"

// threeWayArgs reconciles the fixtures' calls with every provider export.
func threeWayArgs(output string) []string {
	args := []string{"reconcile", "--tariffs", filepath.Join(providerFixtures, "tariffs"), "--calls", filepath.Join(providerFixtures, "calls.csv"), "-o", output}
	for _, f := range []string{"openai-usage.jsonl", "openai-costs.json", "anthropic-usage.json", "anthropic-cost.json", "deepseek-usage.csv"} {
		args = append(args, "--provider-usage", filepath.Join(providerFixtures, f))
	}
	return args
}

// rawKeys are the plaintext keys of the fixtures: the DeepSeek export's
// and the logged calls'.
var rawKeys = []string{"sk-deepseek-alpha-0001", "sk-deepseek-beta-0002", "sk-openai-test-key-1", "sk-ant-test-key-1", "deepseek-alpha", "deepseek-beta"}

func checkNoRawKeys(t *testing.T, what, text string) {
	t.Helper()
	for _, k := range rawKeys {
		if strings.Contains(text, k) {
			t.Errorf("%s shows the raw key %q", what, k)
		}
	}
}

// TestThreeWayNoRawKeys: the plaintext keys of the DeepSeek export and of
// the calls appear nowhere, in any output format, on stdout or stderr.
func TestThreeWayNoRawKeys(t *testing.T) {
	for _, f := range []string{"table", "csv", "json", "yaml"} {
		code, stdout, stderr := runCLI(t, "", threeWayArgs(f)...)
		if code != exitOK {
			t.Fatalf("-o %s: exit %d: %s", f, code, stderr)
		}
		checkNoRawKeys(t, "-o "+f+" stdout", stdout)
		checkNoRawKeys(t, "-o "+f+" stderr", stderr)
		// The hashed key is what aligns DeepSeek's calls (the table shows its start).
		checkContains(t, "-o "+f+" stdout", stdout, "b38afa7786ee")
	}
	// A bad row of a DeepSeek export: the error names the line, not the key.
	dir := t.TempDir()
	bad := filepath.Join(dir, "deepseek.csv")
	os.WriteFile(bad, []byte("time,api_key,model,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens\n"+
		"2026-10-12T02:00:00Z,sk-deepseek-alpha-0001,deepseek-flash,1,1,1\n"+
		"2026-10-12T03:00:00Z,deepseek-flash,sk-deepseek-beta-0002,1,1,1\n"), 0o644)
	code, stdout, stderr := runCLI(t, "", "reconcile", "--calls", filepath.Join(providerFixtures, "calls.csv"), "--provider-usage", bad)
	if code != exitUsage || stdout != "" {
		t.Errorf("exit %d, stdout %q: want exit %d and no output", code, stdout, exitUsage)
	}
	checkContains(t, "stderr", stderr, "deepseek.csv:3")
	checkNoRawKeys(t, "stderr of a bad row", stderr)
}

func TestThreeWayCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"table names missing usage and drift", threeWayArgs("table"), exitOK,
			"2026-10-12 gpt-4o-mini: 1 calls 1100 tok the gateway did not log", anyOutput},
		{"table drift", threeWayArgs("table"), exitOK,
			"anthropic claude-haiku-4-5 version 2026-01-01 standard web_search, 2026-10-12 to 2026-10-12: 1 uses", anyOutput},
		{"by does not apply", append(threeWayArgs("table"), "--by", "key"), exitUsage, "", "--by and --fail-over do not apply"},
		{"missing export", []string{"reconcile", "--calls", filepath.Join(providerFixtures, "calls.csv"), "--provider-usage", "nope.json"}, exitUsage,
			"", "check the path given to --provider-usage"},
		{"not an export", []string{"reconcile", "--calls", filepath.Join(providerFixtures, "calls.csv"), "--provider-usage", filepath.Join(providerFixtures, "calls.csv")},
			exitUsage, "", "calls.csv:1: unknown provider export format"},
		{"currency differs from the tariff", []string{"reconcile", "--tariffs", filepath.Join(providerFixtures, "tariffs"), "--calls", filepath.Join(providerFixtures, "calls.csv"),
			"--provider-usage", "testdata/provider/cny.csv"}, exitUsage, "", "billed in CNY, but the deepseek tariff is in USD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tt.code, stderr)
			}
			if tt.stdout == "" {
				if stdout != "" {
					t.Errorf("stdout %q, want nothing", stdout)
				}
			} else {
				checkContains(t, "stdout", stdout, tt.stdout)
			}
			checkContains(t, "stderr", stderr, tt.stderr)
		})
	}
}

// TestThreeWayGolden keeps the JSON contract and the table of the
// fixtures' three-way reconciliation.
func TestThreeWayGolden(t *testing.T) {
	for name, f := range map[string]string{"reconcile-threeway.json": "json", "reconcile-threeway.txt": "table", "reconcile-threeway.csv": "csv"} {
		code, stdout, stderr := runCLI(t, "", threeWayArgs(f)...)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		golden(t, name, stdout)
	}
}

// TestThreeWayExportNamedTwice: an export given twice (the same path, or
// the same path spelt otherwise) is read once, as --calls files are; read
// twice, the provider's usage would count double and show as missing.
func TestThreeWayExportNamedTwice(t *testing.T) {
	usage := filepath.Join(providerFixtures, "openai-usage.jsonl")
	base := []string{"reconcile", "--tariffs", filepath.Join(providerFixtures, "tariffs"), "--calls", filepath.Join(providerFixtures, "calls.csv"), "-o", "json", "--provider-usage", usage}
	_, once, _ := runCLI(t, "", base...)
	code, twice, stderr := runCLI(t, "", append(base, "--provider-usage", "./"+usage)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkContains(t, "stderr", stderr, "is given more than once; it is read once")
	if once != twice {
		t.Errorf("the export named twice changes the report:\nonce:\n%.1500s\ntwice:\n%.1500s", once, twice)
	}
}

package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

const (
	importTable   = driftData + "modelsdev/api.json"
	importCatalog = driftData + "modelsdev/catalog"
	importCalls   = "testdata/import/calls.csv"
)

// officialByModel reconciles the import test's calls by model and
// returns each group's official cost; unpriced models have none.
func officialByModel(t *testing.T, args ...string) map[string]string {
	t.Helper()
	code, stdout, stderr := runCLI(t, "", append([]string{"reconcile", "--calls", importCalls, "--tariffs", importCatalog, "--by", "model", "-o", "json"}, args...)...)
	if code != exitOK && code != exitFindings {
		t.Fatalf("reconcile: exit %d: %s", code, stderr)
	}
	var doc struct {
		Groups []struct {
			Keys     map[string]string `json:"keys"`
			Official string            `json:"official"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, g := range doc.Groups {
		out[g.Keys["model"]] = g.Official
	}
	return out
}

// TestTariffsImport imports models.dev's file over a small OpenRouter
// list through the command tree: the folder validates alone and as an
// overlay, prices a call of a model the list lacks, and leaves the
// list's own model at its price unless --replace.
//
// q1, qwen3-max (0.78 / 0.156 / 3.9 per 1M): 100,000 input, 20,000 cache
// reads and 10,000 output tokens cost 0.078 + 0.00312 + 0.039 = 0.12012.
// s1, Sonnet 4.6 with a 250,000-token prompt: 150,000 input at 6, 10,000
// output at 22.5 and 100,000 cache reads at the list's 0.5 cost 1.175;
// at models.dev's 0.6, 1.185.
func TestTariffsImport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "imported")
	code, out, errs := runCLI(t, "", "tariffs", "import", importTable, "--tariffs", importCatalog, "--out", dir, "--commit-date", "2026-07-02")
	if code != exitOK {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	checkContains(t, "stdout", out, "imported 4 model(s) into "+dir+", in force from 2026-07-02T00:00:00Z")
	checkContains(t, "stdout", out, "models.dev, 6 entries read: 4 imported, 0 not selected, 2 skipped (unknown_host 1, in_catalog 1)")
	checkContains(t, "stderr", errs, `skipped `+importTable+`:10: "anthropic/claude-sonnet-4.6": the catalog prices it on host openrouter as openrouter-claude-sonnet-4-6`)
	for _, args := range [][]string{{dir}, {"--tariffs", importCatalog, "--tariffs-overlay", dir, "--strict"}} {
		if code, out, errs := runCLI(t, "", append([]string{"tariffs", "validate"}, args...)...); code != exitOK {
			t.Errorf("validate %v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	tests := []struct {
		name string
		args []string
		want map[string]string
	}{
		{"the catalog alone", nil, map[string]string{"openrouter-claude-sonnet-4-6": "1.175"}},
		{"with the imported folder", []string{"--tariffs-overlay", dir},
			map[string]string{"imported/openrouter/qwen/qwen3-max": "0.12012", "openrouter-claude-sonnet-4-6": "1.175"}},
	}
	for _, tt := range tests {
		got := officialByModel(t, tt.args...)
		for m, w := range tt.want {
			if got[m] != w {
				t.Errorf("%s: %s official %q, want %s (groups %v)", tt.name, m, got[m], w, got)
			}
		}
	}

	replaced := filepath.Join(t.TempDir(), "replaced")
	if code, _, errs := runCLI(t, "", "tariffs", "import", importTable, "--tariffs", importCatalog, "--out", replaced, "--commit-date", "2026-07-02", "--replace"); code != exitOK {
		t.Fatalf("import --replace: exit %d: %s", code, errs)
	}
	got := officialByModel(t, "--tariffs-overlay", replaced)
	if got["imported/openrouter/anthropic/claude-sonnet-4.6"] != "1.185" || got["openrouter-claude-sonnet-4-6"] != "" {
		t.Errorf("with --replace: groups %v, want Sonnet 4.6 at models.dev's 1.185", got)
	}
}

// TestTariffsImportRefuses: what the command will not do, as bad usage.
func TestTariffsImportRefuses(t *testing.T) {
	full := t.TempDir()
	if code, _, errs := runCLI(t, "", "tariffs", "import", importTable, "--tariffs", importCatalog, "--out", full, "--effective", "2026-07-02"); code != exitOK {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"a table without a date", []string{importTable, "--out", t.TempDir()}, "api.json carries no date of its own: the imported prices need the instant they take effect\nTry: give --commit-date"},
		{"a folder of an earlier import", []string{importTable, "--out", full, "--effective", "2026-07-02"}, "holds tariff files already (imported-openai.yaml)"},
		{"no folder", []string{importTable, "--effective", "2026-07-02"}, "no folder to write into"},
		{"urls that do not match the files", []string{importTable, importTable, "--out", t.TempDir(), "--url", "https://a", "--url", "https://b", "--url", "https://c"}, "3 --url for 2 files"},
		{"a file that cannot be read", []string{"testdata/compare/broken.json", "--out", t.TempDir(), "--effective", "2026-07-02"}, "broken.json:2: entry \"m\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(t, "", append([]string{"tariffs", "import", "--tariffs", importCatalog}, tt.args...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d: %s", code, exitUsage, errs)
			}
			checkContains(t, "stderr", errs, tt.stderr)
		})
	}
}

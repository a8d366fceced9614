package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// runCLI runs the real command tree with a fixed clock.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		now: func() time.Time { return time.Date(2026, 9, 1, 2, 0, 0, 0, time.UTC) }}
	code = runContext(context.Background(), a, args)
	return code, out.String(), errb.String()
}

// golden compares got with testdata/golden/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file; run go test ./internal/cli -update and review the diff\ngot:\n%s", name, got)
	}
}

// TestGolden runs commands through the real tree and compares their
// stdout with testdata/golden.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"show-flash-peak.txt", []string{"tariffs", "show", "flash", "--tariffs", "../../tariffs/testdata", "--at", "2026-10-10T02:00:00Z"}},
		{"show-flash-peak.json", []string{"tariffs", "show", "edgeco/flash", "--tariffs", "../../tariffs/testdata", "--at", "2026-10-10T02:00:00Z", "-o", "json"}},
		{"show-flash-holiday.txt", []string{"tariffs", "show", "flash", "--tariffs", "../../tariffs/testdata", "--at", "2026-10-01T02:00:00Z"}},
		{"show-flash-calendar.txt", []string{"tariffs", "show", "flash", "--tariffs", "../../tariffs/testdata", "--at", "2026-10-12T02:00:00Z", "--calendar"}},
		{"show-flash-calendar.json", []string{"tariffs", "show", "flash", "--tariffs", "../../tariffs/testdata", "--at", "2026-10-12T02:00:00Z", "--calendar", "-o", "json"}},
		{"show-old-retired.json", []string{"tariffs", "show", "old-model", "--tariffs", "../../tariffs/testdata", "--at", "2026-09-01", "-o", "json"}},
		{"show-deepseek-flash-embedded.json", []string{"tariffs", "show", "deepseek-flash", "--at", "2026-10-12T02:00:00Z", "-o", "json"}},
		{"reconcile-sample.json", []string{"reconcile", "--calls", sample, "-o", "json"}},
		{"reconcile-sample-by-period.csv", []string{"reconcile", "--calls", sample, "--by", "model,period", "-o", "csv"}},
		{"reconcile-sample.txt", []string{"reconcile", "--calls", sample}},
		{"reconcile-litellm-shapes.txt", []string{"reconcile", "--calls", "../../testdata/litellm/spendlogs-shapes.csv"}},
		{"reconcile-litellm-shapes.json", []string{"reconcile", "--calls", "../../testdata/litellm/spendlogs-shapes.json", "-o", "json"}},
		{"blend-sample.json", []string{"blend", "--calls", sample, "--as-of", "2026-10-29", "-o", "json"}},
		{"blend-sample-gateway.yaml", []string{"blend", "--calls", sample, "--as-of", "2026-10-29", "--mode", "gateway", "-o", "yaml"}},
		{"blend-sample.txt", []string{"blend", "--calls", sample, "--as-of", "2026-10-29"}},
		{"blend-sample-gateway.txt", []string{"blend", "--calls", sample, "--as-of", "2026-10-29", "--mode", "gateway"}},
		{"blend-sample-gateway.csv", []string{"blend", "--calls", sample, "--as-of", "2026-10-29", "--mode", "gateway", "-o", "csv"}},
		{"reconcile-sample-by-team.yaml", []string{"reconcile", "--calls", sample, "--by", "team", "-o", "yaml"}},
		{"reconcile-twocurrencies.csv", []string{"reconcile", "--calls", "testdata/calls/twocurrencies.csv", "--tariffs", "testdata/twocurrencies", "-o", "csv"}},
		{"price-sample-hour.txt", []string{"price", "--calls", sample, "--since", "2026-10-12T02:00:00Z", "--until", "2026-10-12T03:00:00Z", "-o", "table"}},
		{"price-sample-hour.csv", []string{"price", "--calls", sample, "--since", "2026-10-12T02:00:00Z", "--until", "2026-10-12T03:00:00Z"}},
		{"tariffs-list.csv", []string{"tariffs", "list", "--tariffs", "../../tariffs/testdata", "-o", "csv"}},
		{"tariffs-list.json", []string{"tariffs", "list", "--tariffs", "../../tariffs/testdata", "-o", "json"}},
		{"tariffs-list.txt", []string{"tariffs", "list", "--tariffs", "../../tariffs/testdata"}},
		{"chargeback-sample-team.txt", []string{"chargeback", "--calls", sample, "--month", "2026-10", "--tz", "Asia/Shanghai", "--by", "team"}},
		{"chargeback-sample-team-model.csv", []string{"chargeback", "--calls", sample, "--month", "2026-10", "--by", "team,model", "-o", "csv"}},
		{"chargeback-sample-key.yaml", []string{"chargeback", "--calls", sample, "--since", "2026-10-05", "--until", "2026-10-12", "--key", "growth-search-rerank-prod-38", "-o", "yaml"}},
		{"savings-sample-model.txt", []string{"savings", "--calls", sample, "--month", "2026-10", "--by", "model,host"}},
		{"savings-sample-team.csv", []string{"savings", "--calls", sample, "--month", "2026-10", "--tz", "Asia/Shanghai", "--by", "team", "-o", "csv"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tt.args...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr: %s", code, errs)
			}
			golden(t, tt.name, out)
		})
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring expected on stdout, or anyOutput
		stderr string // substring expected on stderr, or anyOutput
	}{
		{"version", []string{"version"}, exitOK, "tokenfare " + buildVersion() + "\n", anyOutput},
		{"--version", []string{"--version"}, exitOK, "tokenfare " + buildVersion() + "\n", anyOutput},
		{"summarized /spend/logs refused", []string{"reconcile", "--calls", "../../testdata/litellm/spendlogs-summarized.json"}, exitUsage,
			anyOutput, "summarize=false"},
		{"validate embedded catalog", []string{"tariffs", "validate"}, exitOK, "ok: ", anyOutput},
		{"validate finds every problem", []string{"tariffs", "validate", "testdata/badtariffs"}, exitFindings,
			"testdata/badtariffs/bad.yaml:3: timezone \"Nowhere/Land\" is not an IANA time zone", "error(s) in 1 file(s)"},
		{"validate reports the negative price too", []string{"tariffs", "validate", "testdata/badtariffs/bad.yaml"}, exitFindings,
			"bad.yaml:15: m standard output price -2 is negative", anyOutput},
		{"show with a bad tariff folder is bad input", []string{"tariffs", "show", "m", "--tariffs", "testdata/badtariffs"}, exitUsage,
			anyOutput, "bad.yaml:12: version 2026-01-01T00:00:00Z: period \"peak\": window \"10:00-10:00\" starts where it ends"},
		{"missing tariff folder", []string{"tariffs", "list", "--tariffs", "testdata/nope"}, exitUsage, anyOutput, "testdata/nope: cannot read tariffs: no such file or directory"},
		{"unknown model", []string{"tariffs", "show", "gpt-9"}, exitUsage, anyOutput, "no tariff model is named \"gpt-9\""},
		{"bad instant", []string{"tariffs", "show", "deepseek-flash", "--at", "yesterday"}, exitUsage, anyOutput, "--at \"yesterday\" is not an instant"},
		{"unknown flag", []string{"tariffs", "list", "--colour"}, exitUsage, anyOutput, "unknown flag"},
		{"list", []string{"tariffs", "list"}, exitOK, "deepseek-flash", anyOutput},
		{"price offers no yaml", []string{"price", "--calls", sample, "-o", "yaml"}, exitUsage, anyOutput, "Try: use -o table, -o csv, -o json"},
		{"unknown format", []string{"tariffs", "list", "-o", "xml"}, exitUsage, anyOutput, `unknown output format "xml"`},
		{"completion of --by", []string{"__complete", "reconcile", "--by", "model,d"}, exitOK, "model,day", anyOutput},
		{"completion of models", []string{"__complete", "tariffs", "show", ""}, exitOK, "deepseek-flash", anyOutput},
		{"completion of --mode", []string{"__complete", "blend", "--mode", ""}, exitOK, "gateway", anyOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errs)
			}
			checkContains(t, "stdout", out, tt.stdout)
			checkContains(t, "stderr", errs, tt.stderr)
		})
	}
}

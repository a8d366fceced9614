package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckAccept: a comment accepting a rule for an entry turns the
// entry's finding into an accepted one and the check passes; the same
// config without it fails; a faulty comment fails; an unused one warns.
func TestCheckAccept(t *testing.T) {
	const entry = `model_list:
%s  - model_name: deepseek-flash
    litellm_params:
      model: deepseek/deepseek-flash
    model_info:
      input_cost_per_token: 1.4e-7%s
      output_cost_per_token: 1.2e-6
`
	tests := []struct {
		name           string
		above, after   string
		code           int
		accepted, warn int
		want           string
	}{
		{name: "no comment", code: exitFindings, want: "finding: price-bounds: deepseek-flash"},
		{name: "the entry accepted", above: "  # tokenfare:accept price-bounds our contract's rate, below the list price\n", code: exitOK, accepted: 1,
			want: "accepted: price-bounds: deepseek-flash: model_info.input_cost_per_token 1.4e-7 (want 1.5e-7 .. 3.0e-7): "},
		{name: "the value accepted", after: " # tokenfare:accept price-bounds contract rate", code: exitOK, accepted: 1,
			want: "[accepted at line 6: contract rate]"},
		{name: "another rule accepted", above: "  # tokenfare:accept zero-price no zero here\n", code: exitFindings, warn: 1,
			want: "warning: accept: "},
		{name: "no reason", above: "  # tokenfare:accept price-bounds\n", code: exitFindings, want: "finding: accept: "},
		{name: "a rule of the other gateway", above: "  # tokenfare:accept single-key-cooling why not\n", code: exitFindings,
			want: `"single-key-cooling" is no rule of check`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, []byte(strings.Replace(strings.Replace(entry, "%s", tt.above, 1), "%s", tt.after, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLI(t, "", "check", "--tariffs", gwTariffs, "--at", "2026-11-02", "--config", path)
			if code != tt.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, tt.code, out, errs)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
			_, js, _ := runCLI(t, "", "check", "--tariffs", gwTariffs, "--at", "2026-11-02", "--config", path, "-o", "json")
			var doc struct{ Warnings, Accepted int }
			if err := json.Unmarshal([]byte(js), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Accepted != tt.accepted || doc.Warnings != tt.warn {
				t.Errorf("accepted %d, warnings %d; want %d, %d", doc.Accepted, doc.Warnings, tt.accepted, tt.warn)
			}
		})
	}
}

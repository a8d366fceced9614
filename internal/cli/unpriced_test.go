package cli

import (
	"strings"
	"testing"
)

// TestUnpricedQuantitiesNoted: a call's quantities its tariff does not
// price are named on stderr, whatever the command's output: the embedded
// catalog's claude-sonnet-4-5 of October 2026 lists no region "eu".
func TestUnpricedQuantitiesNoted(t *testing.T) {
	in := `{"start":"2026-10-12T01:00:00Z","model":"claude-sonnet-4-5","input_tokens":1000,"output_tokens":100,"region":"eu"}` + "\n"
	code, _, stderr := runCLI(t, in, "price", "--calls", "-", "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "note: quantities the tariffs do not price") || !strings.Contains(stderr, "claude-sonnet-4-5 region eu 1 calls") {
		t.Errorf("stderr %q, want a note naming claude-sonnet-4-5 region eu 1 calls", stderr)
	}
}

// TestShowServiceTiers: tariffs show lists a model's service tiers and
// regions, as multipliers or rates of their own.
func TestShowServiceTiers(t *testing.T) {
	code, out, errs := runCLI(t, "", "tariffs", "show", "gpt-test", "--tariffs", "testdata/modifiers/acme.yaml", "--at", "2026-10-01T00:00:00Z")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"flex                   × 0.5 of the token prices", "priority               rates of its own:",
		"priority: standard                5          0.5", "region eu              × 1.1 of the token prices", "web_search"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

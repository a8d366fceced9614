package gateway

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const acceptConfig = `model_list:
  # tokenfare:accept health-check probes are free under our enterprise contract
  - model_name: gpt-4o
    litellm_params:
      model: openai/gpt-4o

      input_cost_per_token: 2.5e-6
  - model_name: claude
    litellm_params:
      model: anthropic/claude-sonnet-4-5
      input_cost_per_token: 3e-6 # tokenfare:accept price-format,price-bounds read by our own loader
      output_cost_per_token: 1.5e-5
router_settings: # tokenfare:accept cooldown one deployment on purpose: a failover region
  cooldown_time: 60
  allowed_fails: 1
litellm_settings:
  num_retries: 0 # tokenfare:accept rate-limit-retry
  x: 1 # tokenfare:accept no-such-rule because
  y: 2 #tokenfare:accept zero-price nothing here is priced at zero
  z: "a # tokenfare:accept string"
`

func TestAccept(t *testing.T) {
	rules := []string{"health-check", "price-format", "price-bounds", "cooldown", "rate-limit-retry", "zero-price"}
	tests := []struct {
		name string
		f    Finding
		want string // severity, and the comment's line when accepted
	}{
		{name: "entry line, comment above", f: Finding{Rule: "health-check", Line: 3}, want: "accepted@2"},
		{name: "deep in the entry, past a blank line", f: Finding{Rule: "health-check", Line: 7}, want: "accepted@2"},
		{name: "another rule on the entry", f: Finding{Rule: "price-bounds", Line: 7}, want: "finding"},
		{name: "the next entry is not covered", f: Finding{Rule: "health-check", Line: 8}, want: "finding"},
		{name: "trailing comment, first of two rules", f: Finding{Rule: "price-format", Line: 11}, want: "accepted@11"},
		{name: "trailing comment, second rule", f: Finding{Rule: "price-bounds", Line: 11}, want: "accepted@11"},
		{name: "trailing comment covers only its line", f: Finding{Rule: "price-format", Line: 12}, want: "finding"},
		{name: "a key's block", f: Finding{Rule: "cooldown", Line: 14}, want: "accepted@13"},
		{name: "a key's block, warning", f: Finding{Rule: "cooldown", Line: 15, Severity: Warning}, want: "accepted@13"},
		{name: "no reason accepts nothing", f: Finding{Rule: "rate-limit-retry", Line: 17}, want: "finding"},
		{name: "another file", f: Finding{Rule: "cooldown", Line: 14, File: "other.yaml"}, want: "finding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.f.File == "" {
				tt.f.File = "config.yaml"
			}
			got := Accept("config.yaml", []byte(acceptConfig), []Finding{tt.f}, rules)
			var g string
			for _, f := range got {
				if f.Rule == tt.f.Rule && f.Line == tt.f.Line {
					g = f.Severity.String()
					if f.Severity == Accepted {
						g += fmt.Sprintf("@%d", f.AcceptedAt)
						if f.Reason == "" {
							t.Errorf("accepted without a reason")
						}
					}
				}
			}
			if g != tt.want {
				t.Errorf("got %s, want %s", g, tt.want)
			}
		})
	}
}

// TestAcceptComments: faulty comments are problems and unused ones
// warnings, each at the comment's line; a # inside a quoted string is no
// comment.
func TestAcceptComments(t *testing.T) {
	rules := []string{"health-check", "price-format", "price-bounds", "cooldown", "rate-limit-retry", "zero-price"}
	used := []Finding{
		{Rule: "health-check", File: "config.yaml", Line: 3},
		{Rule: "price-format", File: "config.yaml", Line: 11},
		{Rule: "cooldown", File: "config.yaml", Line: 14},
	}
	var got []string
	for _, f := range Accept("config.yaml", []byte(acceptConfig), used, rules) {
		if f.Rule == RuleAccept {
			got = append(got, fmt.Sprintf("%d %s: %s", f.Line, f.Severity, f.Message))
		}
	}
	want := []string{
		"17 finding: the comment gives no reason: write # tokenfare:accept rate-limit-retry REASON",
		`18 finding: "no-such-rule" is no rule of check (tokenfare check --help lists them)`,
		"19 warning: accepts no zero-price finding on lines 19-19: remove the comment",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAcceptManyComments: 160,000 acceptance comments above one entry
// are read in time in proportion to the lines (53 s when each comment
// looked ahead over all those after it): the first accepts the entry's
// finding, each of the others is reported as accepting nothing.
func TestAcceptManyComments(t *testing.T) {
	const n = 160_000
	var b strings.Builder
	b.WriteString("model_list:\n")
	for range n {
		b.WriteString("  # tokenfare:accept health-check probes are free under our contract\n")
	}
	b.WriteString("  - model_name: gpt-4o\n    litellm_params:\n      model: openai/gpt-4o\n")
	entry := n + 2 // the line of "- model_name"
	start := time.Now()
	got := Accept("config.yaml", []byte(b.String()), []Finding{{Rule: "health-check", File: "config.yaml", Line: entry + 2}}, []string{"health-check"})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v, want well under 10 s", d)
	}
	accepted, unused := 0, 0
	for _, f := range got {
		switch {
		case f.Severity == Accepted && f.AcceptedAt == 2:
			accepted++
		case f.Rule == RuleAccept && f.Severity == Warning:
			unused++
		}
	}
	if accepted != 1 || unused != n-1 {
		t.Errorf("%d accepted by the first comment, %d comments unused; want 1 and %d", accepted, unused, n-1)
	}
}

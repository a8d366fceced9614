package tariffs

import "testing"

const oneVersion = "versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n"

func TestFailedCallsProblems(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string
	}{
		{
			name: "billed without a source",
			file: head + "failed_calls: {billing: billed_reported_tokens}\n" + oneVersion,
			want: []string{`t.yaml:10: failed_calls: billing billed_reported_tokens needs a source: the provider's page that says failed calls are billed`},
		},
		{
			name: "unknown policy",
			file: head + "failed_calls: {billing: sometimes, source: https://example.com}\n" + oneVersion,
			want: []string{`t.yaml:10: failed_calls: unknown failed-call billing "sometimes" (want not_billed or billed_reported_tokens)`},
		},
		{
			name: "source that is no URL",
			file: head + "failed_calls: {billing: billed_reported_tokens, source: the docs}\n" + oneVersion,
			want: []string{`t.yaml:10: failed_calls: source "the docs" is not a URL`},
		},
		{
			name: "policy missing",
			file: head + "failed_calls: {source: https://example.com}\n" + oneVersion,
			want: []string{`t.yaml:10: failed_calls billing is required`},
		},
		{
			name: "unknown key inside",
			file: head + "failed_calls: {billing: not_billed, refund: yes}\n" + oneVersion,
			want: []string{`t.yaml:10: unknown key "refund"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkParseProblems(t, tt.file, tt.want)
		})
	}
}

func TestFailedCallsPolicy(t *testing.T) {
	tests := []struct {
		name   string
		extra  string
		billed bool
		source string
	}{
		{name: "default: not billed", extra: ""},
		{name: "stated not billed", extra: "failed_calls: {billing: not_billed, source: https://example.com}\n", source: "https://example.com"},
		{name: "billed for the tokens reported", extra: "failed_calls:\n  billing: billed_reported_tokens\n  source: https://example.com\n", billed: true, source: "https://example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, probs := Parse("t.yaml", []byte(head+tt.extra+oneVersion))
			if len(probs.Errors()) > 0 {
				t.Fatalf("problems: %v", probs)
			}
			if got := p.FailedCalls; got.Billed() != tt.billed || got.Source != tt.source {
				t.Errorf("failed calls = %+v (billed %t), want billed %t source %q", got, got.Billed(), tt.billed, tt.source)
			}
		})
	}
}

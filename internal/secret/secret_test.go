package secret

import "testing"

// TestSecretsInDiffs checks the contract "no secret reaches a diff or a
// message": secret keys' values and values that look like keys are
// masked; environment references, prices and names stay.
func TestSecretsInDiffs(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"api_key", "      api_key: abc123def456", "      api_key: " + Mask},
		{"quoted", `  master_key: "mk-9f8e7d"`, "  master_key: " + Mask},
		{"token suffix", "  github_token: ghp_abc", "  github_token: " + Mask},
		{"secret suffix", "  aws_secret_access_key: wJalrXUtnFEMI", "  aws_secret_access_key: " + Mask},
		{"password", " password: hunter2", " password: " + Mask},
		{"header", "  Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x", "  Authorization: Bearer " + Mask},
		{"flow mapping", "  litellm_params: {model: x, api_key: sk-live-abcdef123, rpm: 5}", "  litellm_params: {model: x, api_key: " + Mask + ", rpm: 5}"},
		{"sk value under any key", "  note: sk-proj-abcdefgh1234", "  note: " + Mask},
		{"url password", "  database_url: postgres://litellm:s3cr3t@db:5432/litellm", "  database_url: postgres://litellm:" + Mask + "@db:5432/litellm"},
		{"long base64", "  extra: dGhpcyBpcyBhIHNlY3JldCBrZXkgdmFsdWU0Mg==", "  extra: " + Mask},
		{"aws key id", "  id: AKIAIOSFODNN7EXAMPLE", "  id: " + Mask},
		{"env reference stays", "      api_key: os.environ/DEEPSEEK_API_KEY", "      api_key: os.environ/DEEPSEEK_API_KEY"},
		{"price stays", "      input_cost_per_token: 2.5e-7", "      input_cost_per_token: 2.5e-7"},
		{"max tokens stays", "      max_tokens: 4096", "      max_tokens: 4096"},
		{"names stay", "  - model_name: deepseek-flash", "  - model_name: deepseek-flash"},
		{"diff marker kept", "-      api_key: abc", "-      api_key: " + Mask},
		{"price key with digits stays", "+      cache_creation_input_token_cost_above_1hr: 6.0e-6", "+      cache_creation_input_token_cost_above_1hr: 6.0e-6"},
		{"tier price key stays", "-      input_cost_per_token_above_200k_tokens: 6.0e-6", "-      input_cost_per_token_above_200k_tokens: 6.0e-6"},
		{"reasoning price stays", "      output_cost_per_reasoning_token: 1.0e-5", "      output_cost_per_reasoning_token: 1.0e-5"},
		{"quoted price key stays", `  "output_cost_per_token_above_200k_tokens": 2.25e-5`, `  "output_cost_per_token_above_200k_tokens": 2.25e-5`},
		{"dated model stays", "      model: anthropic/claude-sonnet-4-5-20250929", "      model: anthropic/claude-sonnet-4-5-20250929"},
		{"flow price keys stay, key masked", "  litellm_params: {cache_creation_input_token_cost_above_1hr: 6e-6, api_key: abcdef123}",
			"  litellm_params: {cache_creation_input_token_cost_above_1hr: 6e-6, api_key: " + Mask + "}"},
		{"hex value masked", "  model_id: f8b6966aa72981f666f400fb1a6e0e0808de6327", "  model_id: " + Mask},
		{"base64url value with dashes masked", "  extra: dGhpcyBpc-yBhIHNlY3Jld_CBrZXkgdmFsdWU0Mg", "  extra: " + Mask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in); got != tt.want {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestTextLeavesHashes checks that messages keep key hashes and ids,
// which are no secrets, while API keys are masked.
func TestTextLeavesHashes(t *testing.T) {
	hash := "f8b6966aa72981f666f400fb1a6e0e0808de63273f14b51e588f26fe1f960f43"
	if got := maskText("key " + hash + " of sk-team-alpha-2f7c91"); got != "key "+hash+" of "+Mask {
		t.Errorf("maskText = %q", got)
	}
}

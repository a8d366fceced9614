package ledger

import (
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/tariffs"
)

func TestLiteLLMHost(t *testing.T) {
	tests := []struct {
		name                         string
		provider, model, base, group string
		want                         string
	}{
		{"provider first", "azure", "gpt-4o", "https://api.openai.com/v1", "gpt-4o", "azure"},
		{"provider alias", "bedrock_converse", "us.anthropic.claude-sonnet-4-6", "", "", "bedrock"},
		{"model prefix", "", "vertex_ai/claude-sonnet-4-6", "", "", "vertex_ai"},
		{"unknown prefix is no host", "", "acme/gpt-4o", "", "", ""},
		{"api_base: Azure OpenAI", "", "gpt-4o", "https://myco.openai.azure.com/", "", "azure"},
		{"api_base: Azure API Management", "", "gpt-4o", "https://myco.azure-api.net/openai", "", "azure"},
		{"api_base: Azure cognitive services", "", "gpt-4o", "https://myco.cognitiveservices.azure.com", "", "azure"},
		{"api_base: Azure AI Foundry", "", "deepseek-v4-pro", "https://myco.services.ai.azure.com/models", "", "azure_ai"},
		{"api_base: Bedrock runtime", "", "us.anthropic.claude-sonnet-4-6", "https://bedrock-runtime.eu-west-1.amazonaws.com", "", "bedrock"},
		{"api_base: Vertex regional", "", "claude-sonnet-4-6", "https://us-east5-aiplatform.googleapis.com/v1", "", "vertex_ai"},
		{"api_base: Gemini API", "", "gemini-2.5-flash", "https://generativelanguage.googleapis.com", "", "gemini"},
		{"api_base: OpenRouter", "", "deepseek/deepseek-v4-pro", "https://openrouter.ai/api/v1", "", "openrouter"},
		{"api_base: DeepSeek", "", "deepseek-v4-pro", "https://api.deepseek.com", "", "deepseek"},
		{"api_base: OpenAI regional", "", "gpt-4o", "https://eu.api.openai.com/v1", "", "openai"},
		{"api_base: Anthropic", "", "claude-sonnet-4-6", "https://api.anthropic.com", "", "anthropic"},
		{"api_base: Together", "", "deepseek-ai/DeepSeek-V4-Pro", "https://api.together.xyz/v1", "", "together_ai"},
		{"api_base: GitHub Models", "", "gpt-4o", "https://models.github.ai/inference", "", "github"},
		{"api_base: GitHub Models, old endpoint", "", "gpt-4o", "https://models.inference.ai.azure.com", "", "github"},
		{"api_base without scheme", "", "gpt-4o", "myco.openai.azure.com", "", "azure"},
		{"OpenAI-compatible route: api_base decides", "openai", "openai/deepseek-v4-pro", "https://api.deepseek.com/v1", "", "deepseek"},
		{"OpenAI-compatible route to a private endpoint: no host", "openai", "openai/gpt-4o", "http://relay.internal:4000", "gpt-4o", ""},
		{"OpenAI's own api_base", "openai", "gpt-4o", "https://api.openai.com/v1", "", "openai"},
		{"a first party's route to another host: api_base decides", "anthropic", "anthropic/claude-sonnet-4-6", "https://myco.services.ai.azure.com/anthropic", "", "azure_ai"},
		{"a first party's route through a relay: the first party", "anthropic", "claude-sonnet-4-6", "https://relay.internal/anthropic", "", "anthropic"},
		{"a cloud's provider is never overridden", "bedrock", "us.anthropic.claude-sonnet-4-6", "https://relay.internal", "", "bedrock"},
		{"an unknown api_base, then the group", "", "my-deployment", "http://10.0.0.5:8000", "azure/gpt-4o", "azure"},
		{"a host look-alike is no host", "", "gpt-4o", "https://openai.azure.com.evil.example", "", ""},
		{"nothing logged", "", "gpt-4o", "", "gpt-4o", ""},
	}
	var urls urlHosts // shared, as a reader's rows share it
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LiteLLMHost(tt.provider, tt.model, tt.base, tt.group); got != tt.want {
				t.Errorf("LiteLLMHost(%q, %q, %q, %q) = %q, want %q", tt.provider, tt.model, tt.base, tt.group, got, tt.want)
			}
			for try := range 2 { // parsed, then remembered
				if got := liteLLMHost(tt.provider, tt.model, tt.base, tt.group, &urls); got != tt.want {
					t.Errorf("try %d: liteLLMHost(%q, %q, %q, %q) with the reader's cache = %q, want %q", try+1, tt.provider, tt.model, tt.base, tt.group, got, tt.want)
				}
			}
		})
	}
	// A reader's cache of decisions, shared by every row: the cases one
	// after the other, three times, in strings of their own each time (as
	// values beyond the interner's bound come), so that slots are reused
	// by inputs that differ and hit by inputs that are equal.
	var hosts hostCache
	for pass := range 3 {
		for _, tt := range tests {
			provider, model, base, group := strings.Clone(tt.provider), strings.Clone(tt.model), strings.Clone(tt.base), strings.Clone(tt.group)
			if pass == 1 { // the same strings as the first pass: hits
				provider, model, base, group = tt.provider, tt.model, tt.base, tt.group
			}
			if got := hosts.of(provider, model, base, group, &urls); got != tt.want {
				t.Errorf("pass %d: %s: the cache of decisions says %q, want %q", pass+1, tt.name, got, tt.want)
			}
		}
	}
}

func TestCLIProxyHost(t *testing.T) {
	tests := []struct{ provider, executor, want string }{
		{"claude", "ClaudeExecutor", "anthropic"},
		{"codex", "CodexExecutor", "openai"},
		{"gemini", "GeminiExecutor", "gemini"},
		{"aistudio", "AIStudioExecutor", "gemini"},
		{"vertex", "GeminiVertexExecutor", "vertex_ai"},
		{"OpenRouter", "OpenAICompatExecutor", "openrouter"}, // an openai-compatibility entry's name, lowercased
		{"my-azure", "OpenAICompatExecutor", "my-azure"},
		// Since v7.2.21 the entry's records say "openai-compatible-<name>"
		// (testdata/cliproxy-real): the name is the host all the same.
		{"openai-compatible-openrouter", "OpenAICompatExecutor", "openrouter"},
		{"openai-compatible-deepseek", "OpenAICompatExecutor", "deepseek"},
		{"openai-compatible-together", "OpenAICompatExecutor", "together_ai"},
		{"openai-compatible-groq", "OpenAICompatExecutor", "groq"},
		{"openai-compatibility", "OpenAICompatExecutor", ""}, // an entry with no name
		{"", "ClaudeExecutor", "anthropic"},
		{"", "GeminiVertexExecutor", "vertex_ai"},
		{"", "OpenAICompatExecutor", ""},
		{"", "", ""}, // v6 exports name neither: see CLIProxyV6Host
	}
	for _, tt := range tests {
		if got := CLIProxyHost(tt.provider, tt.executor); got != tt.want {
			t.Errorf("CLIProxyHost(%q, %q) = %q, want %q", tt.provider, tt.executor, got, tt.want)
		}
	}
}

func TestCLIProxyV6Host(t *testing.T) {
	tests := []struct{ name, model, want string }{
		{"own Claude executor", "claude-sonnet-4-6", ""},
		{"own Gemini executor", "gemini-3.1-pro-preview", ""},
		{"own Codex executor", "gpt-5.4", ""},
		{"an entry with a bare name: indistinguishable", "deepseek-v4-pro", ""},
		{"a first-party vendor through a relay", "deepseek/deepseek-v4-pro", tariffs.UnknownHost},
		{"another vendor", "anthropic/claude-sonnet-4.6", tariffs.UnknownHost},
		{"a vendor no host is named after", "deepseek-ai/DeepSeek-V4-Pro", tariffs.UnknownHost},
		{"a host's own prefix", "openrouter/auto", tariffs.UnknownHost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CLIProxyV6Host(tt.model); got != tt.want {
				t.Errorf("CLIProxyV6Host(%q) = %q, want %q", tt.model, got, tt.want)
			}
		})
	}
}

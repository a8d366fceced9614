package tariffs

import (
	"maps"
	"net/url"
	"slices"
	"strings"
)

// A host is who served a call and bills it: a model's own maker (a first
// party: openai, anthropic, gemini, deepseek) or a cloud or reseller that
// serves other makers' models at prices of its own (azure, bedrock, ...).
// Host names are lowercase and spelled as LiteLLM spells its providers, so
// that a LiteLLM model prefix ("azure/", "bedrock/") is its host's name.

// Hosts tokenfare recognises in gateway logs. First parties are true.
var knownHosts = map[string]bool{
	"openai":      true,
	"anthropic":   true,
	"gemini":      true,
	"deepseek":    true,
	"azure":       false, // Azure OpenAI
	"azure_ai":    false, // Azure AI Foundry (models sold by Azure)
	"bedrock":     false, // AWS Bedrock
	"vertex_ai":   false, // Google Cloud Vertex AI
	"openrouter":  false,
	"together_ai": false,
	"github":      false, // GitHub Models
	"dashscope":   false, // Alibaba Cloud Model Studio (DashScope)
}

// hostAliases are other names gateways log for a known host: LiteLLM's
// route variants and CLIProxyAPI's provider names.
var hostAliases = map[string]string{
	"text-completion-openai": "openai",
	"azure_text":             "azure",
	"bedrock_converse":       "bedrock",
	"vertex_ai_beta":         "vertex_ai",
	"vertex":                 "vertex_ai", // CLIProxyAPI vertex-api-key
	"claude":                 "anthropic", // CLIProxyAPI claude-api-key and Claude OAuth
	"codex":                  "openai",    // CLIProxyAPI codex-api-key and Codex OAuth
	"aistudio":               "gemini",    // CLIProxyAPI AI Studio
	"gemini-cli":             "gemini",
	"google":                 "gemini",
	"together":               "together_ai",
}

// UnknownHost is the host of a call that was served by some host its
// record does not name, where taking the first party's list would guess:
// a CLIProxyAPI v6 export names no provider, and a "vendor/model" name
// there comes from an openai-compatibility entry (a relay such as
// OpenRouter). No tariff file may list it, so such calls stay unpriced.
const UnknownHost = "unknown"

// KnownHost reports whether h is a host name tokenfare recognises.
func KnownHost(h string) bool {
	_, ok := knownHosts[h]
	return ok
}

// FirstPartyHost reports whether h is a known model maker's own API.
func FirstPartyHost(h string) bool { return knownHosts[h] }

// KnownHosts returns the known host names, first parties first, each group
// in name order.
func KnownHosts() []string {
	hs := slices.Collect(maps.Keys(knownHosts))
	slices.SortFunc(hs, func(a, b string) int {
		if knownHosts[a] != knownHosts[b] {
			if knownHosts[a] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return hs
}

// NormalizeHost returns the host a gateway's provider name stands for:
// lowercase, trimmed, a known alias replaced by its host; "" for none.
func NormalizeHost(name string) string {
	h := strings.ToLower(strings.TrimSpace(name))
	if a, ok := hostAliases[h]; ok {
		return a
	}
	return h
}

// HostOfPrefix returns the known host that model's first path segment
// names ("azure/gpt-4o" → "azure"), or "".
func HostOfPrefix(model string) string {
	i := strings.IndexByte(model, '/')
	if i <= 0 {
		return ""
	}
	if h := NormalizeHost(model[:i]); KnownHost(h) {
		return h
	}
	return ""
}

// urlHosts maps the end of an API base URL's host name to a host, most
// specific first.
var urlHosts = []struct{ suffix, host string }{
	{"models.inference.ai.azure.com", "github"},
	{"models.github.ai", "github"},
	{"services.ai.azure.com", "azure_ai"},
	{"models.ai.azure.com", "azure_ai"},
	{"openai.azure.com", "azure"},
	{"azure-api.net", "azure"},
	{"cognitiveservices.azure.com", "azure"},
	{"aiplatform.googleapis.com", "vertex_ai"},
	{"generativelanguage.googleapis.com", "gemini"},
	{"openrouter.ai", "openrouter"},
	{"api.deepseek.com", "deepseek"},
	{"api.openai.com", "openai"}, // eu.api.openai.com and us.api.openai.com too
	{"api.anthropic.com", "anthropic"},
	{"api.together.xyz", "together_ai"},
	{"api.together.ai", "together_ai"},
}

// HostOfURL returns the known host an API base URL points at, or "" when
// it names none (a private proxy, a local server). Bedrock's runtime
// endpoints are bedrock-runtime.<region>.amazonaws.com (and the FIPS
// variants).
func HostOfURL(apiBase string) string {
	s := strings.TrimSpace(apiBase)
	if s == "" {
		return ""
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	name := strings.ToLower(u.Hostname())
	for _, h := range urlHosts {
		if name == h.suffix || strings.HasSuffix(name, "."+h.suffix) {
			return h.host
		}
	}
	switch {
	case strings.HasPrefix(name, "bedrock-runtime") && strings.HasSuffix(name, ".amazonaws.com"):
		return "bedrock"
	case strings.HasSuffix(name, "-aiplatform.googleapis.com"): // regional: us-east5-aiplatform...
		return "vertex_ai"
	}
	return ""
}

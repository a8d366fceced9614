package ledger

import (
	"strings"
	"unsafe"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Which host served a call is decided from what its gateway logged, in an
// order per format (docs/calls.md, "The host"). Hosts are spelled as
// tariffs.NormalizeHost spells them; "" means nothing logged says.

// openAICompatible are LiteLLM providers that name a protocol, not a
// host: the call went to whatever api_base points at.
var openAICompatible = map[string]bool{
	"openai": true, "openai_like": true, "custom_openai": true, "hosted_vllm": true, "litellm_proxy": true,
}

// LiteLLMHost decides the host of a LiteLLM call from its SpendLogs
// columns: custom_llm_provider, then a known host as the model's prefix,
// then the host api_base points at, then a known host as the model
// group's prefix. A first party so named (openai/, anthropic/, ...) is a
// route LiteLLM also uses to reach other hosts, so an api_base naming
// another known host wins over it (openai/deepseek-chat with api_base
// https://api.deepseek.com is DeepSeek's call); and an OpenAI-compatible
// route (openai, openai_like, hosted_vllm, ...) to an api_base no host is
// known by names no host.
func LiteLLMHost(provider, model, apiBase, group string) string {
	return liteLLMHost(provider, model, apiBase, group, nil)
}

// liteLLMHost is LiteLLMHost with api_base hosts looked up in urls, which
// a row reader keeps so that an API base is parsed once, not once a row;
// nil parses every time.
func liteLLMHost(provider, model, apiBase, group string, urls *urlHosts) string {
	h := tariffs.NormalizeHost(provider)
	if h == "" {
		h = tariffs.HostOfPrefix(model)
	}
	if apiBase != "" && (h == "" || tariffs.FirstPartyHost(h) || openAICompatible[h]) {
		switch u := urls.of(apiBase); {
		case u != "":
			return u
		case openAICompatible[h]:
			return ""
		}
	}
	if h == "" {
		h = tariffs.HostOfPrefix(group)
	}
	return h
}

// hostCache remembers the hosts liteLLMHost decided for the last
// combinations of its four inputs, so that a row whose provider, model,
// API base and model group were seen lately costs four string comparisons
// (the interner makes repeated values one string, which compares at
// once) instead of the lower-casing and map look-ups of the decision.
type hostCache struct {
	slots [64]hostEntry
}

type hostEntry struct {
	provider, model, apiBase, group, host string
	set                                   bool
}

// of returns liteLLMHost(provider, model, apiBase, group, urls).
func (hc *hostCache) of(provider, model, apiBase, group string, urls *urlHosts) string {
	// The slot is picked by where the strings are: interned values stay
	// put. Which slot does not matter for the result, only for how often
	// the cache hits: every input is compared before a host is reused.
	h := uint64(addr(model))*0x9E3779B97F4A7C15 ^ uint64(addr(provider)) ^ uint64(addr(group))>>3 ^ uint64(addr(apiBase))>>5
	e := &hc.slots[(h^h>>29)&63]
	if e.set && e.model == model && e.provider == provider && e.apiBase == apiBase && e.group == group {
		return e.host
	}
	host := liteLLMHost(provider, model, apiBase, group, urls)
	*e = hostEntry{provider: provider, model: model, apiBase: apiBase, group: group, host: host, set: true}
	return host
}

// addr is where s's bytes are.
func addr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }

// urlHosts remembers tariffs.HostOfURL by API base. Like the interner it
// is forgotten once it holds maxInterned values.
type urlHosts map[string]string

// of returns tariffs.HostOfURL(apiBase), parsing apiBase only the first
// time; a nil *urlHosts parses every time.
func (m *urlHosts) of(apiBase string) string {
	if m == nil {
		return tariffs.HostOfURL(apiBase)
	}
	if h, ok := (*m)[apiBase]; ok {
		return h
	}
	if *m == nil || len(*m) >= maxInterned {
		*m = make(urlHosts)
	}
	h := tariffs.HostOfURL(apiBase)
	(*m)[apiBase] = h
	return h
}

// cliproxyExecutors are CLIProxyAPI executor types (Go type names) whose
// host is not their name less "Executor".
var cliproxyExecutors = map[string]string{
	"GeminiVertexExecutor": "vertex_ai",
	"GeminiCLIExecutor":    "gemini",
	"OpenAICompatExecutor": "", // the entry's name is in provider, not here
}

// cliproxyCompatPrefix starts the provider of an openai-compatibility
// entry's records since CLIProxyAPI v7.2.21 ("openai-compatible-openrouter"
// for the entry named OpenRouter); earlier records carry the lowercased
// name alone. An entry with no name logs "openai-compatibility".
const cliproxyCompatPrefix = "openai-compatible-"

// CLIProxyHost decides the host of a CLIProxyAPI v7 record: its provider
// (claude → anthropic, codex → openai, vertex → vertex_ai, aistudio →
// gemini; an openai-compatibility entry's lowercased name, with or without
// the "openai-compatible-" its records put before it, is that name as
// host), else its executor_type. v6 exports name neither: see
// CLIProxyV6Host.
func CLIProxyHost(provider, executor string) string {
	p := strings.ToLower(strings.TrimSpace(provider))
	if p == "openai-compatibility" {
		return "" // an unnamed entry: the protocol, not a host
	}
	if h := tariffs.NormalizeHost(strings.TrimPrefix(p, cliproxyCompatPrefix)); h != "" {
		return h
	}
	if h, ok := cliproxyExecutors[executor]; ok {
		return h
	}
	return tariffs.NormalizeHost(strings.TrimSuffix(executor, "Executor"))
}

// CLIProxyV6Host decides the host of a CLIProxyAPI v6 export's call from
// its model name alone, for the export names no provider. CLIProxyAPI's
// own executors (Claude, Gemini, Codex) call bare model names: "", the
// first party's own list. A "vendor/model" name is an openai-compatibility
// entry's, a relay the export does not name (OpenRouter, Together, ...):
// tariffs.UnknownHost, never the vendor's own list. A bare name sent
// through an entry is indistinguishable and taken as the first party's.
func CLIProxyV6Host(model string) string {
	if strings.Contains(model, "/") {
		return tariffs.UnknownHost
	}
	return ""
}

package pricing_test

import (
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestHostsPriced prices calls as LiteLLM and CLIProxyAPI log them for
// each host, against the test lists of testdata/hosts/tariffs (per 1M
// tokens, input / output): openai gpt-4o 2.50 / 10; azure gpt-4o 2.75 /
// 11; anthropic claude-sonnet-4-6 3 / 15; bedrock geo profiles 3.30 /
// 16.50, global 3 / 15; gemini-2.5-flash 0.30 / 2.50; deepseek-v4-pro
// 0.435 / 0.87; openrouter deepseek/deepseek-v4-pro 1.74 / 3.48; no list
// for azure_ai, vertex_ai, together_ai, github. Every call has 1M input
// and 100k output tokens: cost = input + output / 10.
func TestHostsPriced(t *testing.T) {
	cat, ps := tariffs.Load("../testdata/hosts/tariffs")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	type want struct {
		model string // tariff model id; "" for unpriced
		cost  string
	}
	const openai, azure, anthropic = "3.5", "3.85", "4.5" // 2.50 + 1; 2.75 + 1.10; 3 + 1.50
	wants := map[string]want{
		"lt-openai":          {"gpt-4o", openai},
		"lt-openai-eu":       {"gpt-4o", openai},                        // api_base eu.api.openai.com
		"lt-azure":           {"azure-gpt-4o", azure},                   // deployment name; the group names the model
		"lt-azure-apim":      {"azure-gpt-4o", azure},                   // no provider logged: api_base azure-api.net
		"lt-azure-ai":        {},                                        // Azure AI Foundry: no list, never DeepSeek's
		"lt-bedrock-geo":     {"bedrock-claude-sonnet-4-6-geo", "4.95"}, // 3.30 + 1.65
		"lt-bedrock-global":  {"bedrock-claude-sonnet-4-6-global", anthropic},
		"lt-vertex":          {},                                      // never Anthropic's
		"lt-openrouter":      {"openrouter-deepseek-v4-pro", "2.088"}, // 1.74 + 0.348
		"lt-together":        {},
		"lt-github":          {},                           // never OpenAI's
		"lt-github-legacy":   {},                           // api_base models.inference.ai.azure.com
		"lt-deepseek":        {"deepseek-v4-pro", "0.522"}, // 0.435 + 0.087
		"lt-deepseek-compat": {"deepseek-v4-pro", "0.522"}, // openai/ route, api_base api.deepseek.com
		"lt-anthropic":       {"claude-sonnet-4-6", anthropic},
		"lt-gemini":          {"gemini-2.5-flash", "0.55"}, // 0.30 + 0.25
		"lt-bare":            {"gpt-4o", openai},           // no host logged: first-party lists
		"lt-private":         {"gpt-4o", openai},           // openai/ to a private api_base: no host known
		"cpa-claude":         {"claude-sonnet-4-6", anthropic},
		"cpa-executor":       {"claude-sonnet-4-6", anthropic}, // no provider: ClaudeExecutor
		"cpa-codex":          {"gpt-4o", openai},
		"cpa-gemini":         {"gemini-2.5-flash", "0.55"},
		"cpa-vertex":         {}, // vertex-api-key: never the Gemini API's price
		"cpa-openrouter":     {"openrouter-deepseek-v4-pro", "2.088"},
		"cpa-deepseek":       {"deepseek-v4-pro", "0.522"}, // an openai-compatibility entry named deepseek
		"cpa-azure-compat":   {},                           // an entry named azure-east: a host no list prices
	}
	e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimModel}})
	seen := 0
	calls := hostCalls(t)
	for i := range calls {
		c := &calls[i]
		w, ok := wants[c.RequestID]
		if !ok {
			t.Fatalf("unexpected call %s", c.RequestID)
		}
		seen++
		pc := e.AddPriced(c)
		_, cost := pc.Cost(c)
		if w.model == "" {
			if pc.Outcome != pricing.Unpriced || pc.Quote.Model != nil {
				t.Errorf("%s (host %q): %s by %v, want unpriced", c.RequestID, c.Host, pc.Outcome, pc.Quote.Model)
			}
			continue
		}
		if pc.Outcome != pricing.Priced || pc.ModelName() != w.model || !cost.Equal(decimal.RequireFromString(w.cost)) {
			t.Errorf("%s (host %q): %s %s at %s, want priced %s at %s", c.RequestID, c.Host, pc.Outcome, pc.ModelName(), cost, w.model, w.cost)
		}
	}
	if seen != len(wants) {
		t.Errorf("read %d calls, want %d", seen, len(wants))
	}
	// The recorded spend of the unpriced calls, host by host (spend column
	// of spendlogs-hosts.csv; CLIProxyAPI records none).
	wantHosts := map[string]struct {
		calls  int64
		amount string
	}{
		"azure_ai": {1, "-0.5"}, "vertex_ai": {2, "-0.7"}, "together_ai": {1, "-0.2"}, "github": {2, "-0.2"}, "azure-east": {1, "0"},
	}
	got := 0
	for _, x := range e.Reconcile().Explanations {
		if x.Kind == pricing.KindUnpricedModel {
			t.Errorf("explained as an unpriced model: %+v", x)
		}
		if x.Kind != pricing.KindUnpricedHost {
			continue
		}
		got++
		w, ok := wantHosts[x.Host]
		if !ok || x.Calls != w.calls || !x.Amount.Equal(decimal.RequireFromString(w.amount)) || x.Model != "" {
			t.Errorf("explanation %+v, want host %q: %d calls, amount %s", x, x.Host, w.calls, w.amount)
		}
	}
	if got != len(wantHosts) {
		t.Errorf("%d unpriced_host explanations, want %d", got, len(wantHosts))
	}
}

// TestHostsEmbeddedCatalog prices the same calls at the embedded catalog:
// whichever host lists it holds, a priced call is priced by a list of its
// own host (or a first-party list, for a call with no host), and a call
// of a cloud or reseller never by a first party's list.
func TestHostsEmbeddedCatalog(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimModel}})
	priced := 0
	calls := hostCalls(t)
	for i := range calls {
		c := &calls[i]
		pc := e.AddPriced(c)
		m := pc.Quote.Model
		if pc.Outcome != pricing.Priced {
			continue
		}
		priced++
		host := pc.Host()
		if host == "" && !m.Provider.FirstParty() || host != "" && !slices.Contains(m.Provider.Hosts, host) {
			t.Errorf("%s (host %q) priced by %s of %s (hosts %v)", c.RequestID, host, m.ID, m.Provider.Name, m.Provider.Hosts)
		}
		if tariffs.KnownHost(c.Host) && !tariffs.FirstPartyHost(c.Host) && m.Provider.FirstParty() {
			t.Errorf("%s, a call of %s, priced by the first-party list %s", c.RequestID, c.Host, m.Provider.Name)
		}
	}
	if priced == 0 {
		t.Error("no call priced: the test proves nothing")
	}
}

// TestHostsPricedAtTheEmbeddedHostLists prices the host calls at the
// embedded catalog's host lists, per 1M tokens input / output, every call
// 1M input and 100k output (cost = input + output / 10): Azure OpenAI
// global gpt-4o 2.50 / 10; Azure AI Foundry DeepSeek V4 Pro 1.74 / 3.48;
// Bedrock Claude Sonnet 4.6 regional profiles 3.30 / 16.50, global 3 /
// 15; Vertex AI Claude Sonnet 4.6 global 3 / 15 and Gemini 2.5 Flash 0.30
// / 2.50; Together DeepSeek V4 Pro 2.10 / 4.40; GitHub Models gpt-4o 2.50
// / 10; DeepSeek's own V4 Pro off-peak (18:12 Beijing) 0.66 / 1.98.
// OpenRouter's list has no DeepSeek model: those calls stay unpriced,
// never at DeepSeek's price.
func TestHostsPricedAtTheEmbeddedHostLists(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	wants := map[string]struct{ model, cost string }{
		"lt-azure":           {"azure-gpt-4o-global", "3.5"},
		"lt-azure-ai":        {"azure-ai-deepseek-v4-pro", "2.088"},          // 1.74 + 0.348
		"lt-bedrock-geo":     {"bedrock-claude-sonnet-4-6-regional", "4.95"}, // 3.30 + 1.65
		"lt-bedrock-global":  {"bedrock-claude-sonnet-4-6-global", "4.5"},    // 3 + 1.50
		"lt-vertex":          {"vertex-claude-sonnet-4-6-global", "4.5"},     // 3 + 1.50
		"lt-together":        {"together-deepseek-v4-pro", "2.54"},           // 2.10 + 0.44
		"lt-github":          {"github-gpt-4o", "3.5"},                       // 2.50 + 1
		"lt-github-legacy":   {"github-gpt-4o", "3.5"},
		"lt-deepseek":        {"deepseek-v4-pro", "0.858"}, // 0.66 + 0.198
		"lt-deepseek-compat": {"deepseek-v4-pro", "0.858"},
		"lt-openrouter":      {},
		"cpa-vertex":         {"vertex-gemini-2.5-flash", "0.55"}, // 0.30 + 0.25
		"cpa-openrouter":     {},
		"cpa-azure-compat":   {}, // a host no list prices
	}
	e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimModel}})
	seen := 0
	calls := hostCalls(t)
	for i := range calls {
		c := &calls[i]
		w, ok := wants[c.RequestID]
		if !ok {
			continue
		}
		seen++
		pc := e.AddPriced(c)
		_, cost := pc.Cost(c)
		if w.model == "" {
			if pc.Outcome != pricing.Unpriced {
				t.Errorf("%s (host %q): %s %s at %s, want unpriced", c.RequestID, c.Host, pc.Outcome, pc.ModelName(), cost)
			}
			continue
		}
		if pc.Outcome != pricing.Priced || pc.ModelName() != w.model || !cost.Equal(decimal.RequireFromString(w.cost)) {
			t.Errorf("%s (host %q): %s %s at %s, want priced %s at %s", c.RequestID, c.Host, pc.Outcome, pc.ModelName(), cost, w.model, w.cost)
		}
	}
	if seen != len(wants) {
		t.Errorf("read %d of the %d calls", seen, len(wants))
	}
}

// hostCalls reads the host test calls, as LiteLLM and then CLIProxyAPI
// log them.
func hostCalls(t *testing.T) []ledger.Call {
	t.Helper()
	return append(readCalls(t, "../testdata/hosts/spendlogs-hosts.csv"), readCalls(t, "../testdata/hosts/cliproxy-hosts.jsonl")...)
}

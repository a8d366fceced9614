package tariffs

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// embeddedCatalog loads the catalog built into the binary, failing the
// test on any problem but a warning.
func embeddedCatalog(t *testing.T) *Catalog {
	t.Helper()
	cat, ps := Load("")
	if cat == nil {
		t.Fatalf("load embedded catalog: %v", ps)
	}
	return cat
}

// millionEach is the cost of a call with 1,000,000 uncached input tokens,
// 1,000,000 cache reads and 1,000,000 output tokens at the rates in force
// at at for a prompt of prompt tokens: the sum of the three prices per 1M,
// each after its fallback (a cache read with no price of its own costs
// the input price). ok is false when the model is not priced at at.
func millionEach(m *Model, at string, prompt int64) (decimal.Decimal, bool) {
	ts, err := time.Parse(time.RFC3339, at)
	if err != nil {
		panic(err)
	}
	q := m.At(ts)
	if q.Status != Priced {
		return decimal.Zero, false
	}
	r := q.Prices.For(q.Period, prompt)
	return r.Price(Input).Add(r.Price(CacheRead)).Add(r.Price(Output)), true
}

// TestEmbeddedDatedIDs checks that each dated snapshot id the catalog
// lists is priced, with no host known, as its base model is (the same
// model), and that new models carry their own published rates. Every
// figure is a call of 1M input + 1M cache-read + 1M output tokens, worked
// by hand from the provider's rates.
func TestEmbeddedDatedIDs(t *testing.T) {
	cat := embeddedCatalog(t)
	tests := []struct {
		name   string // as a gateway logs it
		base   string // the model's base name; "" for a model with rates of its own
		at     string
		prompt int64 // prompt tokens; 0 for 1,000
		want   string
	}{
		// 2.50 + 0.25 + 15.00
		{name: "gpt-5.4-2026-03-05", base: "gpt-5.4", at: "2026-10-01T12:00:00Z", want: "17.75"},
		{name: "openai/gpt-5.4-2026-03-05", base: "gpt-5.4", at: "2026-10-01T12:00:00Z", want: "17.75"},
		// 0.75 + 0.075 + 4.50
		{name: "gpt-5.4-mini-2026-03-17", base: "gpt-5.4-mini", at: "2026-10-01T12:00:00Z", want: "5.325"},
		// 0.20 + 0.02 + 1.25
		{name: "openai/gpt-5.4-nano-2026-03-17", base: "gpt-5.4-nano", at: "2026-10-01T12:00:00Z", want: "1.47"},
		// 5.00 + 0.50 + 30.00
		{name: "gpt-5.5-2026-04-23", base: "gpt-5.5", at: "2026-10-01T12:00:00Z", want: "35.5"},
		// above 272,000 prompt tokens: 10.00 + 1.00 + 45.00
		{name: "gpt-5.5-2026-04-23", base: "gpt-5.5", at: "2026-10-01T12:00:00Z", prompt: 272001, want: "56"},
		// Sol in its promotion (2026-08-21 to 2026-11-30): 4.00 + 0.40 + 20.00.
		{name: "gpt-5.6", base: "gpt-5.6-sol", at: "2026-10-01T12:00:00Z", want: "24.4"},
		// 2.50 + 1.25 + 10.00
		{name: "gpt-4o-2024-11-20", base: "gpt-4o", at: "2026-10-01T12:00:00Z", want: "13.75"},
		{name: "gpt-4o-2024-08-06", base: "gpt-4o", at: "2026-10-01T12:00:00Z", want: "13.75"},
		// 0.15 + 0.075 + 0.60
		{name: "gpt-4o-mini-2024-07-18", base: "gpt-4o-mini", at: "2026-10-01T12:00:00Z", want: "0.825"},
		// 5.00 + 0.50 + 25.00
		{name: "claude-opus-4-6-20260205", base: "claude-opus-4-6", at: "2026-10-01T12:00:00Z", want: "30.5"},
		{name: "anthropic/claude-opus-4-7-20260416", base: "claude-opus-4-7", at: "2026-10-01T12:00:00Z", want: "30.5"},
		{name: "claude-opus-4-5-20251101", base: "claude-opus-4-5", at: "2026-10-01T12:00:00Z", want: "30.5"},
		// 1.00 + 0.10 + 5.00
		{name: "claude-haiku-4-5-20251001", base: "claude-haiku-4-5", at: "2026-10-01T12:00:00Z", want: "6.1"},
		// 0.25 + 0.025 + 1.50
		{name: "gemini-3.1-flash-lite-preview", base: "gemini-3.1-flash-lite", at: "2026-10-01T12:00:00Z", want: "1.775"},
		// 2.00 + 0.20 + 12.00
		{name: "gemini/gemini-3.1-pro-preview-customtools", base: "gemini-3.1-pro", at: "2026-10-01T12:00:00Z", want: "14.2"},
		// 0.10 + 0.01 + 0.40
		{name: "gemini-2.5-flash-lite-preview-09-2025", base: "gemini-2.5-flash-lite", at: "2026-10-01T12:00:00Z", want: "0.51"},

		// GPT-5.6 Terra and Luna before and after the cut of 2026-07-30:
		// 2.50 + 0.25 + 15.00, then 2.00 + 0.20 + 12.00; Luna 0.20 + 0.02 + 1.20.
		{name: "gpt-5.6-terra", at: "2026-07-29T23:59:00Z", want: "17.75"},
		{name: "gpt-5.6-terra", at: "2026-07-30T00:00:00Z", want: "14.2"},
		{name: "openai/gpt-5.6-luna", at: "2026-08-01T00:00:00Z", want: "1.42"},
		// Gemini 3.7 Flash at its introductory rate, 0.75 + 0.075 + 3.75,
		// and from 2027: 1.50 + 0.15 + 7.50.
		{name: "gemini-3.7-flash", at: "2026-12-31T23:59:00Z", want: "4.575"},
		{name: "gemini/gemini-3.6-flash", at: "2027-01-01T00:00:00Z", want: "9.15"},
		// 0.30 + 0.03 + 2.50
		{name: "gemini-3.5-flash-lite", at: "2026-10-01T12:00:00Z", want: "2.83"},
		// Claude Sonnet 5: 2 + 0.20 + 10 on both sides of 2026-09-01 (the
		// rise to 3 / 15 announced at launch was cancelled).
		{name: "claude-sonnet-5", at: "2026-08-31T23:59:00Z", want: "12.2"},
		{name: "claude-sonnet-5", at: "2026-09-01T00:00:00Z", want: "12.2"},
		// 10 + 1 + 50
		{name: "anthropic/claude-fable-5", at: "2026-10-01T12:00:00Z", want: "61"},
	}
	for _, tt := range tests {
		if tt.prompt == 0 {
			tt.prompt = 1000
		}
		t.Run(fmt.Sprintf("%s@%s/prompt=%d", tt.name, tt.at, tt.prompt), func(t *testing.T) {
			m, host, ok := cat.ResolveOn("", tt.name)
			if !ok {
				t.Fatalf("%q is not a catalog name (looked up among host %q)", tt.name, host)
			}
			if tt.base != "" {
				b, _, ok := cat.ResolveOn("", tt.base)
				if !ok || b != m {
					t.Fatalf("%q resolves to %q, its base %q to %v", tt.name, m.ID, tt.base, b)
				}
			}
			got, ok := millionEach(m, tt.at, tt.prompt)
			if !ok {
				t.Fatalf("%q (%s) is not priced at %s", tt.name, m.ID, tt.at)
			}
			if !got.Equal(decimal.RequireFromString(tt.want)) {
				t.Errorf("%q at %s costs %s, by hand %s", tt.name, tt.at, got, tt.want)
			}
		})
	}
}

// TestEmbeddedHostLists prices calls as LiteLLM logs them for each host the
// catalog has a list for: the host's own model and rates, or unpriced
// where the host's list lacks the model. Figures as in
// TestEmbeddedDatedIDs (1M input + 1M cache reads + 1M output), by hand.
func TestEmbeddedHostLists(t *testing.T) {
	cat := embeddedCatalog(t)
	const at = "2026-10-01T12:00:00Z"
	tests := []struct {
		name   string
		host   string
		logged string
		prompt int64  // prompt tokens, for long-context tiers
		want   string // model id; "" for unpriced
		cost   string
	}{
		// Azure OpenAI: Global 2.50 + 1.25 + 10.00.
		{"azure global gpt-4o", "azure", "azure/gpt-4o", 1000, "azure-gpt-4o-global", "13.75"},
		// Data Zone EU 2.75 + 0.275 + 16.50.
		{"azure data zone gpt-5.4", "azure", "azure/eu/gpt-5.4", 1000, "azure-gpt-5.4-datazone", "19.525"},
		// Above 272K: 5.50 + 0.55 + 24.75.
		{"azure data zone gpt-5.4 long", "azure", "azure/us/gpt-5.4", 272001, "azure-gpt-5.4-datazone", "30.8"},
		// APAC Data Zone 3.00 + 0.30 + 18.00.
		{"azure apac gpt-5.4 dated", "azure", "azure/apac/gpt-5.4-2026-03-05", 1000, "azure-gpt-5.4-datazone-apac", "21.3"},
		// Sweden Central regional: 3.025 + 1.513 + 12.10.
		{"azure regional gpt-4o", "azure", "azure/regional/swedencentral/gpt-4o-2024-11-20", 1000, "azure-gpt-4o-2024-11-20-regional-b", "16.638"},
		// Terra Data Zone 2.75 + 0.275 + 16.50 (Azure's meters, no cut).
		{"azure gpt-5.6-terra", "azure", "azure/us/gpt-5.6-terra", 1000, "azure-gpt-5.6-terra-datazone", "19.525"},
		{"azure has no gpt-4o-2024-05-13", "azure", "azure/gpt-4o-2024-05-13", 1000, "", ""},

		// Bedrock: global 3 + 0.30 + 15; geographic 1.10 x: 3.30 + 0.33 + 16.50.
		{"bedrock global sonnet 4.6", "bedrock", "bedrock/global.anthropic.claude-sonnet-4-6", 1000, "bedrock-claude-sonnet-4-6-global", "18.3"},
		{"bedrock us sonnet 4.6", "bedrock", "bedrock/us.anthropic.claude-sonnet-4-6", 1000, "bedrock-claude-sonnet-4-6-regional", "20.13"},
		// Converse route, eu. Opus 4.6: 5.50 + 0.55 + 27.50.
		{"bedrock converse eu opus 4.6", "bedrock", "bedrock/converse/eu.anthropic.claude-opus-4-6-v1", 1000, "bedrock-claude-opus-4-6-regional", "33.55"},
		// In-Region Haiku 4.5: 1.10 + 0.11 + 5.50.
		{"bedrock in-region haiku", "bedrock", "anthropic.claude-haiku-4-5-20251001-v1:0", 1000, "bedrock-claude-haiku-4-5-regional", "6.71"},
		// Sonnet 4.5 regional above 200K: 6.60 + 0.66 + 24.75.
		{"bedrock sonnet 4.5 long", "bedrock", "bedrock/jp.anthropic.claude-sonnet-4-5-20250929-v1:0", 200001, "bedrock-claude-sonnet-4-5-regional", "32.01"},
		// DeepSeek V3.2 in us-east-1: 0.62 + 0.62 (no cached price) + 1.85.
		{"bedrock deepseek v3.2 region", "bedrock", "bedrock/us-east-1/deepseek.v3.2", 1000, "bedrock-deepseek-v3-2-us", "3.09"},
		{"bedrock deepseek v3.2 without region", "bedrock", "bedrock/deepseek.v3.2", 1000, "", ""},
		{"bedrock gov cloud", "bedrock", "bedrock/us-gov.anthropic.claude-sonnet-4-5-20250929-v1:0", 1000, "", ""},

		// Vertex AI: Claude global 3 + 0.30 + 15; regional Opus 4.5 5.50 + 0.55 + 27.50.
		{"vertex claude default", "vertex_ai", "vertex_ai/claude-sonnet-4-6@default", 1000, "vertex-claude-sonnet-4-6-global", "18.3"},
		{"vertex claude regional", "vertex_ai", "vertex_ai/regional/claude-opus-4-5@20251101", 1000, "vertex-claude-opus-4-5-regional", "33.55"},
		// Gemini 3.1 Pro 2 + 0.20 + 12; above 200K 4 + 0.40 + 18.
		{"vertex gemini", "vertex_ai", "vertex_ai/gemini-3.1-pro-preview", 1000, "vertex-gemini-3.1-pro", "14.2"},
		{"vertex gemini long", "vertex_ai", "vertex_ai/gemini-3.1-pro-preview", 200001, "vertex-gemini-3.1-pro", "22.4"},
		// Gemini 3.7 Flash at its introductory rate: 0.75 + 0.075 + 3.75.
		{"vertex gemini 3.7 flash", "vertex_ai", "vertex_ai/gemini-3.7-flash", 1000, "vertex-gemini-3.7-flash", "4.575"},

		// Azure AI Foundry DeepSeek V4 Pro: 1.74 + 1.74 (no cached price) + 3.48.
		{"foundry deepseek v4 pro", "azure_ai", "azure_ai/deepseek-v4-pro", 1000, "azure-ai-deepseek-v4-pro", "6.96"},
		// OpenRouter: Sonnet 4.6 3 + 0.30 + 15; gpt-4o 2.50 + 2.50 + 10.
		{"openrouter sonnet 4.6", "openrouter", "openrouter/anthropic/claude-sonnet-4.6", 1000, "openrouter-claude-sonnet-4-6", "18.3"},
		{"openrouter gpt-4o", "openrouter", "openrouter/openai/gpt-4o", 1000, "openrouter-gpt-4o", "15"},
		{"openrouter has no deepseek v4 pro", "openrouter", "openrouter/deepseek/deepseek-v4-pro", 1000, "", ""},
		// Together DeepSeek V4 Pro: 2.10 + 0.20 + 4.40.
		{"together deepseek v4 pro", "together_ai", "together_ai/deepseek-ai/DeepSeek-V4-Pro", 1000, "together-deepseek-v4-pro", "6.7"},
		// GitHub Models: 0.15 + 0.075 + 0.60.
		{"github gpt-4o-mini", "github", "github/gpt-4o-mini", 1000, "github-gpt-4o-mini", "0.825"},
		{"github gpt-4o new endpoint", "github", "openai/gpt-4o", 1000, "github-gpt-4o", "13.75"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, host, ok := cat.ResolveOn(tt.host, tt.logged)
			if host != tt.host {
				t.Errorf("%q looked up among host %q, want %q", tt.logged, host, tt.host)
			}
			if tt.want == "" {
				if ok {
					t.Fatalf("%q on %s is priced as %q, want unpriced", tt.logged, tt.host, m.ID)
				}
				return
			}
			if !ok || m.ID != tt.want {
				t.Fatalf("%q on %s resolves to %v, want %q", tt.logged, tt.host, m, tt.want)
			}
			got, ok := millionEach(m, at, tt.prompt)
			if !ok {
				t.Fatalf("%s is not priced at %s", m.ID, at)
			}
			if !got.Equal(decimal.RequireFromString(tt.cost)) {
				t.Errorf("%q costs %s, by hand %s", tt.logged, got, tt.cost)
			}
		})
	}
}

// TestHostListsPriceOnlyTheirHost checks every name of the embedded
// catalog: a host list's name resolves to its model under the list's
// hosts (as logged and with LiteLLM's host/ route), and to no model of
// that list under any other host or with no host known; a first-party
// name never resolves to a first-party model under another host.
func TestHostListsPriceOnlyTheirHost(t *testing.T) {
	cat := embeddedCatalog(t)
	hosts := append([]string{""}, KnownHosts()...)
	for _, h := range KnownHosts() {
		if !cat.PricesHost(h) {
			t.Errorf("the embedded catalog has no list for host %s", h)
		}
	}
	for _, p := range cat.Providers {
		for _, m := range p.Models {
			for _, n := range m.Names {
				for _, h := range hosts {
					got, _, ok := cat.ResolveOn(h, n)
					own := slices.Contains(p.Hosts, h) || (h == "" && p.FirstParty())
					switch {
					case own && (!ok || got != m):
						t.Errorf("%s: %q on host %q resolves to %v, want %q", p.File, n, h, got, m.ID)
					case !own && ok && got.Provider == p:
						t.Errorf("%s: %q on host %q is priced by %s (%q), a list for %v", p.File, n, h, p.Name, got.ID, p.Hosts)
					}
				}
				for _, h := range p.Hosts {
					if FirstPartyHost(h) {
						continue
					}
					if got, _, ok := cat.ResolveOn(h, h+"/"+n); !ok || got != m {
						t.Errorf("%s: %q on host %s resolves to %v, want %q", p.File, h+"/"+n, h, got, m.ID)
					}
				}
			}
		}
	}
}

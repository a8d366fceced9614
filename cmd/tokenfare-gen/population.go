package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"

	"github.com/shopspring/decimal"
)

// team is a LiteLLM team: its id as stored in team_id and its alias.
type team struct {
	ID    string
	Alias string
}

// teams are the gateway's teams. The ids look like LiteLLM's UUIDs.
var teams = []team{
	{"7c1d2a4e-3b8f-4f6a-9d2e-5a1b0c9e8f71", "search"},
	{"b20e9f53-6c1a-47d8-8e4b-2f7a9c3d1e05", "support-bots"},
	{"e94a6b27-0d3c-4b19-a5f8-71c2e8d4b6a3", "data-platform"},
	{"3f8c5d10-9a2b-4e7c-b6d1-c4e7a2f9085b", "growth"},
	{"51a7e3c9-2f4d-4a8b-9c6e-8d0b1f3a7c24", "research"},
}

// apiKey is one virtual key: its stored hash, alias, owner and team.
type apiKey struct {
	Hash  string // SHA-256 hex of the raw key, as LiteLLM stores it
	Alias string
	User  string
	Team  *team
	// Bias shifts the key's model mix: 0 mostly flash, 1 pro-heavy,
	// 2 OpenAI, 3 Anthropic.
	Bias int
}

var keyPurposes = []string{
	"search-rerank", "chat-widget", "ticket-triage", "etl-summaries", "ab-copy",
	"eval-harness", "code-review", "doc-qa", "agent-runner", "notebook",
}

var userNames = []string{
	"li.wei", "zhang.min", "wang.fang", "chen.jie", "liu.yang", "ana.costa",
	"sam.okafor", "maria.ruiz", "tom.becker", "yuki.sato", "ravi.nair", "eva.novak",
}

// newKeys draws n keys from r. Raw keys never leave this function: only
// their hashes are kept.
func newKeys(r *rand.Rand, n int) []apiKey {
	keys := make([]apiKey, n)
	for i := range keys {
		raw := make([]byte, 0, 25)
		raw = append(raw, "sk-"...)
		for range 22 {
			raw = append(raw, alnum[r.IntN(len(alnum))])
		}
		sum := sha256.Sum256(raw)
		t := &teams[r.IntN(len(teams))]
		env := "prod"
		if r.IntN(4) == 0 {
			env = "staging"
		}
		keys[i] = apiKey{
			Hash:  hex.EncodeToString(sum[:]),
			Alias: fmt.Sprintf("%s-%s-%s-%02d", t.Alias, keyPurposes[r.IntN(len(keyPurposes))], env, i),
			User:  "u-" + userNames[r.IntN(len(userNames))],
			Team:  t,
			Bias:  biasOf(r.IntN(10)),
		}
	}
	return keys
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func biasOf(n int) int {
	switch {
	case n < 6:
		return 0
	case n < 8:
		return 1
	case n < 9:
		return 2
	}
	return 3
}

// deployment is one model_list entry of the gateway: what lands in the
// model, model_id, model_group and custom_llm_provider columns, and the flat
// prices the gateway records spend with.
type deployment struct {
	Group    string
	Model    string
	ID       string
	Provider string
	APIBase  string
	CallType string
	IDPrefix string // request id style of the provider
	Price    flatPrice
	// USInference: the model accepts Anthropic's inference_geo "us"
	// (Opus 4.6, Sonnet 4.6 and later; 4.5 models answer 400).
	USInference bool
	Known       bool // false for a model no tariff knows: recorded spend 0
}

// Deployments, by index.
const (
	depFlash = iota
	depFlashLegacy
	depPro
	depGPT4o
	depSonnet
	depUnknown
)

// deployments are the gateway's models. The DeepSeek prices are the stale
// ones the gateway kept: the 2026-08-16 peak rates, applied at all hours.
var deployments = []deployment{
	depFlash: {
		Group: "deepseek-flash", Model: "deepseek-flash", ID: "deepseek-flash-direct",
		Provider: "deepseek", APIBase: "https://api.deepseek.com", CallType: "acompletion",
		Price: newFlatPrice("0.014", "0.44", "0.44", "1.32"), Known: true,
	},
	depFlashLegacy: {
		Group: "deepseek/deepseek-v4-flash", Model: "deepseek-v4-flash", ID: "deepseek-v4-flash-legacy",
		Provider: "deepseek", APIBase: "https://api.deepseek.com", CallType: "acompletion",
		Price: newFlatPrice("0.014", "0.44", "0.44", "1.32"), Known: true,
	},
	depPro: {
		Group: "deepseek-v4-pro", Model: "deepseek-v4-pro", ID: "deepseek-v4-pro-direct",
		Provider: "deepseek", APIBase: "https://api.deepseek.com", CallType: "acompletion",
		Price: newFlatPrice("0.044", "1.32", "1.32", "3.96"), Known: true,
	},
	depGPT4o: {
		Group: "gpt-4o", Model: "gpt-4o", ID: "openai-gpt-4o",
		Provider: "openai", APIBase: "https://api.openai.com/v1", CallType: "aresponses",
		IDPrefix: "chatcmpl-", Price: newFlatPrice("1.25", "2.50", "2.50", "10.00"), Known: true,
	},
	depSonnet: {
		Group: "claude-sonnet-4-5", Model: "claude-sonnet-4-5-20250929", ID: "anthropic-sonnet-4-5",
		Provider: "anthropic", APIBase: "https://api.anthropic.com", CallType: "anthropic_messages",
		IDPrefix: "msg_01", Price: newFlatPrice("0.30", "3.00", "3.75", "15.00"), Known: true,
	},
	depUnknown: {
		Group: "kimi-k2-thinking", Model: "kimi-k2-thinking", ID: "moonshot-kimi-k2",
		Provider: "moonshot", APIBase: "https://api.moonshot.ai/v1", CallType: "acompletion",
		IDPrefix: "chatcmpl-",
	},
}

// flatPrice holds one deployment's prices as integer coefficients in
// micro-USD per 1M tokens (= 1e-12 USD per token), so a call's spend is an
// exact integer sum that becomes a decimal once.
type flatPrice struct {
	CacheRead, Input, CacheWrite, Output int64
}

// priceExp is the decimal exponent of a token count times a flatPrice
// coefficient: 1e-6 (micro) × 1e-6 (per 1M tokens).
const priceExp = -12

// newFlatPrice reads USD-per-1M-token prices from their decimal text.
func newFlatPrice(cacheRead, input, cacheWrite, output string) flatPrice {
	return flatPrice{coef(cacheRead), coef(input), coef(cacheWrite), coef(output)}
}

func coef(usdPerMillion string) int64 {
	d := decimal.RequireFromString(usdPerMillion).Shift(6)
	if !d.IsInteger() {
		panic("price " + usdPerMillion + " has more than 6 decimals")
	}
	return d.IntPart()
}

// spend returns the exact cost of the token split at p.
func (p flatPrice) spend(input, cacheRead, cacheWrite, output int64) decimal.Decimal {
	sum := input*p.Input + cacheRead*p.CacheRead + cacheWrite*p.CacheWrite + output*p.Output
	return decimal.New(sum, priceExp)
}

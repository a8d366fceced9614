package provider

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Format is an export format tokenfare reads.
type Format uint8

// Formats, each documented in docs/provider-usage.md.
const (
	OpenAIUsage    Format = iota // /v1/organization/usage/completions pages
	OpenAICosts                  // /v1/organization/costs pages
	AnthropicUsage               // /v1/organizations/usage_report/messages pages
	AnthropicCost                // /v1/organizations/cost_report pages
	DeepSeekUsage                // the platform's usage export, CSV
	numFormats
)

var formatNames = [numFormats]string{"openai-usage", "openai-costs", "anthropic-usage", "anthropic-cost", "deepseek-usage"}

// String returns the format's name as reports spell it.
func (f Format) String() string { return formatNames[f] }

// Provider returns the tariff provider the format's figures belong to.
func (f Format) Provider() string {
	switch f {
	case OpenAIUsage, OpenAICosts:
		return "openai"
	case AnthropicUsage, AnthropicCost:
		return "anthropic"
	}
	return "deepseek"
}

// Row is one time bucket of one model as a provider reports it: the usage,
// the amount billed, or both.
type Row struct {
	Format     Format
	Start, End time.Time // the bucket, [Start, End), UTC
	Model      string    // as the provider names it; "" when the export is not grouped by model
	KeyID      string    // the provider's id of the key (OpenAI, Anthropic): not a secret, not comparable with gateway keys
	Key        string    // SHA-256 of the raw key (DeepSeek), comparable with ledger.Call.Key
	// PromptSize is a prompt size, in tokens, in the same prompt-size tier
	// as every request of the row, when the export tells (Anthropic's
	// context_window); 0 for the base tier.
	PromptSize int64
	// ServiceTier and Region are the row's, when the export is grouped by
	// them (Anthropic's service_tier and inference_geo, OpenAI's batch):
	// its official cost is at that tier's and region's rates.
	ServiceTier tariffs.ServiceTier
	Region      string

	// Usage: tokens by usage type (Input uncached, Output including
	// reasoning, CacheWrite and CacheWrite1h by lifetime), at
	// tariffs.Request the number of requests, and the uses of each tool.
	Qty         [tariffs.NumUsage]int64
	HasTokens   bool // the row reports tokens
	HasRequests bool // the row reports a request count

	// Billing: the amount billed for the row, by usage type when Split.
	Billed    decimal.Decimal
	ByUsage   [tariffs.NumUsage]decimal.Decimal // when Split: the parts of Billed by usage type
	Split     bool
	HasBilled bool
	Currency  string // upper-case ISO 4217, when HasBilled

	Where string // the row's place in its file, for messages: "file: data[0].results[2]" or "file:7"
}

// Export is everything read from one file.
type Export struct {
	Name   string
	Format Format
	Rows   []Row
}

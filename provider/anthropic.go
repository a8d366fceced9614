package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tokenfare/tokenfare/tariffs"
)

// anthropicUsageResult is one result of the messages usage report.
type anthropicUsageResult struct {
	Uncached      json.Number `json:"uncached_input_tokens"`
	CacheRead     json.Number `json:"cache_read_input_tokens"`
	CacheCreation *struct {
		FiveMinutes json.Number `json:"ephemeral_5m_input_tokens"`
		OneHour     json.Number `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
	Output        json.Number `json:"output_tokens"`
	ServerToolUse *struct {
		WebSearch json.Number `json:"web_search_requests"`
	} `json:"server_tool_use"`
	Model         *string `json:"model"`
	APIKeyID      *string `json:"api_key_id"`
	WorkspaceID   *string `json:"workspace_id"`
	ContextWindow *string `json:"context_window"`
	ServiceTier   *string `json:"service_tier"`
	InferenceGeo  *string `json:"inference_geo"`
}

// anthropicTier reads the service tier and region of a row grouped by
// them: "standard" and "batch" (the report's tiers), "global" (no region).
func anthropicTier(row *Row, tier, geo *string) error {
	if t := str(tier); t != "" && t != "standard" {
		s, err := tariffs.ParseServiceTier(t)
		if err != nil {
			return fmt.Errorf("%w: service_tier: %v", ErrBadValue, err)
		}
		row.ServiceTier = s
	}
	if g := strings.ToLower(str(geo)); g != "" && g != "global" && g != "not_available" {
		row.Region = g
	}
	return nil
}

// longContext is the context_window of the requests whose prompt exceeded
// 200,000 tokens (the 1M-token context window's long-prompt rates).
const longContext = "200k-1M"

// anthropicPromptSize reads a row's context_window as a prompt size in its
// tariff tier: above 200,000 tokens for "200k-1M"; "0-200k" and none are
// the base tier (0).
func anthropicPromptSize(window *string) int64 {
	if str(window) == longContext {
		return 200_001
	}
	return 0
}

func anthropicUsage(raw json.RawMessage) (Row, error) {
	var r anthropicUsageResult
	if err := unmarshal(raw, &r); err != nil {
		return Row{}, fmt.Errorf("%w: %w", ErrBadValue, err)
	}
	row := Row{Model: str(r.Model), KeyID: str(r.APIKeyID), PromptSize: anthropicPromptSize(r.ContextWindow), HasTokens: true}
	var five, hour json.Number
	if r.CacheCreation != nil {
		five, hour = r.CacheCreation.FiveMinutes, r.CacheCreation.OneHour
	}
	var w5, w1 int64
	var search json.Number
	if r.ServerToolUse != nil {
		search = r.ServerToolUse.WebSearch
	}
	err := anthropicTier(&row, r.ServiceTier, r.InferenceGeo)
	if err != nil {
		return row, err
	}
	for _, f := range []struct {
		name string
		n    json.Number
		to   *int64
	}{
		{"uncached_input_tokens", r.Uncached, &row.Qty[tariffs.Input]},
		{"cache_read_input_tokens", r.CacheRead, &row.Qty[tariffs.CacheRead]},
		{"cache_creation.ephemeral_5m_input_tokens", five, &w5},
		{"cache_creation.ephemeral_1h_input_tokens", hour, &w1},
		{"output_tokens", r.Output, &row.Qty[tariffs.Output]},
		{"server_tool_use.web_search_requests", search, &row.Qty[tariffs.WebSearch]},
	} {
		if *f.to, err = count(f.name, f.n); err != nil {
			return row, err
		}
	}
	// The report splits writes by lifetime, as the tariff does.
	row.Qty[tariffs.CacheWrite], row.Qty[tariffs.CacheWrite1h] = w5, w1
	return row, nil
}

// anthropicCostResult is one result of the cost report. amount is a
// decimal string in the currency's lowest units (cents).
type anthropicCostResult struct {
	Amount      *string `json:"amount"`
	Currency    *string `json:"currency"`
	CostType    *string `json:"cost_type"`
	Description *string `json:"description"`
	Model       *string `json:"model"`
	TokenType   *string `json:"token_type"`
	WorkspaceID *string `json:"workspace_id"`
	Context     *string `json:"context_window"`
	ServiceTier *string `json:"service_tier"`
	Geo         *string `json:"inference_geo"`
}

// anthropicTokenTypes maps a cost's token_type to a usage type.
var anthropicTokenTypes = map[string]tariffs.Usage{
	"uncached_input_tokens":                    tariffs.Input,
	"cache_read_input_tokens":                  tariffs.CacheRead,
	"cache_creation.ephemeral_5m_input_tokens": tariffs.CacheWrite,
	"cache_creation.ephemeral_1h_input_tokens": tariffs.CacheWrite1h,
	"output_tokens":                            tariffs.Output,
}

func anthropicCost(raw json.RawMessage) (Row, error) {
	var r anthropicCostResult
	if err := unmarshal(raw, &r); err != nil {
		return Row{}, fmt.Errorf("%w: %w", ErrBadValue, err)
	}
	row := Row{Model: str(r.Model), PromptSize: anthropicPromptSize(r.Context), HasBilled: true, Currency: strings.ToUpper(str(r.Currency))}
	if r.Amount == nil {
		return row, fmt.Errorf("%w: a cost without amount", ErrBadValue)
	}
	cents, err := amount("amount", *r.Amount)
	if err != nil {
		return row, err
	}
	row.Billed = cents.Shift(-2) // lowest currency units: cents of USD
	if row.Currency == "" {
		row.Currency = "USD" // the API documents USD as the only currency
	}
	if err := anthropicTier(&row, r.ServiceTier, r.Geo); err != nil {
		return row, err
	}
	switch u, ok := anthropicTokenTypes[str(r.TokenType)]; {
	case str(r.CostType) == "web_search":
		row.Split = true
		row.ByUsage[tariffs.WebSearch] = row.Billed
	case ok && str(r.CostType) != "code_execution":
		row.Split = true
		row.ByUsage[u] = row.Billed
	}
	return row, nil
}

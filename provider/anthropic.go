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
	Model         *string     `json:"model"`
	APIKeyID      *string     `json:"api_key_id"`
	WorkspaceID   *string     `json:"workspace_id"`
	ContextWindow *string     `json:"context_window"`
}

func anthropicUsage(raw json.RawMessage) (Row, error) {
	var r anthropicUsageResult
	if err := unmarshal(raw, &r); err != nil {
		return Row{}, fmt.Errorf("%w: %w", ErrBadValue, err)
	}
	row := Row{Model: str(r.Model), KeyID: str(r.APIKeyID), Context: str(r.ContextWindow), HasTokens: true}
	var five, hour json.Number
	if r.CacheCreation != nil {
		five, hour = r.CacheCreation.FiveMinutes, r.CacheCreation.OneHour
	}
	var w5, w1 int64
	var err error
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
	} {
		if *f.to, err = count(f.name, f.n); err != nil {
			return row, err
		}
	}
	// The tariff format has one cache-write price (the 5-minute one): 1-hour
	// writes are counted with them and show as drift on cache_write.
	row.Qty[tariffs.CacheWrite] = w5 + w1
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
}

// anthropicTokenTypes maps a cost's token_type to a usage type.
var anthropicTokenTypes = map[string]tariffs.Usage{
	"uncached_input_tokens":                    tariffs.Input,
	"cache_read_input_tokens":                  tariffs.CacheRead,
	"cache_creation.ephemeral_5m_input_tokens": tariffs.CacheWrite,
	"cache_creation.ephemeral_1h_input_tokens": tariffs.CacheWrite,
	"output_tokens":                            tariffs.Output,
}

func anthropicCost(raw json.RawMessage) (Row, error) {
	var r anthropicCostResult
	if err := unmarshal(raw, &r); err != nil {
		return Row{}, fmt.Errorf("%w: %w", ErrBadValue, err)
	}
	row := Row{Model: str(r.Model), Context: str(r.Context), HasBilled: true, Currency: strings.ToUpper(str(r.Currency))}
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
	if u, ok := anthropicTokenTypes[str(r.TokenType)]; ok && str(r.CostType) != "web_search" && str(r.CostType) != "code_execution" {
		row.Split = true
		row.ByUsage[u] = row.Billed
	}
	return row, nil
}

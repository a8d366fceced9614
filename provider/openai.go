package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tokenfare/tokenfare/tariffs"
)

// openAIUsageResult is one organization.usage.completions.result.
// input_tokens includes the cached ones; output_tokens includes reasoning.
type openAIUsageResult struct {
	InputTokens  json.Number `json:"input_tokens"`
	CachedTokens json.Number `json:"input_cached_tokens"`
	OutputTokens json.Number `json:"output_tokens"`
	Requests     json.Number `json:"num_model_requests"`
	Model        *string     `json:"model"`
	ProjectID    *string     `json:"project_id"`
	APIKeyID     *string     `json:"api_key_id"`
	Batch        *bool       `json:"batch"`
}

func openAIUsage(raw json.RawMessage) (Row, error) {
	var r openAIUsageResult
	if err := unmarshal(raw, &r); err != nil {
		return Row{}, fmt.Errorf("%w: %w", ErrBadValue, err)
	}
	row := Row{Model: str(r.Model), KeyID: str(r.APIKeyID), HasTokens: true, HasRequests: r.Requests != ""}
	var in, cached int64
	var err error
	for _, f := range []struct {
		name string
		n    json.Number
		to   *int64
	}{
		{"input_tokens", r.InputTokens, &in},
		{"input_cached_tokens", r.CachedTokens, &cached},
		{"output_tokens", r.OutputTokens, &row.Qty[tariffs.Output]},
		{"num_model_requests", r.Requests, &row.Qty[tariffs.Request]},
	} {
		if *f.to, err = count(f.name, f.n); err != nil {
			return row, err
		}
	}
	if cached > in {
		return row, fmt.Errorf("%w: input_cached_tokens %d exceed input_tokens %d", ErrBadValue, cached, in)
	}
	row.Qty[tariffs.Input], row.Qty[tariffs.CacheRead] = in-cached, cached
	if r.Batch != nil && *r.Batch {
		row.ServiceTier = tariffs.Batch // grouped by batch: the Batch API's rows
	}
	return row, nil
}

// openAICostResult is one organization.costs.result; amount.value is a
// JSON number in currency units, read from its text.
type openAICostResult struct {
	Amount *struct {
		Value    json.Number `json:"value"`
		Currency string      `json:"currency"`
	} `json:"amount"`
	LineItem  *string `json:"line_item"`
	ProjectID *string `json:"project_id"`
}

// openAILineItems maps the usage part of a line item ("gpt-4o-2024-08-06,
// cached input") to a usage type.
var openAILineItems = map[string]tariffs.Usage{
	"input":        tariffs.Input,
	"cached input": tariffs.CacheRead,
	"output":       tariffs.Output,
}

func openAICost(raw json.RawMessage) (Row, error) {
	var r openAICostResult
	if err := unmarshal(raw, &r); err != nil {
		return Row{}, fmt.Errorf("%w: %w", ErrBadValue, err)
	}
	row := Row{HasBilled: true}
	if r.Amount == nil || r.Amount.Value == "" {
		return row, fmt.Errorf("%w: a cost without amount.value", ErrBadValue)
	}
	var err error
	if row.Billed, err = amount("amount.value", string(r.Amount.Value)); err != nil {
		return row, err
	}
	row.Currency = strings.ToUpper(r.Amount.Currency)
	if row.Currency == "" {
		return row, fmt.Errorf("%w: amount.currency is empty", ErrBadValue)
	}
	item := str(r.LineItem)
	model, usage, ok := strings.Cut(item, ",")
	row.Model = strings.TrimSpace(model)
	if u, known := openAILineItems[strings.ToLower(strings.TrimSpace(usage))]; ok && known {
		row.Split = true
		row.ByUsage[u] = row.Billed
	}
	return row, nil
}

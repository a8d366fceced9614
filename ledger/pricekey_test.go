package ledger

import "testing"

// TestSpendLogPriceKey reads the price entry LiteLLM used from metadata
// as LiteLLM writes it, and leniently: an odd shape costs the call its
// key, never the row. A model_map_key column (the row query's flat form)
// wins over metadata.
func TestSpendLogPriceKey(t *testing.T) {
	tests := []struct {
		name      string
		metadata  string
		flat      string
		want      string
		wantAlias string // the rest of the metadata is still read
	}{
		{name: "azure data zone", metadata: `{"user_api_key_alias": "eu-app", "model_map_information": {"model_map_key": "azure/eu/gpt-4o-2024-11-20", "model_map_value": {"input_cost_per_token": 2.75e-06}}}`,
			want: "azure/eu/gpt-4o-2024-11-20", wantAlias: "eu-app"},
		{name: "bedrock profile", metadata: `{"model_map_information": {"model_map_key": "us.anthropic.claude-sonnet-4-6", "model_map_value": null}}`,
			want: "us.anthropic.claude-sonnet-4-6"},
		{name: "flat column wins", metadata: `{"model_map_information": {"model_map_key": "gpt-4o"}}`, flat: "eu/gpt-4o", want: "eu/gpt-4o"},
		{name: "flat column without metadata", flat: "eu/gpt-4o", want: "eu/gpt-4o"},
		{name: "no model_map_information", metadata: `{"user_api_key_alias": "a"}`, wantAlias: "a"},
		{name: "null key", metadata: `{"user_api_key_alias": "a", "model_map_information": {"model_map_key": null}}`, wantAlias: "a"},
		{name: "number key", metadata: `{"user_api_key_alias": "a", "model_map_information": {"model_map_key": 4}}`, wantAlias: "a"},
		{name: "information as text", metadata: `{"user_api_key_alias": "a", "model_map_information": "azure/eu/gpt-4o"}`, wantAlias: "a"},
		{name: "information as array", metadata: `{"user_api_key_alias": "a", "model_map_information": [{"model_map_key": "gpt-4o"}]}`, wantAlias: "a"},
		{name: "information null", metadata: `{"user_api_key_alias": "a", "model_map_information": null}`, wantAlias: "a"},
	}
	cols := []string{"request_id", "startTime", "spend", "prompt_tokens", "completion_tokens", "model", "custom_llm_provider", "metadata", "model_map_key"}
	m, err := NewSpendLogMapper(cols)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values := [][]byte{[]byte("r-1"), []byte("2026-11-03 09:00:00"), []byte("0.01"), []byte("100"), []byte("10"),
				[]byte("azure/my-gpt4o-eu"), []byte("azure"), nil, nil}
			if tt.metadata != "" {
				values[7] = []byte(tt.metadata)
			}
			if tt.flat != "" {
				values[8] = []byte(tt.flat)
			}
			c := Call{PriceKey: "left over", KeyAlias: "left over"}
			if reason := m.Map(values, "t:1", &c); reason != "" {
				t.Fatalf("rejected: %s", reason)
			}
			if c.PriceKey != tt.want || c.KeyAlias != tt.wantAlias {
				t.Errorf("price key %q, alias %q; want %q, %q", c.PriceKey, c.KeyAlias, tt.want, tt.wantAlias)
			}
		})
	}
}

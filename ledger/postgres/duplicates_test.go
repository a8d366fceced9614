package postgres

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

// TestHandMadeMetadataFileEqualsDB: metadata that names a member twice,
// or writes numbers with exponents or a negative zero (hand-made: neither
// jsonb nor LiteLLM writes them), gives the same calls and rejections from
// its dump as from the database the dump is loaded into, where jsonb keeps
// the last member of each name and writes numbers back plainly.
func TestHandMadeMetadataFileEqualsDB(t *testing.T) {
	metas := map[string]string{
		"dup-usage":  `{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 400}}, "additional_usage_values": {"prompt_tokens_details": {"cache_creation_tokens": 7}}}`,
		"dup-null":   `{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 400, "cached_tokens": null}}}`,
		"dup-merge":  `{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 300}, "prompt_tokens_details": {"cache_creation_tokens": 20}, "completion_tokens_details": {"reasoning_tokens": 9}, "completion_tokens_details": {}}}`,
		"dup-kinds":  `{"additional_usage_values": {"cache_read_input_tokens": true, "cache_read_input_tokens": 250, "server_tool_use": [1], "server_tool_use": {"web_search_requests": 2}}, "error_information": "boom", "error_information": {"error_code": "429"}}`,
		"dup-labels": `{"user_api_key_alias": "first", "user_api_key_alias": {"x": 1}, "user_api_key_team_alias": "a", "user_api_key_team_alias": "b", "model_map_information": {"model_map_key": "gpt-4o"}, "model_map_information": {}}`,
		"dup-last":   `{"additional_usage_values": {"cache_read_input_tokens": 250, "cache_read_input_tokens": "x"}}`,
		"num-exp":    `{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 4.0e2}}, "user_api_key_team_id": 4.2e1, "user_api_key_alias": 1e-2}`,
		"num-zero":   `{"additional_usage_values": {"cache_read_input_tokens": -0, "completion_tokens_details": {"reasoning_tokens": 0.5e2}}}`,
	}
	header := []string{"request_id", "call_type", "api_key", "spend", "total_tokens", "prompt_tokens", "completion_tokens", "startTime", "endTime",
		"model", "model_group", "custom_llm_provider", "api_base", "status", "metadata"}
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	w.Write(header)
	for id, meta := range metas {
		w.Write([]string{id, "acompletion", "k1", "0.001", "1100", "1000", "100", "2026-10-08 04:00:00", "2026-10-08 04:00:02",
			"claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic", "https://api.anthropic.com/v1/messages", "success", meta})
	}
	w.Flush()
	path := filepath.Join(t.TempDir(), "dup.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, path)
	fromDB, rejDB := readDB(t, db.URL, Options{})
	fromFile, rejFile := readFile(t, path)
	if len(fromDB) != len(metas)-1 || len(rejDB) != 1 || len(fromFile) != len(fromDB) || len(rejFile) != 1 {
		t.Fatalf("database: %d calls %v; file: %d calls %v; want %d calls and dup-last refused", len(fromDB), rejDB, len(fromFile), rejFile, len(metas)-1)
	}
	if !strings.Contains(rejDB[0].Item, "dup-last") || rejDB[0].Reason != rejFile[0].Reason {
		t.Errorf("refused: database %+v, file %+v", rejDB[0], rejFile[0])
	}
	for i := range fromDB {
		if d := sameCall(fromDB[i], fromFile[i]); d != "" {
			t.Errorf("call %s differs: %s", fromDB[i].RequestID, d)
		}
	}
}

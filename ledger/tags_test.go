package ledger

import (
	"strings"
	"testing"
)

// TestRequestTags reads LiteLLM's request_tags and the key's metadata
// from a CSV export and a JSON one, as LiteLLM stores them.
func TestRequestTags(t *testing.T) {
	const csvHeader = "request_id,startTime,spend,prompt_tokens,completion_tokens,request_tags,key_metadata\n"
	tests := []struct {
		name     string
		input    string
		wantTags []string
		wantMeta string
		rejected string
	}{
		{name: "csv tags sorted, each once, user agent left out",
			input:    csvHeader + `r1,2026-10-12 06:00:00,0,10,2,"[""prod"", ""User-Agent: python-httpx/0.27"", ""atlas"", ""prod""]","{""cost_center"": ""cc-42""}"` + "\n",
			wantTags: []string{"atlas", "prod"}, wantMeta: `{"cost_center": "cc-42"}`},
		{name: "csv no tags", input: csvHeader + "r1,2026-10-12 06:00:00,0,10,2,[],\n"},
		{name: "csv null", input: csvHeader + "r1,2026-10-12 06:00:00,0,10,2,null,null\n"},
		{name: "csv tags not an array", input: csvHeader + "r1,2026-10-12 06:00:00,0,10,2,prod,\n",
			rejected: `request_tags "prod" is not a JSON array of strings`},
		{name: "csv metadata not an object", input: csvHeader + `r1,2026-10-12 06:00:00,0,10,2,,"[1]"` + "\n",
			rejected: `key_metadata "[1]" is not a JSON object`},
		{name: "json", input: `[{"request_id":"r1","startTime":"2026-10-12 06:00:00","spend":0,"prompt_tokens":10,"completion_tokens":2,` +
			`"request_tags":["b","a"],"key_metadata":{"project":"atlas"}}]`,
			wantTags: []string{"a", "b"}, wantMeta: `{"project":"atlas"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls, rejected := readEdge(t, "in", tc.input, Options{})
			if tc.rejected != "" {
				if len(rejected) != 1 || !strings.Contains(rejected[0], tc.rejected) {
					t.Fatalf("rejected %q, want %q", rejected, tc.rejected)
				}
				return
			}
			if len(calls) != 1 || len(rejected) > 0 {
				t.Fatalf("%d calls, rejected %v", len(calls), rejected)
			}
			if got := SplitTags(calls[0].Tags); strings.Join(got, "|") != strings.Join(tc.wantTags, "|") {
				t.Errorf("tags %q, want %q", got, tc.wantTags)
			}
			if calls[0].KeyMeta != tc.wantMeta {
				t.Errorf("key metadata %q, want %q", calls[0].KeyMeta, tc.wantMeta)
			}
		})
	}
}

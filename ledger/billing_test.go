package ledger

import (
	"os"
	"strings"
	"testing"
)

// modifiersFixture holds LiteLLM_SpendLogs rows that carry the billing
// modifiers, as a table dump and as the /spend/logs JSON answer.
var modifiersFixture = []string{"../testdata/litellm/spendlogs-modifiers.csv", "../testdata/litellm/spendlogs-modifiers.json"}

// TestLiteLLMBillingModifiers reads each row's 1-hour writes, tool uses,
// service tier and region from where LiteLLM logs them.
func TestLiteLLMBillingModifiers(t *testing.T) {
	type want struct {
		tokens Tokens
		tools  ToolUses
		tier   ServiceTier
		region string
	}
	wants := map[string]want{
		// Chat Completions shape, LiteLLM 1.80: prompt_tokens 20000 = 1000
		// input + 4000 read + 15000 written, of which the split gives
		// 10000 to the 1-hour lifetime; 3 web searches; US-only inference.
		"chatcmpl-anth-1h": {tokens: Tokens{Input: 1000, CacheRead: 4000, CacheWrite: 5000, CacheWrite1h: 10000, Output: 800},
			tools: ToolUses{WebSearch: 3}, region: "us"},
		// Anthropic's own usage: input 50 uncached, 3000 written for an
		// hour (cache_creation), a search and two fetches, in the batch
		// tier; inference_geo "global" is no region.
		"msg_01BatchOneHourWrites": {tokens: Tokens{Input: 50, CacheRead: 2000, CacheWrite1h: 3000, Output: 200},
			tools: ToolUses{WebSearch: 1, WebFetch: 2}, tier: TierBatch},
		// service_tier "priority"; inference_geo "not_available".
		"msg_01PriorityTier": {tokens: Tokens{Input: 100, Output: 50}, tier: TierPriority},
		// Gemini grounding: prompt_tokens_details.web_search_requests.
		"gemini-Grounded4kQ8xM2p": {tokens: Tokens{Input: 5000, Output: 300}, tools: ToolUses{WebSearch: 2}},
		// A batch job's retrieval (call_type aretrieve_batch).
		"1b2f7d3c9e8a4f60b5d1c7e2a9f3b8d4": {tokens: Tokens{Input: 100000, Output: 20000}, tier: TierBatch},
		// OpenAI flex, as the usage object names it.
		"chatcmpl-FlexTier7Qe9o": {tokens: Tokens{Input: 1000, Output: 100}, tier: TierFlex},
	}
	for _, file := range modifiersFixture {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		calls, rejected := readEdge(t, file, string(data), Options{})
		if len(rejected) > 0 || len(calls) != len(wants) {
			t.Fatalf("%s: %d calls, rejected %v; want %d calls", file, len(calls), rejected, len(wants))
		}
		for _, c := range calls {
			w, ok := wants[c.RequestID]
			if !ok {
				t.Errorf("%s: unexpected request %q", file, c.RequestID)
				continue
			}
			got := want{c.Tokens, c.Tools, c.ServiceTier, c.Region}
			if got != w {
				t.Errorf("%s %s:\n got %+v\nwant %+v", file, c.RequestID, got, w)
			}
		}
	}
}

// TestBillingModifierRows covers the other formats' columns and fields,
// and the rows they refuse.
func TestBillingModifierRows(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		tokens Tokens
		tools  ToolUses
		tier   ServiceTier
		region string
		reason string // of the rejection, when refused
	}{
		{name: "canonical: every column",
			in: "start,model,input_tokens,cache_write_tokens,cache_write_1h_tokens,output_tokens,web_search_calls,web_fetch_calls,file_search_calls,service_tier,region\n" +
				"2026-10-01T00:00:00Z,m,10,20,30,5,1,2,3,Batch,US\n",
			tokens: Tokens{Input: 10, CacheWrite: 20, CacheWrite1h: 30, Output: 5}, tools: ToolUses{1, 2, 3}, tier: TierBatch, region: "us"},
		{name: "canonical: unknown service tier",
			in:     "start,model,input_tokens,output_tokens,service_tier\n2026-10-01T00:00:00Z,m,10,5,bulk\n",
			reason: `service_tier "bulk" is not standard, batch, flex or priority`},
		{name: "canonical: negative tool uses",
			in:     "start,model,input_tokens,output_tokens,web_search_calls\n2026-10-01T00:00:00Z,m,10,5,-1\n",
			reason: "web_search_calls"},
		{name: "CLIProxyAPI v7: the upstream's tier wins over the one asked for",
			in:     `{"timestamp":"2026-10-01T00:00:00Z","provider":"codex","model":"gpt-5.4","request_id":"r1","tokens":{"input_tokens":100,"output_tokens":10},"service_tier":"priority","response_service_tier":"flex"}` + "\n",
			tokens: Tokens{Input: 100, Output: 10}, tier: TierFlex},
		{name: "CLIProxyAPI v7: the tier asked for, OpenAI's default is standard",
			in:     `{"timestamp":"2026-10-01T00:00:00Z","provider":"codex","model":"gpt-5.4","request_id":"r2","tokens":{"input_tokens":100,"output_tokens":10},"service_tier":"default"}` + "\n",
			tokens: Tokens{Input: 100, Output: 10}},
		{name: "LiteLLM: 1-hour writes beyond the writes are refused",
			in: "request_id,startTime,spend,prompt_tokens,completion_tokens,metadata\n" +
				`x,2026-10-12 06:00:00,0,100,2,"{""additional_usage_values"": {""prompt_tokens_details"": {""cached_tokens"": 0, ""cache_creation_tokens"": 10, ""cache_creation_token_details"": {""ephemeral_5m_input_tokens"": 0, ""ephemeral_1h_input_tokens"": 50}}}}"` + "\n",
			reason: "ephemeral_1h_input_tokens 50 exceeds the cache-creation tokens 10"},
		{name: "LiteLLM: a bad web search count is refused",
			in: "request_id,startTime,spend,prompt_tokens,completion_tokens,metadata\n" +
				`x,2026-10-12 06:00:00,0,100,2,"{""additional_usage_values"": {""server_tool_use"": {""web_search_requests"": -3}}}"` + "\n",
			reason: "server_tool_use.web_search_requests"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, rejected := readEdge(t, "in", tt.in, Options{})
			if tt.reason != "" {
				if len(rejected) != 1 || !strings.Contains(rejected[0], tt.reason) {
					t.Fatalf("calls %d, rejected %v; want one rejection naming %q", len(calls), rejected, tt.reason)
				}
				return
			}
			if len(calls) != 1 || len(rejected) > 0 {
				t.Fatalf("%d calls, rejected %v", len(calls), rejected)
			}
			c := calls[0]
			if c.Tokens != tt.tokens || c.Tools != tt.tools || c.ServiceTier != tt.tier || c.Region != tt.region {
				t.Errorf("got %+v %v %v %q, want %+v %v %v %q", c.Tokens, c.Tools, c.ServiceTier, c.Region, tt.tokens, tt.tools, tt.tier, tt.region)
			}
		})
	}
}

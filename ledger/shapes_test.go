package ledger

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// shapesFixture holds one LiteLLM_SpendLogs row per usage shape, as a
// whole-table dump (psql \copy … CSV HEADER) and as the /spend/logs
// JSON answer (summarize=false) for the same rows.
var shapesFixture = []string{"../testdata/litellm/spendlogs-shapes.csv", "../testdata/litellm/spendlogs-shapes.json"}

// TestLiteLLMUsageShapes reads every shape and checks its buckets, worked
// out by hand from what the provider reported and how LiteLLM stored it.
func TestLiteLLMUsageShapes(t *testing.T) {
	want := map[string]struct {
		tokens   Tokens
		cacheHit bool
	}{
		// Anthropic, LiteLLM ≈1.72: provider input 40, cache read 6000,
		// cache write 2000, output 500. prompt_tokens 6040 = 40 + 6000;
		// details.cached_tokens is 0, the read count is in
		// cache_read_input_tokens; the writes lie outside prompt_tokens.
		"chatcmpl-anth-172": {tokens: Tokens{Input: 6040 - 6000, CacheRead: 6000, CacheWrite: 2000, Output: 500}},
		// The same version, a cache-write-only call: prompt_tokens 12 is
		// the provider's input alone; 18250 written beside it.
		"chatcmpl-anth-172-write": {tokens: Tokens{Input: 12, CacheWrite: 18250, Output: 300}},
		// The same version, a long prompt: 7000 = 5000 input + 2000 read;
		// 7000 could hold the 1000 writes too, but without
		// prompt_tokens_details.cache_creation_tokens they are outside.
		"chatcmpl-anth-172-long": {tokens: Tokens{Input: 7000 - 2000, CacheRead: 2000, CacheWrite: 1000, Output: 100}},
		// Anthropic, LiteLLM 1.80: prompt_tokens 98805 = 10 + 66360 read +
		// 32435 written, details filled; 1710 of 5120 output is thinking.
		"chatcmpl-anth-180": {tokens: Tokens{Input: 98805 - 66360 - 32435, CacheRead: 66360, CacheWrite: 32435, Output: 5120, Reasoning: 1710}},
		// Anthropic Messages API: input_tokens 25 is the uncached part.
		"msg_01XFDUDYJgAACzvnptvVoYEL": {tokens: Tokens{Input: 25, CacheRead: 9000, Output: 400}},
		// OpenAI chat: 1920 of 3000 prompt tokens cached.
		"chatcmpl-CFk2t7Qe9oai": {tokens: Tokens{Input: 3000 - 1920, CacheRead: 1920, Output: 200}},
		// Responses API: input_tokens 2762 holds 1920 cached.
		"resp_68c1f0a7b2e4819ab0": {tokens: Tokens{Input: 2762 - 1920, CacheRead: 1920, Output: 345}},
		// Responses API: 896 of 1200 output tokens are reasoning.
		"resp_68c1f0c3d9a4819bb1": {tokens: Tokens{Input: 5000 - 4096, CacheRead: 4096, Output: 1200, Reasoning: 896}},
		// DeepSeek: 6912 cache hits of 8137; 300 of 628 output thinking.
		"0f6c2b8e-5d1a-4e3b-9a7c-2e8d4f6b1a03": {tokens: Tokens{Input: 8137 - 6912, CacheRead: 6912, Output: 628, Reasoning: 300}},
		// DeepSeek with only prompt_cache_hit_tokens: 1536 of 2000.
		"5b9e1d7c-3a2f-4c8e-b6d0-7f1a9c2e4b58": {tokens: Tokens{Input: 2000 - 1536, CacheRead: 1536, Output: 100}},
		// Gemini: 8000 cached of 12000; completion 2000 = 700 text + 1300 thoughts.
		"gemini-Yb3nZ9kQ8xM2pL7v": {tokens: Tokens{Input: 12000 - 8000, CacheRead: 8000, Output: 2000, Reasoning: 1300}},
		// Gemini, older LiteLLM: completion_tokens 700 leaves out 1300
		// thoughts that total_tokens 14000 = 12000 + 700 + 1300 holds.
		"gemini-Qw4eR7tY1uI5oP0a": {tokens: Tokens{Input: 12000 - 8000, CacheRead: 8000, Output: 700 + 1300, Reasoning: 1300}},
		// Bedrock: prompt_tokens 5020 = 20 + 5000 read; total_tokens 6270 =
		// 5020 + 250 + 1000 written outside prompt_tokens.
		"chatcmpl-bedrock-out": {tokens: Tokens{Input: 5020 - 5000, CacheRead: 5000, CacheWrite: 1000, Output: 250}},
		// Bedrock, writes inside: 6020 = 20 + 5000 + 1000.
		"chatcmpl-bedrock-in": {tokens: Tokens{Input: 6020 - 5000 - 1000, CacheRead: 5000, CacheWrite: 1000, Output: 250}},
		// A response-cache hit: the cached answer's tokens, never sent.
		"chatcmpl-CFk2t7Qe9oai_cache_hit1791774000.512": {tokens: Tokens{Input: 1080, CacheRead: 1920, Output: 200}, cacheHit: true},
	}
	var reads [][]Call
	for _, file := range shapesFixture {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		res := readAll(t, file, data, Options{})
		if res.Err != "" || len(res.Rejected) > 0 || res.Rows != len(want) || len(res.Calls) != len(want) {
			t.Fatalf("%s: %d rows, %d calls, rejected %v, error %q; want %d calls", file, res.Rows, len(res.Calls), res.Rejected, res.Err, len(want))
		}
		calls, _ := readEdge(t, file, string(data), Options{})
		for _, c := range calls {
			w, ok := want[c.RequestID]
			if !ok {
				t.Errorf("%s: unexpected request %q", file, c.RequestID)
				continue
			}
			if c.Tokens != w.tokens || c.CacheHit != w.cacheHit {
				t.Errorf("%s %s: tokens %+v cache hit %v, want %+v %v", file, c.RequestID, c.Tokens, c.CacheHit, w.tokens, w.cacheHit)
			}
			if c.KeyAlias != "search-agent-prod" || c.Team != "search" {
				t.Errorf("%s %s: key alias %q team %q", file, c.RequestID, c.KeyAlias, c.Team)
			}
		}
		reads = append(reads, calls)
	}
	// The dump and the JSON answer are the same rows: the same calls.
	byID := map[string]Call{}
	for _, c := range reads[0] {
		byID[c.RequestID] = c
	}
	for _, c := range reads[1] {
		d := byID[c.RequestID]
		d.SettleSource()
		c.SettleSource()
		d.Source, c.Source = "", ""
		if !c.Recorded.Equal(d.Recorded) {
			t.Errorf("%s: recorded %s in JSON, %s in CSV", c.RequestID, c.Recorded, d.Recorded)
		}
		d.Recorded = c.Recorded
		if c != d {
			t.Errorf("%s: JSON %+v\nCSV %+v", c.RequestID, c, d)
		}
	}
}

// TestUsageSplit covers the rules one count at a time.
func TestUsageSplit(t *testing.T) {
	set := func(n int64) count { return count{n, true} }
	tests := []struct {
		name   string
		u      usageCounts
		want   Tokens
		reason string
	}{
		{"Responses API row with no prompt_tokens: input_tokens stands in",
			usageCounts{input: set(500), output: set(80), inCached: set(300), outReasoning: set(50), hasInOutDetails: true},
			Tokens{Input: 200, CacheRead: 300, Output: 80, Reasoning: 50}, ""},
		{"Responses API cache writes (OpenAI's cache_write_tokens) lie inside input_tokens",
			usageCounts{prompt: 1000, completion: 10, input: set(1000), inCached: set(600), inWrite: set(300), hasInOutDetails: true},
			Tokens{Input: 100, CacheRead: 600, CacheWrite: 300, Output: 10}, ""},
		{"the 5m/1h split of the writes marks the versions that count them inside",
			usageCounts{prompt: 734311, completion: 9, cacheRead: set(426653), cacheWrite: set(184457), hasPromptDetails: true, hasWriteSplit: true},
			Tokens{Input: 734311 - 426653 - 184457, CacheRead: 426653, CacheWrite: 184457, Output: 9}, ""},
		{"a chat usage that also carries input_tokens is read as chat",
			usageCounts{prompt: 100, completion: 4, input: set(7), detailCached: set(60), hasPromptDetails: true},
			Tokens{Input: 40, CacheRead: 60, Output: 4}, ""},
		{"flat export: writes beyond a prompt that holds its reads are outside it",
			usageCounts{prompt: 100, completion: 10, flatCached: set(90), flatWrite: set(20)},
			Tokens{Input: 10, CacheRead: 90, CacheWrite: 20, Output: 10}, ""},
		{"reads beyond the prompt are refused",
			usageCounts{prompt: 10, completion: 5, detailCached: set(50), hasPromptDetails: true},
			Tokens{}, "prompt_tokens 10 is less than cached 50 + cache-creation 0 tokens"},
		{"reasoning beyond the output, with no total to explain it, is refused",
			usageCounts{prompt: 10, completion: 5, reasoning: set(9), total: set(15)},
			Tokens{}, "reasoning_tokens 9 exceeds completion_tokens 5"},
		{"a total holding both writes and thoughts",
			usageCounts{prompt: 110, completion: 20, total: set(110 + 20 + 30 + 7), detailWrite: set(30), cacheWrite: set(30), reasoning: set(7), hasPromptDetails: true},
			Tokens{Input: 110, CacheWrite: 30, Output: 27, Reasoning: 7}, ""},
		{"DeepSeek hits win over a zero detail",
			usageCounts{prompt: 100, completion: 1, detailCached: set(0), deepSeekHit: set(64), hasPromptDetails: true},
			Tokens{Input: 36, CacheRead: 64, Output: 1}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := tc.u.split()
			if reason != tc.reason || (reason == "" && got != tc.want) {
				t.Errorf("got %+v %q, want %+v %q", got, reason, tc.want, tc.reason)
			}
		})
	}
}

// TestSummarizedSpendLogsRefused: /spend/logs answers summarize=true by
// default with daily totals; reading them must say how to ask for calls.
func TestSummarizedSpendLogsRefused(t *testing.T) {
	data, err := os.ReadFile("../testdata/litellm/spendlogs-summarized.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = open(context.Background(), "summary.json", strings.NewReader(string(data)), Options{})
	if !errors.Is(err, ErrNoPerCallTimes) || !strings.Contains(err.Error(), "summarize=true") ||
		!strings.Contains(err.Error(), "summarize=false") {
		t.Errorf("err = %v, want a refusal naming summarize=true and asking for summarize=false", err)
	}
}

// TestCacheHitWithoutColumn: an export without the cache_hit column still
// tells a response-cache hit by the request id LiteLLM gives it.
func TestCacheHitWithoutColumn(t *testing.T) {
	const header = "request_id,startTime,spend,prompt_tokens,completion_tokens\n"
	tests := []struct {
		id  string
		hit bool
	}{
		{"chatcmpl-9_cache_hit1791774000.512", true},
		{"chatcmpl-9", false},
		{"_cache_hit1791774000", false}, // no original id before it
		{"my_cache_hit_test", false},    // not followed by a time
	}
	for _, tc := range tests {
		calls, rejected := readEdge(t, "in", header+tc.id+",2026-10-12 06:00:00,0,10,2\n", Options{})
		if len(calls) != 1 || len(rejected) > 0 {
			t.Fatalf("%s: %d calls, rejected %v", tc.id, len(calls), rejected)
		}
		if calls[0].CacheHit != tc.hit {
			t.Errorf("%s: cache hit %v, want %v", tc.id, calls[0].CacheHit, tc.hit)
		}
	}
}

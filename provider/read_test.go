package provider

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

const fixtures = "../testdata/provider"

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func day(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// want is what one row must hold; zero fields are checked too.
type want struct {
	start, end       string
	model, keyID     string
	key              string
	qty              [tariffs.NumUsage]int64
	tokens, requests bool
	billed           string // "" when the row bills nothing
	byUsage          map[tariffs.Usage]string
	where            string
}

func TestReadFixtures(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		rows   []want
	}{
		{"openai-usage.jsonl", OpenAIUsage, []want{{
			// input_tokens 4200 include the 200 cached: 4000 uncached.
			start: "2026-10-12T00:00:00Z", end: "2026-10-13T00:00:00Z", model: "gpt-4o-mini-2024-07-18", keyID: "key_9a8b7c6d5e4f3a2b",
			qty:    [tariffs.NumUsage]int64{tariffs.Input: 4000, tariffs.CacheRead: 200, tariffs.Output: 500, tariffs.Request: 3},
			tokens: true, requests: true, where: "openai-usage.jsonl: page 1 data[0].results[0]",
		}}},
		{"openai-costs.json", OpenAICosts, []want{
			{start: "2026-10-12T00:00:00Z", end: "2026-10-13T00:00:00Z", model: "gpt-4o-mini-2024-07-18", billed: "0.0006",
				byUsage: map[tariffs.Usage]string{tariffs.Input: "0.0006"}, where: "openai-costs.json: data[0].results[0]"},
			// 1.5e-05 as the API writes it, read from its text.
			{start: "2026-10-12T00:00:00Z", end: "2026-10-13T00:00:00Z", model: "gpt-4o-mini-2024-07-18", billed: "0.000015",
				byUsage: map[tariffs.Usage]string{tariffs.CacheRead: "0.000015"}, where: "openai-costs.json: data[0].results[1]"},
			// Every digit of the float's shortest text is kept.
			{start: "2026-10-12T00:00:00Z", end: "2026-10-13T00:00:00Z", model: "gpt-4o-mini-2024-07-18", billed: "0.00030000000000000003",
				byUsage: map[tariffs.Usage]string{tariffs.Output: "0.00030000000000000003"}, where: "openai-costs.json: data[0].results[2]"},
		}},
		{"anthropic-usage.json", AnthropicUsage, []want{{
			// cache_creation's 5m writes (400) and 1h writes (0) stay apart;
			// server_tool_use counts one web search.
			start: "2026-10-12T00:00:00Z", end: "2026-10-13T00:00:00Z", model: "claude-haiku-4-5-20251001", keyID: "apikey_01Rj2N8SVvo6BePZj99NhmiT",
			qty: [tariffs.NumUsage]int64{tariffs.Input: 1500, tariffs.CacheRead: 2000, tariffs.CacheWrite: 400, tariffs.Output: 300,
				tariffs.WebSearch: 1},
			tokens: true, where: "anthropic-usage.json: data[0].results[0]",
		}}},
		{"anthropic-cost.json", AnthropicCost, []want{
			// Amounts are cents: "0.15" is 0.0015 USD.
			{start: "2026-10-12T00:00:00Z", end: "2026-10-13T00:00:00Z", model: "claude-haiku-4-5-20251001", billed: "0.0015",
				byUsage: map[tariffs.Usage]string{tariffs.Input: "0.0015"}, where: "anthropic-cost.json: data[0].results[0]"},
			{start: "2026-10-12T00:00:00Z", end: "2026-10-13T00:00:00Z", model: "claude-haiku-4-5-20251001", billed: "0.0002",
				byUsage: map[tariffs.Usage]string{tariffs.CacheRead: "0.0002"}, where: "anthropic-cost.json: data[0].results[1]"},
			{start: "2026-10-12T00:00:00Z", end: "2026-10-13T00:00:00Z", model: "claude-haiku-4-5-20251001", billed: "0.0005",
				byUsage: map[tariffs.Usage]string{tariffs.CacheWrite: "0.0005"}, where: "anthropic-cost.json: data[0].results[2]"},
			{start: "2026-10-12T00:00:00Z", end: "2026-10-13T00:00:00Z", model: "claude-haiku-4-5-20251001", billed: "0.0015",
				byUsage: map[tariffs.Usage]string{tariffs.Output: "0.0015"}, where: "anthropic-cost.json: data[0].results[3]"},
			// Web search (cost_type web_search) bills the web_search usage.
			{start: "2026-10-12T00:00:00Z", end: "2026-10-13T00:00:00Z", model: "claude-haiku-4-5-20251001", billed: "0.01",
				byUsage: map[tariffs.Usage]string{tariffs.WebSearch: "0.01"}, where: "anthropic-cost.json: data[0].results[4]"},
		}},
		{"deepseek-usage.csv", DeepSeekUsage, []want{
			{start: "2026-10-12T02:00:00Z", end: "2026-10-12T03:00:00Z", model: "deepseek-flash", key: ledger.HashKey("sk-deepseek-alpha-0001"),
				qty:    [tariffs.NumUsage]int64{tariffs.Input: 1000, tariffs.CacheRead: 1000, tariffs.Output: 500, tariffs.Request: 1},
				tokens: true, requests: true, billed: "0.000906",
				byUsage: map[tariffs.Usage]string{tariffs.Input: "0.0003", tariffs.CacheRead: "0.000006", tariffs.Output: "0.0006"}, where: "deepseek-usage.csv:2"},
			// A zone-less time is UTC; the amount column may be empty.
			{start: "2026-10-12T12:00:00Z", end: "2026-10-12T13:00:00Z", model: "deepseek-flash", key: ledger.HashKey("sk-deepseek-alpha-0001"),
				qty:    [tariffs.NumUsage]int64{tariffs.Input: 3000, tariffs.Output: 150, tariffs.Request: 2},
				tokens: true, requests: true, billed: "0.00054",
				byUsage: map[tariffs.Usage]string{tariffs.Input: "0.00045", tariffs.Output: "0.00009"}, where: "deepseek-usage.csv:3"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			x, err := ReadFile(context.Background(), filepath.Join(fixtures, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if x.Format != tt.format || len(x.Rows) != len(tt.rows) {
				t.Fatalf("format %s with %d rows, want %s with %d", x.Format, len(x.Rows), tt.format, len(tt.rows))
			}
			for i, w := range tt.rows {
				checkRow(t, &x.Rows[i], w)
			}
		})
	}
}

func checkRow(t *testing.T, r *Row, w want) {
	t.Helper()
	if !r.Start.Equal(day(w.start)) || !r.End.Equal(day(w.end)) || r.Model != w.model || r.KeyID != w.keyID || r.Key != w.key ||
		r.Qty != w.qty || r.HasTokens != w.tokens || r.HasRequests != w.requests || !strings.HasSuffix(r.Where, w.where) {
		t.Errorf("row %s:\n got %+v\nwant %+v", w.where, r, w)
	}
	if r.HasBilled != (w.billed != "") || (w.billed != "" && (!r.Billed.Equal(dec(w.billed)) || r.Currency != "USD")) {
		t.Errorf("%s: billed %v %s %s, want %q USD", w.where, r.HasBilled, r.Billed, r.Currency, w.billed)
	}
	if r.Split != (w.byUsage != nil) {
		t.Errorf("%s: split %v, want %v", w.where, r.Split, w.byUsage != nil)
	}
	for u := range tariffs.NumUsage {
		wu := "0"
		if s, ok := w.byUsage[tariffs.Usage(u)]; ok {
			wu = s
		}
		if r.Split && !r.ByUsage[u].Equal(dec(wu)) {
			t.Errorf("%s: billed %s %s, want %s", w.where, tariffs.Usage(u), r.ByUsage[u], wu)
		}
	}
}

func TestReadPagesInAnArray(t *testing.T) {
	// Two OpenAI pages saved as one JSON array; null counts are zero.
	in := `[{"object":"page","data":[{"object":"bucket","start_time":1791763200,"end_time":1791766800,"results":[
{"object":"organization.usage.completions.result","input_tokens":10,"output_tokens":5,"input_cached_tokens":null,"num_model_requests":1,"model":"gpt-4o-mini","api_key_id":null,"project_id":"proj_1"}]}],"has_more":true,"next_page":"x"},
{"object":"page","data":[{"object":"bucket","start_time":1791766800,"end_time":1791770400,"results":[
{"object":"organization.usage.completions.result","input_tokens":20,"output_tokens":0,"num_model_requests":2,"model":null}]}],"has_more":false,"next_page":null}]`
	x, err := Read(context.Background(), "pages.json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(x.Rows))
	}
	// Hourly buckets: 00:00-01:00 and 01:00-02:00 of 2026-10-12.
	checkRow(t, &x.Rows[0], want{start: "2026-10-12T00:00:00Z", end: "2026-10-12T01:00:00Z", model: "gpt-4o-mini",
		qty: [tariffs.NumUsage]int64{tariffs.Input: 10, tariffs.Output: 5, tariffs.Request: 1}, tokens: true, requests: true,
		where: "pages.json: page 1 data[0].results[0]"})
	checkRow(t, &x.Rows[1], want{start: "2026-10-12T01:00:00Z", end: "2026-10-12T02:00:00Z",
		qty: [tariffs.NumUsage]int64{tariffs.Input: 20, tariffs.Request: 2}, tokens: true, requests: true,
		where: "pages.json: page 2 data[0].results[0]"})
}

func TestReadErrors(t *testing.T) {
	const openAIBucket = `{"object":"page","data":[{"object":"bucket","start_time":%s,"end_time":%s,"results":[%s]}]}`
	usage := func(fields string) string {
		return `{"object":"organization.usage.completions.result","model":"gpt-4o-mini",` + fields + `}`
	}
	tests := []struct {
		name, in string
		err      error
		where    string
	}{
		{"bucket over two days", strings.NewReplacer("%s", "").Replace(`{"object":"page","data":[{"object":"bucket","start_time":1791763200,"end_time":1791936000,"results":[]}]}`),
			ErrBucket, "x.json: data[0]"},
		{"bucket ends before it starts", `{"data":[{"starting_at":"2026-10-12T01:00:00Z","ending_at":"2026-10-12T00:00:00Z","results":[]}]}`,
			ErrBucket, "x.json: data[0]"},
		{"negative count", replace3(openAIBucket, "1791763200", "1791849600", usage(`"input_tokens":-5,"output_tokens":1,"num_model_requests":1`)),
			ErrBadValue, "x.json: data[0].results[0]"},
		{"fractional count", replace3(openAIBucket, "1791763200", "1791849600", usage(`"input_tokens":5.5,"output_tokens":1,"num_model_requests":1`)),
			ErrBadValue, "x.json: data[0].results[0]"},
		{"cached above input", replace3(openAIBucket, "1791763200", "1791849600", usage(`"input_tokens":5,"input_cached_tokens":6,"output_tokens":1,"num_model_requests":1`)),
			ErrBadValue, "x.json: data[0].results[0]"},
		{"embeddings usage", replace3(openAIBucket, "1791763200", "1791849600", `{"object":"organization.usage.embeddings.result","input_tokens":1,"num_model_requests":1}`),
			ErrUnknownFormat, "x.json: data[0].results[0]"},
		{"anthropic amount not a decimal", `{"data":[{"starting_at":"2026-10-12T00:00:00Z","ending_at":"2026-10-13T00:00:00Z","results":[{"amount":"1,5","currency":"USD","model":null}]}]}`,
			ErrBadValue, "x.json: data[0].results[0]"},
		{"amount of 10,000 digits", `{"data":[{"starting_at":"2026-10-12T00:00:00Z","ending_at":"2026-10-13T00:00:00Z","results":[{"amount":"` + strings.Repeat("9", 10000) + `","currency":"USD","model":null}]}]}`,
			ErrBadValue, "x.json: data[0].results[0]"},
		{"deepseek amount of 10,000 digits", "time,model,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens,amount,currency\n2026-10-12,deepseek-flash,0,1,0," + strings.Repeat("9", 10000) + ",USD\n",
			ErrBadValue, "x.json:2"},
		{"not an export", `{"hello":"world"}`, ErrUnknownFormat, "x.json"},
		{"empty", "  \n", ErrUnknownFormat, "x.json"},
		{"csv without token columns", "time,model,amount\n2026-10-12,deepseek-flash,1\n", ErrUnknownFormat, "x.json:1"},
		{"deepseek time not an hour", "time,model,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens\n2026-10-12T02:30:00Z,deepseek-flash,1,1,1\n",
			ErrBadValue, "x.json:2"},
		{"deepseek amounts disagree", "time,model,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens,cache_miss_amount,amount,currency\n2026-10-12,deepseek-flash,0,1,0,0.5,0.6,USD\n",
			ErrBadValue, "x.json:2"},
		{"deepseek amount without currency", "time,model,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens,amount\n2026-10-12,deepseek-flash,0,1,0,0.5\n",
			ErrBadValue, "x.json:2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(context.Background(), "x.json", strings.NewReader(tt.in))
			var pe *Error
			if !errors.Is(err, tt.err) || !errors.As(err, &pe) || pe.Where != tt.where {
				t.Errorf("error %v, want %v at %q", err, tt.err, tt.where)
			}
		})
	}
}

// TestReadGzip: a gzip-compressed export reads as the plain one.
func TestReadGzip(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join(fixtures, "deepseek-usage.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(plain)
	zw.Close()
	x, err := Read(context.Background(), "usage.csv.gz", &zipped)
	if err != nil || x.Format != DeepSeekUsage || len(x.Rows) != 2 {
		t.Fatalf("gzip: %v, %+v", err, x)
	}
	if _, err := ReadFile(context.Background(), fixtures); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("a directory: %v, want ErrUnknownFormat", err)
	}
}

func replace3(format, a, b, c string) string {
	return strings.Replace(strings.Replace(strings.Replace(format, "%s", a, 1), "%s", b, 1), "%s", c, 1)
}

// TestDeepSeekKeysNeverInErrors: a bad row's error names its line and
// column, never the raw key on it.
func TestDeepSeekKeysNeverInErrors(t *testing.T) {
	const key = "sk-0123456789abcdef-secret"
	for _, in := range []string{
		"time,api_key,model,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens\n2026-10-12T02:00:00Z," + key + ",deepseek-flash,x,1,1\n",
		"time,api_key,model,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens\n2026-10-12T02:00:00Z,\"" + key + "\"x,deepseek-flash,1,1,1\n",
		"time,api_key,model,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens\n" + key + "," + key + ",deepseek-flash,1,1,1\n",
	} {
		_, err := Read(context.Background(), "usage.csv", strings.NewReader(in))
		if err == nil || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "0123456789abcdef") {
			t.Errorf("error %v: want an error without the key", err)
		}
	}
}

// TestBillingModifierRows: the exports' 1-hour writes, web searches,
// service tiers and regions reach the row.
func TestBillingModifierRows(t *testing.T) {
	tests := []struct {
		name   string
		page   string
		qty    [tariffs.NumUsage]int64
		tier   tariffs.ServiceTier
		region string
	}{
		{name: "Anthropic usage: 1-hour writes, searches, batch, US",
			page: `{"data": [{"starting_at": "2026-10-12T00:00:00Z", "ending_at": "2026-10-13T00:00:00Z", "results": [{"uncached_input_tokens": 10,
				"cache_creation": {"ephemeral_1h_input_tokens": 700, "ephemeral_5m_input_tokens": 300}, "cache_read_input_tokens": 0,
				"output_tokens": 5, "server_tool_use": {"web_search_requests": 4}, "model": "claude-sonnet-4-6",
				"service_tier": "batch", "inference_geo": "us"}]}], "has_more": false}`,
			qty:  [tariffs.NumUsage]int64{tariffs.Input: 10, tariffs.CacheWrite: 300, tariffs.CacheWrite1h: 700, tariffs.Output: 5, tariffs.WebSearch: 4},
			tier: tariffs.Batch, region: "us"},
		{name: "OpenAI usage grouped by batch",
			page: `{"object": "page", "data": [{"object": "bucket", "start_time": 1791763200, "end_time": 1791849600, "results": [{"object": "organization.usage.completions.result",
				"input_tokens": 100, "input_cached_tokens": 0, "output_tokens": 20, "num_model_requests": 1, "model": "gpt-4o", "batch": true}]}], "has_more": false}`,
			qty:  [tariffs.NumUsage]int64{tariffs.Input: 100, tariffs.Output: 20, tariffs.Request: 1},
			tier: tariffs.Batch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := Read(context.Background(), "page.json", strings.NewReader(tt.page))
			if err != nil {
				t.Fatal(err)
			}
			if len(x.Rows) != 1 {
				t.Fatalf("%d rows", len(x.Rows))
			}
			r := x.Rows[0]
			if r.Qty != tt.qty || r.ServiceTier != tt.tier || r.Region != tt.region {
				t.Errorf("got %v %v %q, want %v %v %q", r.Qty, r.ServiceTier, r.Region, tt.qty, tt.tier, tt.region)
			}
		})
	}
}

// endless is an endless reader of one byte, as /dev/zero or `yes`.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// TestReadBounded checks the contract "an export is read up to MaxBytes,
// never more": /dev/zero is refused as binary at once, and an endless
// line of text after MaxBytes with ErrTooLarge.
func TestReadBounded(t *testing.T) {
	tests := []struct {
		name string
		in   io.Reader
		err  error
	}{
		{"dev zero", endless(0), ErrUnknownFormat},
		{"xlsx workbook", strings.NewReader("PK\x03\x04\x14\x00\x06\x00[Content_Types].xml"), ErrUnknownFormat},
		{"endless json", io.MultiReader(strings.NewReader(`{"data":"`), endless('x')), ErrTooLarge},
		{"endless csv line", endless('y'), ErrTooLarge},
	}
	defer func(n int64) { maxBytes = n }(maxBytes)
	maxBytes = 1 << 20 // the bound at work, without reading 64 MiB
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(context.Background(), "x", tt.in)
			var pe *Error
			if !errors.Is(err, tt.err) || !errors.As(err, &pe) || pe.Where != "x" {
				t.Errorf("error %v, want %v at x", err, tt.err)
			}
		})
	}
}

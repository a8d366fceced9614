package main

import (
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// dumpEncoder writes the whole table the way PostgreSQL's
// COPY "LiteLLM_SpendLogs" TO STDOUT (FORMAT csv, HEADER) does: every
// column, NULL as an empty field, jsonb with its own key order and spacing,
// double precision in PostgreSQL's shortest form. Cache and reasoning tokens
// and the aliases are only in metadata.
type dumpEncoder struct{}

const dumpHeader = "request_id,call_type,api_key,spend,total_tokens,prompt_tokens,completion_tokens," +
	"startTime,endTime,completionStartTime,request_duration_ms,model,model_id,model_group," +
	"custom_llm_provider,api_base,user,metadata,cache_hit,cache_key,request_tags,team_id," +
	"organization_id,end_user,requester_ip_address,messages,response,session_id,status," +
	"mcp_namespaced_tool_name,agent_id,proxy_server_request\n"

func (dumpEncoder) header(b []byte) []byte { return append(b, dumpHeader...) }

func (dumpEncoder) row(b []byte, c *call) []byte {
	b = append(append(b, c.RequestID...), ',')
	b = appendString(b, callType(c))
	b = appendString(b, c.Key.Hash)
	b = append(appendFloat8(b, c.Spend), ',')
	b = appendInt(b, c.Prompt+c.Completion)
	b = appendInt(b, c.Prompt)
	b = appendInt(b, c.Completion)
	b = append(appendTime(b, c.Start), ',')
	b = append(appendTime(b, c.End), ',')
	b = append(appendTime(b, c.FirstToken), ',')
	b = appendInt(b, c.End-c.Start)
	b = appendString(b, c.Dep.Model)
	b = appendString(b, c.Dep.ID)
	b = appendString(b, c.Dep.Group)
	b = appendString(b, c.Dep.Provider)
	b = appendString(b, c.Dep.APIBase)
	b = appendString(b, c.Key.User)
	b = append(appendMetadata(b, c), ',')
	b = appendString(b, "False")
	b = appendString(b, "Cache OFF")
	b = appendString(b, `"[""User-Agent: OpenAI/Python 1.109.1""]"`)
	b = appendString(b, c.Key.Team.ID)
	b = appendString(b, "") // organization_id: NULL
	b = appendEndUser(b, c.EndUser)
	b = appendString(b, requesterIP(c))
	b = appendString(b, "{}")
	b = appendString(b, "{}")
	b = append(appendSessionID(b, c), ',')
	b = appendString(b, status(c))
	b = appendString(b, "") // mcp_namespaced_tool_name: NULL
	b = appendString(b, "") // agent_id: NULL
	return append(b, "{}\n"...)
}

// appendMetadata appends the metadata jsonb as one quoted CSV field. Keys
// are in jsonb's order (shorter first, then bytewise), as PostgreSQL prints.
func appendMetadata(b []byte, c *call) []byte {
	b = append(b, `"{""status"": ""`...)
	b = append(b, status(c)...)
	b = append(b, `"", ""user_api_key"": ""`...)
	b = append(b, c.Key.Hash...)
	b = append(b, `"", `...)
	if c.Failed {
		b = appendErrorInfo(b, c)
	}
	b = append(b, `""user_api_key_alias"": ""`...)
	b = append(b, c.Key.Alias...)
	b = append(b, `"", ""user_api_key_team_id"": ""`...)
	b = append(b, c.Key.Team.ID...)
	b = append(b, `"", ""user_api_key_user_id"": ""`...)
	b = append(b, c.Key.User...)
	b = append(b, `"", ""additional_usage_values"": {`...)
	b = appendUsageModifiers(b, c)
	b = append(b, `""prompt_tokens_details"": {""cached_tokens"": `...)
	b = strconv.AppendInt(b, c.Cached, 10)
	b = append(b, `, ""cache_creation_tokens"": `...)
	b = strconv.AppendInt(b, c.CacheWrite, 10)
	if c.CacheWrite1h > 0 {
		b = append(b, `, ""cache_creation_token_details"": {""ephemeral_1h_input_tokens"": `...)
		b = strconv.AppendInt(b, c.CacheWrite1h, 10)
		b = append(b, `, ""ephemeral_5m_input_tokens"": `...)
		b = strconv.AppendInt(b, c.CacheWrite-c.CacheWrite1h, 10)
		b = append(b, '}')
	}
	b = append(b, `}, ""completion_tokens_details"": {""reasoning_tokens"": `...)
	b = strconv.AppendInt(b, c.Reasoning, 10)
	b = append(b, `}}, ""user_api_key_team_alias"": ""`...)
	b = append(b, c.Key.Team.Alias...)
	return append(b, `""}"`...)
}

// appendUsageModifiers appends the usage members that carry billing
// modifiers, in jsonb's key order, each followed by ", ": service_tier,
// inference_geo, server_tool_use.
func appendUsageModifiers(b []byte, c *call) []byte {
	if t := serviceTier(c); t != "" {
		b = append(append(append(b, `""service_tier"": ""`...), t...), `"", `...)
	}
	if g := geo(c); g != "" {
		b = append(append(append(b, `""inference_geo"": ""`...), g...), `"", `...)
	}
	if c.WebSearch > 0 || c.WebFetch > 0 {
		b = append(b, `""server_tool_use"": {""web_fetch_requests"": `...)
		b = strconv.AppendInt(b, c.WebFetch, 10)
		b = append(b, `, ""web_search_requests"": `...)
		b = strconv.AppendInt(b, c.WebSearch, 10)
		b = append(b, `}, `...)
	}
	return b
}

var errorCodes = map[string]string{
	"RateLimitError": "429", "Timeout": "408", "InternalServerError": "500",
	"BadRequestError": "400", "APIConnectionError": "500",
}

func appendErrorInfo(b []byte, c *call) []byte {
	b = append(b, `""error_information"": {""error_code"": ""`...)
	b = append(b, errorCodes[c.ErrorClass]...)
	b = append(b, `"", ""error_class"": ""`...)
	b = append(b, c.ErrorClass...)
	b = append(b, `"", ""llm_provider"": ""`...)
	b = append(b, c.Dep.Provider...)
	return append(b, `""}, `...)
}

// appendFloat8 appends a non-negative d as PostgreSQL prints a double
// precision value: the shortest digits, in exponent form below 1e-4
// (0.000014 is 1.4e-05). d has at most 15 significant digits, so its own
// digits are the shortest form.
func appendFloat8(b []byte, d decimal.Decimal) []byte {
	s := d.String()
	if d.IsZero() || d.Cmp(decimal.New(1, -4)) >= 0 {
		return append(b, s...)
	}
	frac := s[len("0."):]
	digits := strings.TrimLeft(frac, "0")
	exp := len(frac) - len(digits) + 1 // leading zeros of the fraction, plus one
	b = append(b, digits[0])
	if len(digits) > 1 {
		b = append(append(b, '.'), digits[1:]...)
	}
	b = append(b, "e-"...)
	if exp < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(exp), 10)
}

// requesterIP derives a stable client address from the key.
func requesterIP(c *call) string {
	return "10.20." + strconv.Itoa(int(c.Key.Hash[0])%16) + "." + strconv.Itoa(10+int(c.Key.Hash[1])%200)
}

// appendSessionID derives a UUID-shaped session id from the call without
// drawing from the generator, so flat and dump rows stay the same calls.
func appendSessionID(b []byte, c *call) []byte {
	x := splitmix(uint64(c.Start) ^ splitmix(uint64(len(c.RequestID))+uint64(c.RequestID[len(c.RequestID)-1])))
	y := splitmix(x)
	b = appendHex(b, x>>32, 8)
	b = append(b, '-')
	b = appendHex(b, x>>16&0xffff, 4)
	b = append(b, '-', '4')
	b = appendHex(b, x&0xfff, 3)
	b = append(b, '-', hexDigits[8+y>>62])
	b = appendHex(b, y>>48&0xfff, 3)
	b = append(b, '-')
	return appendHex(b, y&0xffffffffffff, 12)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

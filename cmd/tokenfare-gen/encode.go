package main

import (
	"strconv"
	"time"
)

// encoder appends CSV rows in one of the two export layouts.
type encoder interface {
	header(b []byte) []byte
	row(b []byte, c *call) []byte
}

func newEncoder(format string) encoder {
	if format == "dump" {
		return dumpEncoder{}
	}
	return flatEncoder{}
}

// flatEncoder writes one column per field, cache and reasoning tokens and
// aliases included. No value it writes needs CSV quoting.
type flatEncoder struct{}

const flatHeader = "request_id,call_type,api_key,spend,total_tokens,prompt_tokens,completion_tokens," +
	"startTime,endTime,completionStartTime,model,model_id,model_group,custom_llm_provider," +
	"user,team_id,end_user,status,cached_tokens,cache_creation_tokens,reasoning_tokens,key_alias,team_alias," +
	"ephemeral_1h_input_tokens,web_search_requests,web_fetch_requests,service_tier,inference_geo\n"

func (flatEncoder) header(b []byte) []byte { return append(b, flatHeader...) }

func (flatEncoder) row(b []byte, c *call) []byte {
	b = appendCommon(b, c)
	b = appendString(b, c.Dep.Model)
	b = appendString(b, c.Dep.ID)
	b = appendString(b, c.Dep.Group)
	b = appendString(b, c.Dep.Provider)
	b = appendString(b, c.Key.User)
	b = appendString(b, c.Key.Team.ID)
	b = appendEndUser(b, c.EndUser)
	b = appendString(b, status(c))
	b = appendInt(b, c.Cached)
	b = appendInt(b, c.CacheWrite)
	b = appendInt(b, c.Reasoning)
	b = appendString(b, c.Key.Alias)
	b = appendString(b, c.Key.Team.Alias)
	b = appendInt(b, c.CacheWrite1h)
	b = appendInt(b, c.WebSearch)
	b = appendInt(b, c.WebFetch)
	b = appendString(b, serviceTier(c))
	b = append(b, geo(c)...)
	return append(b, '\n')
}

// serviceTier is the tier the usage names: priority, else none logged.
func serviceTier(c *call) string {
	if c.Priority {
		return "priority"
	}
	return ""
}

// geo is Anthropic's inference_geo: "us" for US-only inference, else "global".
func geo(c *call) string {
	switch {
	case c.US:
		return "us"
	case c.Dep.Provider == "anthropic" && !c.Failed:
		return "global"
	}
	return ""
}

// appendCommon appends the leading columns both layouts share, from
// request_id to completionStartTime, each followed by a comma.
func appendCommon(b []byte, c *call) []byte {
	b = append(append(b, c.RequestID...), ',')
	b = appendString(b, callType(c))
	b = appendString(b, c.Key.Hash)
	b = append(append(b, c.Spend.String()...), ',')
	b = appendInt(b, c.Prompt+c.Completion)
	b = appendInt(b, c.Prompt)
	b = appendInt(b, c.Completion)
	b = append(appendTime(b, c.Start), ',')
	b = append(appendTime(b, c.End), ',')
	return append(appendTime(b, c.FirstToken), ',')
}

func status(c *call) string {
	if c.Failed {
		return "failure"
	}
	return "success"
}

func appendString(b []byte, s string) []byte { return append(append(b, s...), ',') }

func appendInt(b []byte, n int64) []byte { return append(strconv.AppendInt(b, n, 10), ',') }

func appendEndUser(b []byte, n int) []byte {
	if n > 0 {
		b = append(b, "cust-"...)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, ',')
}

// appendTime appends a Unix millisecond instant as LiteLLM's zone-less UTC
// timestamp(3) prints: 2026-09-01 09:15:02.123.
func appendTime(b []byte, ms int64) []byte {
	t := time.UnixMilli(ms).UTC()
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	b = appendPadded(b, year, 4)
	b = appendPadded(append(b, '-'), int(month), 2)
	b = appendPadded(append(b, '-'), day, 2)
	b = appendPadded(append(b, ' '), hour, 2)
	b = appendPadded(append(b, ':'), minute, 2)
	b = appendPadded(append(b, ':'), sec, 2)
	return appendPadded(append(b, '.'), int(ms%1000), 3)
}

// appendPadded appends a non-negative n in exactly width digits.
func appendPadded(b []byte, n, width int) []byte {
	for i := width - 1; i >= 0; i-- {
		d := n
		for range i {
			d /= 10
		}
		b = append(b, byte('0'+d%10))
	}
	return b
}

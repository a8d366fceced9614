package ledger

import (
	"fmt"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Columns of the canonical call format (docs/calls.md).
const (
	cnRequestID = iota
	cnGateway
	cnStart
	cnFirstToken
	cnEnd
	cnKey
	cnKeyHash
	cnKeyAlias
	cnTeam
	cnUser
	cnModel
	cnModelGroup
	cnDeployment
	cnProvider
	cnStatus
	cnRecorded
	cnInput
	cnCacheRead
	cnCacheWrite
	cnOutput
	cnReasoning
	cnCacheWrite1h
	cnWebSearch
	cnWebFetch
	cnFileSearch
	cnServiceTier
	cnRegion
	cnHost
	cnHTTPStatus
	cnErrorClass
	cnErrorText
)

// canonicalSchema is tokenfare's own call format: one column per Call
// field, token buckets already split.
var canonicalSchema = (&schema{
	format:    FormatCanonicalCSV,
	gateway:   Canonical,
	requestID: cnRequestID,
	cols: []column{
		cnRequestID:  {name: "request_id"},
		cnGateway:    {name: "gateway"},
		cnStart:      {name: "start", required: true},
		cnFirstToken: {name: "first_token"},
		cnEnd:        {name: "end"},
		cnKey:        {name: "key"},
		cnKeyHash:    {name: "key_hash"},
		cnKeyAlias:   {name: "key_alias"},
		cnTeam:       {name: "team"},
		cnUser:       {name: "user"},
		cnModel:      {name: "model", required: true},
		cnModelGroup: {name: "model_group"},
		cnDeployment: {name: "deployment"},
		cnProvider:   {name: "provider"},
		cnStatus:     {name: "status"},
		cnRecorded:   {name: "recorded_spend"},
		cnInput:      {name: "input_tokens", required: true},
		cnCacheRead:  {name: "cache_read_tokens"},
		cnCacheWrite: {name: "cache_write_tokens"},
		cnOutput:     {name: "output_tokens", required: true},
		cnReasoning:  {name: "reasoning_tokens"},
		// Billing modifiers (docs/calls.md "Billed quantities").
		cnCacheWrite1h: {name: "cache_write_1h_tokens"},
		cnWebSearch:    {name: "web_search_calls"},
		cnWebFetch:     {name: "web_fetch_calls"},
		cnFileSearch:   {name: "file_search_calls"},
		cnServiceTier:  {name: "service_tier"},
		cnRegion:       {name: "region"},
		cnHost:         {name: "host"},
		// What the gateway logged of a failure (docs/calls.md, Failed calls).
		cnHTTPStatus: {name: "http_status"},
		cnErrorClass: {name: "error_class"},
		cnErrorText:  {name: "error_text"},
	},
	build: buildCanonical,
}).init()

func buildCanonical(s *schema, p *rowParser, v *rowFields, c *Call) string {
	c.Gateway = Canonical
	if g := v.get(cnGateway); len(g) > 0 {
		c.Gateway = Gateway(p.strs.get(g))
	}
	if r := timeCol(s, p, v, cnStart, true, &c.Start); r != "" {
		return r
	}
	if r := timeCol(s, p, v, cnFirstToken, false, &c.FirstToken); r != "" {
		return r
	}
	if r := timeCol(s, p, v, cnEnd, false, &c.End); r != "" {
		return r
	}
	if r := statusCol(s, v, cnStatus, &c.Status); r != "" {
		return r
	}
	if r := canonicalFailure(p, v, c); r != "" {
		return r
	}
	if b := v.get(cnRecorded); len(b) > 0 {
		d, ok := parseAmount(b)
		if !ok {
			return badValue("recorded_spend", string(b), "a decimal number")
		}
		c.Recorded = d
	}
	t := &c.Tokens
	for _, f := range []struct {
		col int
		n   *int64
	}{{cnInput, &t.Input}, {cnCacheRead, &t.CacheRead}, {cnCacheWrite, &t.CacheWrite}, {cnCacheWrite1h, &t.CacheWrite1h},
		{cnOutput, &t.Output}, {cnReasoning, &t.Reasoning},
		{cnWebSearch, &c.Tools[WebSearch]}, {cnWebFetch, &c.Tools[WebFetch]}, {cnFileSearch, &c.Tools[FileSearch]}} {
		if r := intCol(s, v, f.col, f.n); r != "" {
			return r
		}
	}
	if t.Reasoning > t.Output {
		return fmt.Sprintf("reasoning_tokens %d exceeds output_tokens %d", t.Reasoning, t.Output)
	}
	if b := v.get(cnServiceTier); len(b) > 0 {
		tier, ok := ParseServiceTier(string(b))
		if !ok {
			return badValue("service_tier", string(b), "standard, batch, flex or priority")
		}
		c.ServiceTier, c.TierSource = tier, TierServed
	}
	if b := v.get(cnRegion); len(b) > 0 {
		c.Region = p.strs.get(bytesLower(b))
	}
	if raw := v.get(cnKey); len(raw) > 0 {
		c.Key = HashKey(string(raw))
	} else {
		c.Key = p.strs.get(v.get(cnKeyHash))
	}
	c.KeyAlias = p.strs.get(v.get(cnKeyAlias))
	c.Team = p.strs.get(v.get(cnTeam))
	c.User = p.strs.get(v.get(cnUser))
	c.Model = p.strs.get(v.get(cnModel))
	c.ModelGroup = p.strs.get(v.get(cnModelGroup))
	c.Deployment = p.strs.get(v.get(cnDeployment))
	c.Provider = p.strs.get(v.get(cnProvider))
	c.Host = tariffs.NormalizeHost(p.strs.get(v.get(cnHost)))
	return ""
}

// bytesLower returns b in lower case, b itself when it has no upper-case
// ASCII letter (the common case: no copy).
func bytesLower(b []byte) []byte {
	for i, x := range b {
		if 'A' <= x && x <= 'Z' {
			out := append([]byte(nil), b...)
			for j := i; j < len(out); j++ {
				if 'A' <= out[j] && out[j] <= 'Z' {
					out[j] += 'a' - 'A'
				}
			}
			return out
		}
	}
	return b
}

// canonicalFailure reads the failure columns of a failed row; they are
// ignored on a success, as LiteLLM's error information is.
func canonicalFailure(p *rowParser, v *rowFields, c *Call) string {
	if c.Status != StatusFailure {
		return ""
	}
	if b := v.get(cnHTTPStatus); len(b) > 0 {
		if c.Failure.HTTPStatus = httpStatus(string(b)); c.Failure.HTTPStatus == 0 {
			return badValue("http_status", string(b), "an HTTP status from 100 to 599")
		}
	}
	c.Failure.Class = p.strs.get(v.get(cnErrorClass))
	c.Failure.Text = failureText(string(v.get(cnErrorText)))
	return ""
}

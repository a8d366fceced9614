package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Columns of LiteLLM_SpendLogs that tokenfare reads.
const (
	slRequestID = iota
	slStart
	slEnd
	slFirstToken
	slAPIKey
	slSpend
	slPrompt
	slCompletion
	slModel
	slModelGroup
	slModelID
	slProvider
	slUser
	slTeamID
	slStatus
	slMetadata
	slCached
	slCacheWrite
	slReasoning
	slKeyAlias
	slTeamAlias
)

// spendLogSchema reads rows of LiteLLM's "LiteLLM_SpendLogs" table, from
// a whole-table dump (token split in metadata) or a flat export (token
// split in columns).
var spendLogSchema = (&schema{
	format:    FormatSpendLogCSV,
	gateway:   LiteLLM,
	requestID: slRequestID,
	cols: []column{
		slRequestID:  {name: "request_id", required: true},
		slStart:      {name: "startTime", required: true},
		slEnd:        {name: "endTime"},
		slFirstToken: {name: "completionStartTime"},
		slAPIKey:     {name: "api_key"},
		slSpend:      {name: "spend", required: true},
		slPrompt:     {name: "prompt_tokens", required: true},
		slCompletion: {name: "completion_tokens", required: true},
		slModel:      {name: "model"},
		slModelGroup: {name: "model_group"},
		slModelID:    {name: "model_id"},
		slProvider:   {name: "custom_llm_provider"},
		slUser:       {name: "user"},
		slTeamID:     {name: "team_id"},
		slStatus:     {name: "status"},
		slMetadata:   {name: "metadata"},
		slCached:     {name: "cached_tokens", aliases: []string{"cache_read_input_tokens"}},
		slCacheWrite: {name: "cache_creation_tokens", aliases: []string{"cache_creation_input_tokens"}},
		slReasoning:  {name: "reasoning_tokens"},
		slKeyAlias:   {name: "key_alias", aliases: []string{"user_api_key_alias"}},
		slTeamAlias:  {name: "team_alias", aliases: []string{"user_api_key_team_alias"}},
	},
	build: buildSpendLog,
}).init()

// spendLogMeta is the part of LiteLLM's metadata JSON tokenfare reads.
type spendLogMeta struct {
	Usage struct {
		Prompt struct {
			Cached        json.Number `json:"cached_tokens"`
			CacheCreation json.Number `json:"cache_creation_tokens"`
		} `json:"prompt_tokens_details"`
		CacheCreationInput json.Number `json:"cache_creation_input_tokens"`
		Completion         struct {
			Reasoning json.Number `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"additional_usage_values"`
	KeyAlias  looseText `json:"user_api_key_alias"`
	TeamAlias looseText `json:"user_api_key_team_alias"`
	TeamID    looseText `json:"user_api_key_team_id"`
}

// looseText reads a JSON string, or a number as written, and passes over
// any other kind: aliases only label reports, so an odd type there must not
// cost the row its tokens and spend.
type looseText struct {
	s  string
	ok bool
}

func (t *looseText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if json.Unmarshal(b, &s) == nil {
			t.s, t.ok = s, true
		}
	case len(b) > 0 && (b[0] == '-' || ('0' <= b[0] && b[0] <= '9')):
		t.s, t.ok = string(b), true
	}
	return nil
}

func buildSpendLog(s *schema, p *rowParser, v *rowFields, c *Call) string {
	c.Gateway = LiteLLM
	if r := timeCol(s, p, v, slStart, true, &c.Start); r != "" {
		return r
	}
	if r := timeCol(s, p, v, slEnd, false, &c.End); r != "" {
		return r
	}
	if r := timeCol(s, p, v, slFirstToken, false, &c.FirstToken); r != "" {
		return r
	}
	if len(v.get(slSpend)) == 0 {
		return "spend is empty"
	}
	spend, ok := parseDecimal(v.get(slSpend))
	if !ok {
		return badValue("spend", string(v.get(slSpend)), "a decimal number")
	}
	c.Recorded = spend
	if r := statusCol(s, v, slStatus, &c.Status); r != "" {
		return r
	}
	if r := spendLogTokens(s, p, v, c); r != "" {
		return r
	}
	key := v.get(slAPIKey)
	if bytes.HasPrefix(key, []byte("sk-")) {
		c.Key = HashKey(string(key)) // a raw key: never keep it
	} else {
		c.Key = p.strs.get(key)
	}
	c.Model = p.strs.get(v.get(slModel))
	c.ModelGroup = p.strs.get(v.get(slModelGroup))
	c.Deployment = p.strs.get(v.get(slModelID))
	c.Provider = p.strs.get(v.get(slProvider))
	c.User = p.strs.get(v.get(slUser))
	// Flat columns win over metadata; a team alias wins over a team id.
	if a := v.get(slKeyAlias); len(a) > 0 {
		c.KeyAlias = p.strs.get(a)
	}
	if a := v.get(slTeamAlias); len(a) > 0 {
		c.Team = p.strs.get(a)
	} else if c.Team == "" {
		c.Team = p.strs.get(v.get(slTeamID))
	}
	return ""
}

// spendLogTokens splits prompt and completion tokens into buckets. Flat
// columns win over metadata.
func spendLogTokens(s *schema, p *rowParser, v *rowFields, c *Call) string {
	var prompt, completion, cached, write, reasoning int64
	if len(v.get(slPrompt)) == 0 {
		return "prompt_tokens is empty"
	}
	if len(v.get(slCompletion)) == 0 {
		return "completion_tokens is empty"
	}
	if r := intCol(s, v, slPrompt, &prompt); r != "" {
		return r
	}
	if r := intCol(s, v, slCompletion, &completion); r != "" {
		return r
	}
	if r := intCol(s, v, slCached, &cached); r != "" {
		return r
	}
	if r := intCol(s, v, slCacheWrite, &write); r != "" {
		return r
	}
	if r := intCol(s, v, slReasoning, &reasoning); r != "" {
		return r
	}
	c.KeyAlias, c.Team = "", ""
	if m := bytes.TrimSpace(v.get(slMetadata)); len(m) > 2 {
		var r string
		if cached, write, reasoning, r = spendLogMetadata(p, m, v, c, cached, write, reasoning); r != "" {
			return r
		}
	}
	c.Tokens = Tokens{
		Input:      prompt - cached - write,
		CacheRead:  cached,
		CacheWrite: write,
		Output:     completion,
		Reasoning:  reasoning,
	}
	if c.Tokens.Input < 0 {
		return fmt.Sprintf("prompt_tokens %d is less than cached %d + cache-creation %d tokens", prompt, cached, write)
	}
	if reasoning > completion {
		return fmt.Sprintf("reasoning_tokens %d exceeds completion_tokens %d", reasoning, completion)
	}
	return ""
}

// spendLogMetadata fills the token counts and aliases that flat columns
// left empty from the metadata JSON.
func spendLogMetadata(p *rowParser, m []byte, v *rowFields, c *Call, cached, write, reasoning int64) (int64, int64, int64, string) {
	var meta spendLogMeta
	if err := json.Unmarshal(m, &meta); err != nil {
		return 0, 0, 0, "metadata is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
	}
	u := &meta.Usage
	write2 := u.Prompt.CacheCreation
	if (write2 == "" || write2 == "0") && u.CacheCreationInput != "" {
		write2 = u.CacheCreationInput
	}
	var r string
	if cached, r = metaInt(v.get(slCached), u.Prompt.Cached, "prompt_tokens_details.cached_tokens", cached); r != "" {
		return 0, 0, 0, r
	}
	if write, r = metaInt(v.get(slCacheWrite), write2, "cache_creation_tokens", write); r != "" {
		return 0, 0, 0, r
	}
	if reasoning, r = metaInt(v.get(slReasoning), u.Completion.Reasoning, "completion_tokens_details.reasoning_tokens", reasoning); r != "" {
		return 0, 0, 0, r
	}
	if meta.KeyAlias.ok {
		c.KeyAlias = p.strs.get([]byte(meta.KeyAlias.s))
	}
	if meta.TeamAlias.ok {
		c.Team = p.strs.get([]byte(meta.TeamAlias.s))
	}
	if c.Team == "" && len(v.get(slTeamAlias)) == 0 && len(v.get(slTeamID)) == 0 && meta.TeamID.ok {
		c.Team = p.strs.get([]byte(meta.TeamID.s))
	}
	return cached, write, reasoning, ""
}

// metaInt returns the metadata count num unless the flat column has a
// value (then cur, read from it, stands).
func metaInt(flat []byte, num json.Number, path string, cur int64) (int64, string) {
	if len(flat) > 0 || num == "" {
		return cur, ""
	}
	x, ok := parseInt([]byte(num))
	if !ok || x < 0 {
		return 0, badValue("metadata additional_usage_values."+path, string(num), "a non-negative integer")
	}
	return x, ""
}

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
	slTotal
	slModel
	slModelGroup
	slModelID
	slProvider
	slUser
	slTeamID
	slStatus
	slCacheHit
	slMetadata
	slCached
	slCacheWrite
	slReasoning
	slKeyAlias
	slTeamAlias
	slCallType
	slWrite1h
	slWebSearch
	slWebFetch
	slServiceTier
	slInferenceGeo
	slAPIBase
	slPriceKey
	slRequestTags
	slKeyMeta
	slResponse
	slRequest
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
		slTotal:      {name: "total_tokens"},
		slModel:      {name: "model"},
		slModelGroup: {name: "model_group"},
		slModelID:    {name: "model_id"},
		slProvider:   {name: "custom_llm_provider"},
		slUser:       {name: "user"},
		slTeamID:     {name: "team_id"},
		slStatus:     {name: "status"},
		slCacheHit:   {name: "cache_hit"},
		slMetadata:   {name: "metadata"},
		slCached:     {name: "cached_tokens", aliases: []string{"cache_read_input_tokens"}},
		slCacheWrite: {name: "cache_creation_tokens", aliases: []string{"cache_creation_input_tokens"}},
		slReasoning:  {name: "reasoning_tokens"},
		slKeyAlias:   {name: "key_alias", aliases: []string{"user_api_key_alias"}},
		slTeamAlias:  {name: "team_alias", aliases: []string{"user_api_key_team_alias"}},
		slCallType:   {name: "call_type"},
		// Flat columns of the billing modifiers, named after their keys in
		// the usage object (docs/calls.md "Billed quantities").
		slWrite1h:      {name: "ephemeral_1h_input_tokens", aliases: []string{"cache_creation_1h_tokens"}},
		slWebSearch:    {name: "web_search_requests"},
		slWebFetch:     {name: "web_fetch_requests"},
		slServiceTier:  {name: "service_tier"},
		slInferenceGeo: {name: "inference_geo"},
		slAPIBase:      {name: "api_base"},
		slPriceKey:     {name: "model_map_key"},
		// LiteLLM's request_tags (a JSON array of strings), and the key's
		// metadata as LiteLLM_VerificationToken.metadata holds it (a JSON
		// object), in exports joined with the key table.
		slRequestTags: {name: "request_tags"},
		slKeyMeta:     {name: "key_metadata"},
		// The stored response and request (store_prompts_in_spend_logs):
		// their service_tier is the tier that served the call and the one
		// asked for.
		slResponse: {name: "response"},
		slRequest:  {name: "proxy_server_request"},
	},
	build:    buildSpendLog,
	doubled:  1 + slMetadata,
	metadata: true,
}).init()

func buildSpendLog(s *schema, p *rowParser, v *rowFields, c *Call) string {
	c.Gateway = LiteLLM
	if r := timeCol(s, p, v, slStart, true, &c.Start); r != "" {
		return r
	}
	if r := timeCol(s, p, v, slEnd, false, &c.End); r != "" {
		return r
	}
	if ft := v.get(slFirstToken); len(ft) > 0 && bytes.Equal(ft, v.get(slEnd)) {
		c.FirstToken = c.End // a call answered in one piece: the same text, read once
	} else if r := timeCol(s, p, v, slFirstToken, false, &c.FirstToken); r != "" {
		return r
	}
	if !v.has(slSpend) {
		return "spend is empty"
	}
	spendText := v.get(slSpend)
	spend, ok := parseAmount(spendText)
	if !ok {
		return badValue("spend", string(spendText), "a decimal number")
	}
	c.Recorded = spend
	if r := statusCol(s, v, slStatus, &c.Status); r != "" {
		return r
	}
	if v.has(slCacheHit) {
		c.CacheHit = equalFold(v.get(slCacheHit), "true")
	} else {
		c.CacheHit = cacheHitID(v.get(slRequestID))
	}
	if r := spendLogTokens(s, p, v, c); r != "" {
		return r
	}
	c.Model = p.strs.get(v.get(slModel))
	c.ModelGroup = p.strs.get(v.get(slModelGroup))
	c.Deployment = p.strs.get(v.get(slModelID))
	c.Provider = p.strs.get(v.get(slProvider))
	c.APIBase = p.strs.get(v.get(slAPIBase))
	c.Host = p.hosts.of(c.Provider, c.Model, c.APIBase, c.ModelGroup, &p.urls)
	if v.has(slPriceKey) { // a flat column wins over metadata
		c.PriceKey = p.strs.get(v.get(slPriceKey))
	}
	if v.has(slRequestTags) { // none: c.Tags stays "", as tagsOf leaves it
		if r := p.tagsOf(v.get(slRequestTags), &c.Tags); r != "" {
			return r
		}
	}
	if m := keyMetaText(v); len(m) > 0 && !bytes.Equal(m, []byte("null")) {
		if m[0] != '{' || !json.Valid(m) {
			return badValue("key_metadata", string(m), "a JSON object")
		}
		c.KeyMeta = p.strs.get(m)
	}
	if p.skipHolders != AllHolders {
		spendLogHolders(p, v, c)
	}
	return ""
}

// spendLogHolders fills who a row's spend is charged to: its key (hashed
// when logged raw), user, key alias and team. Flat columns win over
// metadata, read before; a team alias wins over a team id.
func spendLogHolders(p *rowParser, v *rowFields, c *Call) {
	if !p.skipHolders.Has(HolderKey) {
		key, a := v.get(slAPIKey), v.get(slKeyAlias)
		switch {
		case bytes.HasPrefix(key, []byte("sk-")):
			c.Key = HashKey(string(key)) // a raw key: never keep it
			if len(a) > 0 {
				c.KeyAlias = p.strs.get(a)
			}
		case len(a) > 0 && len(key) > 0 && p.deferPairs: // interned with the batch's
			p.pairKey, p.pairAlias = key, a
		case len(a) > 0: // a key and its alias, mostly read together again
			c.Key, c.KeyAlias = p.strs.getPair(key, a)
		default:
			c.Key = p.strs.get(key)
		}
	}
	if !p.skipHolders.Has(HolderUser) {
		c.User = p.strs.get(v.get(slUser))
	}
	if !p.skipHolders.Has(HolderTeam) {
		if a := v.get(slTeamAlias); len(a) > 0 {
			c.Team = p.strs.get(a)
		} else if c.Team == "" {
			c.Team = p.strs.get(v.get(slTeamID))
		}
	}
}

// metadataText is the metadata column's text, trimmed; nil when empty.
// doubled is 1 when its quotes are doubled (rowFields.doubled), else 0;
// a text too short to tell its length unescaped is unescaped here.
func metadataText(v *rowFields) (m []byte, doubled int) {
	if !v.has(slMetadata) {
		return nil, 0
	}
	m = bytes.TrimSpace(v.get(slMetadata))
	switch {
	case !v.doubled:
		return m, 0
	case len(m) < 6: // unescaped, 3 bytes or fewer
		return undouble(m), 0
	}
	return m, 1
}

// keyMetaText is the key_metadata column's text, trimmed; nil when empty.
func keyMetaText(v *rowFields) []byte {
	if !v.has(slKeyMeta) {
		return nil
	}
	return bytes.TrimSpace(v.get(slKeyMeta))
}

// cacheHitID reports whether a request id is one LiteLLM gives a
// response-cache hit: the original id, "_cache_hit" and the Unix time.
func cacheHitID(id []byte) bool {
	const mark = "_cache_hit"
	// The last "_cache_hit" is found by trying each '_' in turn: most ids
	// hold none or one (Anthropic's "msg_…"), and IndexByte is quicker
	// than a search for the whole mark.
	last := -1
	for i := 0; i < len(id); i++ {
		j := bytes.IndexByte(id[i:], '_')
		if j < 0 {
			break
		}
		i += j
		if bytes.HasPrefix(id[i:], []byte(mark)) {
			last = i
		}
	}
	end := last + len(mark)
	return last > 0 && end < len(id) && '0' <= id[end] && id[end] <= '9'
}

// count is a token count that may be absent.
type count struct {
	n   int64
	set bool
}

// usageCounts is what a row says about its tokens, from columns and
// metadata, before the split.
type usageCounts struct {
	prompt, completion int64
	total              count
	// Chat Completions shape.
	detailCached, detailWrite count // prompt_tokens_details
	cacheRead, cacheWrite     count // Anthropic / Bedrock top-level counts
	deepSeekHit               count
	reasoning                 count
	// Responses API / Anthropic Messages shape.
	input, output         count
	inCached, inWrite     count
	outReasoning          count
	hasPromptDetails      bool
	hasWriteSplit         bool  // prompt_tokens_details.cache_creation_token_details
	write5m, write1h      count // the writes by lifetime, from either split
	hasInOutDetails       bool
	flatCached, flatWrite count // flat export columns
	flatReasoning         count
	flatWrite1h           count
}

// spendLogTokens splits prompt and completion tokens into buckets. Flat
// columns win over metadata.
func spendLogTokens(s *schema, p *rowParser, v *rowFields, c *Call) string {
	var u usageCounts
	if !v.has(slPrompt) {
		return "prompt_tokens is empty"
	}
	if !v.has(slCompletion) {
		return "completion_tokens is empty"
	}
	if r := intCol(s, v, slPrompt, &u.prompt); r != "" {
		return r
	}
	if r := intCol(s, v, slCompletion, &u.completion); r != "" {
		return r
	}
	if r := countCol(s, v, slTotal, &u.total); r != "" {
		return r
	}
	if r := countCol(s, v, slCached, &u.flatCached); r != "" {
		return r
	}
	if r := countCol(s, v, slCacheWrite, &u.flatWrite); r != "" {
		return r
	}
	if r := countCol(s, v, slReasoning, &u.flatReasoning); r != "" {
		return r
	}
	if r := countCol(s, v, slWrite1h, &u.flatWrite1h); r != "" {
		return r
	}
	c.KeyAlias, c.Team, c.PriceKey = "", "", ""
	if m, doubled := metadataText(v); len(m) > 2 {
		if r := spendLogMetadata(p, m, doubled, v, c, &u); r != "" {
			return r
		}
	}
	var r string
	if c.Tokens, r = u.split(); r != "" {
		return r
	}
	if r := flatModifiers(s, p, v, c); r != "" {
		return r
	}
	u.write1h = u.flatWrite1h.or(u.write1h)
	if r := u.splitLifetimes(&c.Tokens); r != "" {
		return r
	}
	storedTiers(v, c)
	if c.ServiceTier == TierStandard && v.has(slCallType) && isBatchCall(v.get(slCallType)) {
		c.ServiceTier = TierBatch
	}
	return ""
}

// storedTiers reads the service tier of the stored response (the tier
// that served the call) and of the stored request (the tier asked for).
// The response's wins over the usage object's and a flat column's; with
// neither, the call is priced at the tier asked for, and says so.
func storedTiers(v *rowFields, c *Call) {
	if v.has(slRequest) {
		c.AskedTier, c.Asked = jsonTier(v.get(slRequest))
	}
	if v.has(slResponse) {
		if t, ok := jsonTier(v.get(slResponse)); ok {
			c.ServiceTier, c.TierSource = t, TierServed
		}
	}
	if c.TierSource == TierNotLogged && c.Asked {
		c.ServiceTier, c.TierSource = c.AskedTier, TierAsked
	}
}

// tierKey is the member of a stored request or response that names a
// service tier.
var tierKey = []byte(`"service_tier"`)

// jsonTier returns the tier named by the service_tier member of the JSON
// object b's top level, as the database reads a stored request or response
// (a member of a nested object or array names no tier, the last of the top
// level's wins, a value that is no string names none). b is scanned only
// when its bytes hold the member's name, as most stored responses of
// standard calls do not. Malformed text is read up to its first fault.
// ok is false when there is none.
func jsonTier(b []byte) (t ServiceTier, ok bool) {
	t = TierStandard
	if !bytes.Contains(b, tierKey) {
		return t, false
	}
	s := jsonScanner{b: b}
	s.space()
	if s.peek() != '{' || !s.open() {
		return t, false
	}
	for more := s.member(true); more; more = s.member(false) {
		if !s.nameIs("service_tier") {
			if !s.skip() {
				break
			}
			continue
		}
		t, ok = TierStandard, false
		if s.peek() != '"' {
			if !s.skip() {
				break
			}
			continue
		}
		raw, flags, read := s.str()
		if !read {
			break
		}
		t, _ = ParseServiceTier(string(s.text(raw, flags)))
		ok = true
	}
	return t, ok
}

// flatModifiers reads the flat export's columns of tool uses, service tier
// and region; they win over the metadata's, as the token columns do.
func flatModifiers(s *schema, p *rowParser, v *rowFields, c *Call) string {
	var search, fetch count
	if r := countCol(s, v, slWebSearch, &search); r != "" {
		return r
	}
	if r := countCol(s, v, slWebFetch, &fetch); r != "" {
		return r
	}
	if search.set {
		c.Tools[WebSearch] = search.n
	}
	if fetch.set {
		c.Tools[WebFetch] = fetch.n
	}
	if v.has(slServiceTier) {
		c.ServiceTier, _ = ParseServiceTier(string(v.get(slServiceTier)))
		c.TierSource = TierServed
	}
	if v.has(slInferenceGeo) {
		c.Region = p.strs.get([]byte(regionOf(string(v.get(slInferenceGeo)))))
	}
	return ""
}

// isBatchCall reports whether a call_type is a batch job's: LiteLLM logs
// the tokens of a batch's requests on the row of its retrieval.
func isBatchCall(callType []byte) bool {
	return equalFold(callType, "aretrieve_batch") || equalFold(callType, "retrieve_batch")
}

// splitLifetimes moves the 1-hour writes out of the cache writes. The
// 5-minute and 1-hour counts split the writes the row counts (the total
// when there is one, else their sum, which is then counted outside the
// prompt as Anthropic's own usage has it).
func (u *usageCounts) splitLifetimes(t *Tokens) string {
	if !u.write1h.set || u.write1h.n == 0 {
		return ""
	}
	if t.CacheWrite == 0 && u.write5m.n+u.write1h.n > 0 {
		t.CacheWrite = u.write5m.n + u.write1h.n
	}
	if u.write1h.n > t.CacheWrite {
		return fmt.Sprintf("ephemeral_1h_input_tokens %d exceeds the cache-creation tokens %d", u.write1h.n, t.CacheWrite)
	}
	t.CacheWrite -= u.write1h.n
	t.CacheWrite1h = u.write1h.n
	return ""
}

// countCol reads a token count column that may be empty.
func countCol(s *schema, v *rowFields, col int, dst *count) string {
	b := v.get(col)
	if x, ok := plainCount(b); ok { // most counts: read here, as intCol would
		*dst = count{x, len(b) > 0}
		return ""
	}
	dst.set = true
	return intCol(s, v, col, &dst.n)
}

// spendLogMetadata reads the token counts and labels in the metadata JSON.
// m's quotes are doubled when doubled is 1.
func spendLogMetadata(p *rowParser, m []byte, doubled int, v *rowFields, c *Call, u *usageCounts) string {
	meta, r := p.metadata(m, doubled, v)
	if r != "" {
		return r
	}
	if r := metaTokens(&meta.usage, c, u); r != "" {
		return r
	}
	if g := meta.usage.inferenceGeo; g.ok {
		c.Region = p.strs.get([]byte(regionOf(string(g.text))))
	}
	if k := meta.priceKey; len(k) > 0 {
		c.PriceKey = p.strs.get(k)
	}
	if e := &meta.failure; e.set && c.Status == StatusFailure {
		c.Failure = Failure{HTTPStatus: httpStatus(string(e.code.text)), Class: p.strs.get(e.class.text),
			Provider: p.strs.get(e.provider.text), Text: failureText(string(e.message.text))}
	}
	metaHolders(p, meta, v, c)
	return ""
}

// metadata returns what readMetadata gives of m, the metadata column's
// text: the JSON framer's reading when it read that very text
// (rowParser.framed), its own otherwise.
func (p *rowParser) metadata(m []byte, doubled int, v *rowFields) (*metaFields, string) {
	if fm := p.framed; fm != nil && doubled == 0 && !v.doubled && v.at[slMetadata&(maxCols-1)] == fm.at {
		return &fm.f, fm.reason
	}
	p.meta = metaFields{}
	return &p.meta, readMetadataIn(m, doubled, &p.meta)
}

// metaTokens reads the counts of additional_usage_values into u and c,
// and the service tier and region into c.
func metaTokens(mu *metaUsage, c *Call, u *usageCounts) string {
	r := metaCount(mu.reasoning, "completion_tokens_details.reasoning_tokens", &u.reasoning, "")
	r = metaCount(mu.cacheRead, "cache_read_input_tokens", &u.cacheRead, r)
	r = metaCount(mu.cacheCreation, "cache_creation_input_tokens", &u.cacheWrite, r)
	r = metaCount(mu.deepSeekHit, "prompt_cache_hit_tokens", &u.deepSeekHit, r)
	r = metaCount(mu.input, "input_tokens", &u.input, r)
	r = metaCount(mu.output, "output_tokens", &u.output, r)
	if d := &mu.cacheSplit; d.set {
		r = metaCount(d.fiveMinutes, "cache_creation.ephemeral_5m_input_tokens", &u.write5m, r)
		r = metaCount(d.oneHour, "cache_creation.ephemeral_1h_input_tokens", &u.write1h, r)
	}
	r = metaPrompt(&mu.prompt, c, u, r)
	if d := &mu.serverTools; d.set {
		r = metaTool(d.webSearch, "server_tool_use.web_search_requests", &c.Tools[WebSearch], r)
		r = metaTool(d.webFetch, "server_tool_use.web_fetch_requests", &c.Tools[WebFetch], r)
	}
	if mu.serviceTier.ok {
		// A tier tokenfare does not price ("scale") is standard:
		// docs/calls.md says so.
		c.ServiceTier, _ = ParseServiceTier(string(mu.serviceTier.text))
		c.TierSource = TierServed
	}
	if d := &mu.inDetails; d.set {
		u.hasInOutDetails = true
		r = metaCount(d.cached, "input_tokens_details.cached_tokens", &u.inCached, r)
		r = metaCount(d.cacheCreation, "input_tokens_details.cache_creation_tokens", &u.inWrite, r)
		r = metaCount(d.cacheWrite, "input_tokens_details.cache_write_tokens", &u.inWrite, r)
	}
	if d := &mu.outDetails; d.set {
		u.hasInOutDetails = true
		r = metaCount(d.reasoning, "output_tokens_details.reasoning_tokens", &u.outReasoning, r)
	}
	return r
}

// metaPrompt reads prompt_tokens_details into u and c, unless an earlier
// count was refused (reason, returned as is).
func metaPrompt(d *promptDetails, c *Call, u *usageCounts, r string) string {
	if !d.set {
		return r
	}
	u.hasPromptDetails = true
	u.hasWriteSplit = d.split.set
	r = metaCount(d.cached, "prompt_tokens_details.cached_tokens", &u.detailCached, r)
	r = metaCount(d.cacheCreation, "prompt_tokens_details.cache_creation_tokens", &u.detailWrite, r)
	if s := &d.split; s.set {
		r = metaCount(s.fiveMinutes, "prompt_tokens_details.cache_creation_token_details.ephemeral_5m_input_tokens", &u.write5m, r)
		r = metaCount(s.oneHour, "prompt_tokens_details.cache_creation_token_details.ephemeral_1h_input_tokens", &u.write1h, r)
	}
	return metaTool(d.webSearch, "prompt_tokens_details.web_search_requests", &c.Tools[WebSearch], r)
}

// metaHolders reads the key alias and the team from the metadata, as
// the holders the skipped ones leave.
func metaHolders(p *rowParser, meta *metaFields, v *rowFields, c *Call) {
	if meta.keyAlias.ok && !p.skipHolders.Has(HolderKey) {
		c.KeyAlias = p.strs.get(meta.keyAlias.text)
	}
	if p.skipHolders.Has(HolderTeam) {
		return
	}
	if meta.teamAlias.ok {
		c.Team = p.strs.get(meta.teamAlias.text)
	}
	if c.Team == "" && len(v.get(slTeamAlias)) == 0 && len(v.get(slTeamID)) == 0 && meta.teamID.ok {
		c.Team = p.strs.get(meta.teamID.text)
	}
}

// metaTool reads a tool's use count from metadata into dst, as metaCount
// does; a count logged twice (two shapes of one usage) is taken once.
func metaTool(num []byte, path string, dst *int64, reason string) string {
	var n count
	reason = metaCount(num, path, &n, reason)
	if n.set {
		*dst = max(*dst, n.n)
	}
	return reason
}

// regionOf is the region of an inference_geo value: "" for Anthropic's
// default ("global") and for "not_available", else the value in lower case.
func regionOf(geo string) string {
	switch g := strings.ToLower(strings.TrimSpace(geo)); g {
	case "global", "not_available", "none", "null":
		return ""
	default:
		return g
	}
}

// metaCount reads a count from metadata into dst when present, unless an
// earlier count was already refused (reason, returned as is).
func metaCount(num []byte, path string, dst *count, reason string) string {
	if reason != "" || num == nil {
		return reason
	}
	x, ok := parseInt(num)
	if !ok || x < 0 {
		return badValue("metadata additional_usage_values."+path, string(num), "a non-negative integer")
	}
	*dst = count{x, true}
	return ""
}

// firstSet returns the first count that is set and non-zero, else the
// first that is set, else an unset count.
func firstSet(cs ...count) count {
	for _, c := range cs {
		if c.set && c.n > 0 {
			return c
		}
	}
	for _, c := range cs {
		if c.set {
			return c
		}
	}
	return count{}
}

// or returns c when set, else d.
func (c count) or(d count) count {
	if c.set {
		return c
	}
	return d
}

// split turns a row's counts into buckets by the rules of docs/calls.md
// ("How LiteLLM's usage lands in a row").
func (u *usageCounts) split() (Tokens, string) {
	// Anthropic's own Messages usage (/v1/messages): input_tokens is the
	// uncached part, cache reads and writes lie beside it.
	if u.input.set && (u.cacheRead.set || u.cacheWrite.set) && !u.hasPromptDetails && !u.hasInOutDetails {
		t := Tokens{
			Input:      u.input.n,
			CacheRead:  u.flatCached.or(u.cacheRead).n,
			CacheWrite: u.flatWrite.or(u.cacheWrite).n,
			Output:     u.completion,
			Reasoning:  u.flatReasoning.or(u.reasoning).n,
		}
		if t.Output == 0 {
			t.Output = u.output.n
		}
		return t, checkReasoning(t.Reasoning, t.Output)
	}
	prompt, completion := u.prompt, u.completion
	var read, write, reasoning count
	writesInside := true
	if u.hasInOutDetails || (u.input.set && !u.hasPromptDetails) {
		// Responses API: input_tokens holds cached tokens and output_tokens
		// reasoning ones, as prompt_tokens and completion_tokens do.
		if prompt == 0 {
			prompt = u.input.n
		}
		if completion == 0 {
			completion = u.output.n
		}
		read, write, reasoning = u.inCached, u.inWrite, u.outReasoning.or(u.reasoning)
	} else {
		read = firstSet(u.detailCached, u.cacheRead, u.deepSeekHit)
		write = u.detailWrite.or(u.cacheWrite)
		reasoning = u.reasoning
		// Writes counted only beside prompt_tokens (cache_creation_input_tokens
		// without prompt_tokens_details.cache_creation_tokens) are outside it.
		writesInside = u.detailWrite.set || u.hasWriteSplit || !u.cacheWrite.set
	}
	read, write, reasoning = u.flatCached.or(read), u.flatWrite.or(write), u.flatReasoning.or(reasoning)
	if u.flatWrite.set {
		writesInside = true
	}
	reasoningInside := true
	// A total the provider counted shows what prompt_tokens and
	// completion_tokens leave out.
	if extra := u.total.n - prompt - completion; u.total.set && extra > 0 {
		switch extra {
		case write.n:
			writesInside = false
		case reasoning.n:
			reasoningInside = false
		case write.n + reasoning.n:
			writesInside, reasoningInside = false, false
		}
	}
	if writesInside && prompt < read.n+write.n && prompt >= read.n {
		writesInside = false // a prompt smaller than its writes cannot hold them
	}
	t := Tokens{CacheRead: read.n, CacheWrite: write.n, Output: completion, Reasoning: reasoning.n}
	t.Input = prompt - read.n
	if writesInside {
		t.Input -= write.n
	}
	if !reasoningInside {
		t.Output += reasoning.n
	}
	if t.Input < 0 {
		return Tokens{}, fmt.Sprintf("prompt_tokens %d is less than cached %d + cache-creation %d tokens", prompt, read.n, write.n)
	}
	return t, checkReasoning(t.Reasoning, t.Output)
}

func checkReasoning(reasoning, output int64) string {
	if reasoning > output {
		return fmt.Sprintf("reasoning_tokens %d exceeds completion_tokens %d", reasoning, output)
	}
	return ""
}

package ledger

import (
	"bytes"
	"strconv"
	"strings"
)

// metaFields is the part of LiteLLM's metadata JSON tokenfare reads, as
// readMetadata finds it. Texts point into the metadata, or are decoded
// copies when the JSON string holds escapes or bytes that are not UTF-8.
//
// A member is known by its name exactly as written (escapes resolved), as
// LiteLLM writes and reads it and as the summing query looks it up in SQL:
// "Additional_Usage_Values" is not additional_usage_values but an unknown
// member, passed over. A member given twice in one object counts only at
// its last, whatever it holds, as PostgreSQL's jsonb keeps it (and
// Python's json reads it): the earlier value is dropped whole, so a later
// null removes a count, a later object replaces the earlier one, and a
// value of the wrong kind given before the last is no reason to refuse
// the row. The same text thus gives the same call from a file and from
// the database it is loaded into.
type metaFields struct {
	usage     metaUsage // additional_usage_values
	keyAlias  label     // user_api_key_alias
	teamAlias label     // user_api_key_team_alias
	teamID    label     // user_api_key_team_id
	// priceKey is model_map_information.model_map_key, the price entry
	// LiteLLM used: nil unless that member is a JSON string. Read
	// leniently, like the labels: an odd shape only costs the call its
	// price key.
	priceKey []byte
	// failure is error_information, what LiteLLM logged of a failure
	// (its StandardLoggingPayloadErrorInformation).
	failure metaFailure
}

// metaUsage is additional_usage_values: every member of the usage object
// LiteLLM kept but prompt_tokens, completion_tokens and total_tokens.
// Which members are there tells the API and the LiteLLM version that
// wrote the row (docs/calls.md). A count is its number as written, nil
// when absent.
type metaUsage struct {
	// set and completion say that additional_usage_values and its
	// completion_tokens_details were met: a second one is a duplicate.
	set, completion bool
	prompt          promptDetails // prompt_tokens_details (Chat Completions)
	cacheSplit      writeSplit    // cache_creation: Anthropic's own write split
	serverTools     serverTools   // server_tool_use: Anthropic's server tools
	serviceTier     label
	inferenceGeo    label
	reasoning       []byte // completion_tokens_details.reasoning_tokens
	cacheRead       []byte // cache_read_input_tokens (Anthropic, Bedrock)
	cacheCreation   []byte // cache_creation_input_tokens (Anthropic, Bedrock)
	deepSeekHit     []byte // prompt_cache_hit_tokens (DeepSeek)
	// Responses API, and Anthropic's own Messages usage.
	input, output []byte        // input_tokens, output_tokens
	inDetails     inputDetails  // input_tokens_details
	outDetails    outputDetails // output_tokens_details
}

// promptDetails is prompt_tokens_details; set when it is an object.
type promptDetails struct {
	set           bool
	cached        []byte // cached_tokens
	cacheCreation []byte // cache_creation_tokens
	// split is cache_creation_token_details, the 5-minute / 1-hour split
	// of the writes: logged only by the versions that count writes inside
	// prompt_tokens.
	split writeSplit
	// webSearch is web_search_requests: Gemini's grounding with Google
	// Search, the searches (or grounded prompts) LiteLLM counted.
	webSearch []byte
}

// writeSplit is the split of cache writes by lifetime, as Anthropic's
// usage has it (cache_creation) and LiteLLM copies it
// (prompt_tokens_details.cache_creation_token_details); set when it is an
// object.
type writeSplit struct {
	set         bool
	fiveMinutes []byte // ephemeral_5m_input_tokens
	oneHour     []byte // ephemeral_1h_input_tokens
}

// serverTools is server_tool_use; set when it is an object.
type serverTools struct {
	set                 bool
	webSearch, webFetch []byte // web_search_requests, web_fetch_requests
}

// inputDetails is input_tokens_details; set when it is an object.
type inputDetails struct {
	set           bool
	cached        []byte // cached_tokens
	cacheCreation []byte // cache_creation_tokens
	cacheWrite    []byte // cache_write_tokens: OpenAI's name
}

// outputDetails is output_tokens_details; set when it is an object.
type outputDetails struct {
	set       bool
	reasoning []byte // reasoning_tokens
}

// metaFailure is error_information; set when it is an object. Its
// members are labels: an odd shape only costs the call its failure
// detail.
type metaFailure struct {
	set                            bool
	code, class, provider, message label // error_code, error_class, llm_provider, error_message
}

// label is a JSON string's value, or a number as written, with ok set;
// any other kind leaves it as it was: labels only name things in reports,
// so an odd type there must not cost the row its tokens and spend.
type label struct {
	text []byte
	ok   bool
}

// readMetadata reads LiteLLM's metadata JSON m into f. It returns why
// the row is refused: the metadata is not valid JSON (worded as
// encoding/json words it), or a member tokenfare reads has the wrong kind
// of value; "" when it reads.
func readMetadata(m []byte, f *metaFields) string {
	return readMetadataIn(m, 0, f)
}

// readMetadataIn is readMetadata of m written with its quotes doubled
// (doubled 1: a CSV field's text, read in place) or not (0).
func readMetadataIn(m []byte, doubled int, f *metaFields) string {
	s := jsonScanner{b: m, doubled: doubled}
	s.readDocument(f)
	if s.err == "" && (s.dup || s.bad != "") {
		// A member tokenfare reads came twice, or one was of the wrong
		// kind and may have come again: read the document once more
		// passing over every member a later one of its name replaces, as
		// jsonb keeps them.
		*f = metaFields{}
		s = jsonScanner{b: m, doubled: doubled, drop: dropped(m, doubled)}
		s.readDocument(f)
	}
	if s.err != "" {
		return "metadata is not valid JSON: " + s.err
	}
	return s.bad
}

// readDocument reads the metadata document, up to the end of the text.
func (s *jsonScanner) readDocument(f *metaFields) {
	s.space()
	if obj, _ := s.objectAt(""); obj {
		s.readTop(f)
	}
	s.end()
}

// readTop reads the metadata object at s.i.
func (s *jsonScanner) readTop(f *metaFields) {
	if !s.open() {
		return
	}
	for more := s.member(true); more; more = s.member(false) {
		switch string(s.name()) {
		case "additional_usage_values":
			s.dup = s.dup || f.usage.set
			f.usage.set = true
			if obj, _ := s.objectAt("additional_usage_values"); obj {
				s.readUsage(&f.usage)
			}
		case "user_api_key_alias":
			s.label(&f.keyAlias)
		case "user_api_key_team_alias":
			s.label(&f.teamAlias)
		case "user_api_key_team_id":
			s.label(&f.teamID)
		case "model_map_information":
			f.priceKey = s.readPriceKey()
		case "error_information":
			s.readFailure(&f.failure)
		default:
			s.skip()
		}
	}
}

// readUsage reads additional_usage_values, an object at s.i.
func (s *jsonScanner) readUsage(u *metaUsage) {
	if !s.open() {
		return
	}
	for more := s.member(true); more; more = s.member(false) {
		switch string(s.name()) {
		case "prompt_tokens_details":
			s.readPrompt(&u.prompt)
		case "cache_creation":
			s.readSplit(&u.cacheSplit, &cacheCreationPaths)
		case "server_tool_use":
			s.readServerTools(&u.serverTools)
		case "service_tier":
			s.label(&u.serviceTier)
		case "inference_geo":
			s.label(&u.inferenceGeo)
		case "completion_tokens_details":
			s.dup = s.dup || u.completion
			u.completion = true
			s.readCompletion(&u.reasoning)
		case "cache_read_input_tokens":
			s.count(&u.cacheRead, "additional_usage_values.cache_read_input_tokens")
		case "cache_creation_input_tokens":
			s.count(&u.cacheCreation, "additional_usage_values.cache_creation_input_tokens")
		case "prompt_cache_hit_tokens":
			s.count(&u.deepSeekHit, "additional_usage_values.prompt_cache_hit_tokens")
		case "input_tokens":
			s.count(&u.input, "additional_usage_values.input_tokens")
		case "output_tokens":
			s.count(&u.output, "additional_usage_values.output_tokens")
		case "input_tokens_details":
			s.readInputDetails(&u.inDetails)
		case "output_tokens_details":
			s.readOutputDetails(&u.outDetails)
		default:
			s.skip()
		}
	}
}

// readPrompt reads prompt_tokens_details at s.i.
func (s *jsonScanner) readPrompt(d *promptDetails) {
	const path = "additional_usage_values.prompt_tokens_details"
	if !enter(s, d, &d.set, path) {
		return
	}
	for more := s.member(true); more; more = s.member(false) {
		switch string(s.name()) {
		case "cached_tokens":
			s.count(&d.cached, path+".cached_tokens")
		case "cache_creation_tokens":
			s.count(&d.cacheCreation, path+".cache_creation_tokens")
		case "cache_creation_token_details":
			s.readSplit(&d.split, &creationDetailsPaths)
		case "web_search_requests":
			s.count(&d.webSearch, path+".web_search_requests")
		default:
			s.skip()
		}
	}
}

// splitPaths are the names a split of the writes and its members are told
// by in an error, written out whole so that reading a split joins no text.
type splitPaths struct{ at, fiveMinutes, oneHour string }

const (
	cacheCreation   = "additional_usage_values.cache_creation"
	creationDetails = "additional_usage_values.prompt_tokens_details.cache_creation_token_details"
)

var (
	cacheCreationPaths   = splitPaths{cacheCreation, cacheCreation + ".ephemeral_5m_input_tokens", cacheCreation + ".ephemeral_1h_input_tokens"}
	creationDetailsPaths = splitPaths{creationDetails, creationDetails + ".ephemeral_5m_input_tokens", creationDetails + ".ephemeral_1h_input_tokens"}
)

// readSplit reads a split of the writes by lifetime at s.i.
func (s *jsonScanner) readSplit(w *writeSplit, p *splitPaths) {
	if !enter(s, w, &w.set, p.at) {
		return
	}
	for more := s.member(true); more; more = s.member(false) {
		switch string(s.name()) {
		case "ephemeral_5m_input_tokens":
			s.count(&w.fiveMinutes, p.fiveMinutes)
		case "ephemeral_1h_input_tokens":
			s.count(&w.oneHour, p.oneHour)
		default:
			s.skip()
		}
	}
}

// readServerTools reads server_tool_use at s.i.
func (s *jsonScanner) readServerTools(t *serverTools) {
	const path = "additional_usage_values.server_tool_use"
	if !enter(s, t, &t.set, path) {
		return
	}
	for more := s.member(true); more; more = s.member(false) {
		switch string(s.name()) {
		case "web_search_requests":
			s.count(&t.webSearch, path+".web_search_requests")
		case "web_fetch_requests":
			s.count(&t.webFetch, path+".web_fetch_requests")
		default:
			s.skip()
		}
	}
}

// readCompletion reads completion_tokens_details at s.i: its
// reasoning_tokens into reasoning.
func (s *jsonScanner) readCompletion(reasoning *[]byte) {
	const path = "additional_usage_values.completion_tokens_details"
	if obj, _ := s.objectAt(path); !obj || !s.open() {
		return
	}
	for more := s.member(true); more; more = s.member(false) {
		if s.nameIs("reasoning_tokens") {
			s.count(reasoning, path+".reasoning_tokens")
		} else {
			s.skip()
		}
	}
}

// readInputDetails reads input_tokens_details at s.i.
func (s *jsonScanner) readInputDetails(d *inputDetails) {
	const path = "additional_usage_values.input_tokens_details"
	if !enter(s, d, &d.set, path) {
		return
	}
	for more := s.member(true); more; more = s.member(false) {
		switch string(s.name()) {
		case "cached_tokens":
			s.count(&d.cached, path+".cached_tokens")
		case "cache_creation_tokens":
			s.count(&d.cacheCreation, path+".cache_creation_tokens")
		case "cache_write_tokens":
			s.count(&d.cacheWrite, path+".cache_write_tokens")
		default:
			s.skip()
		}
	}
}

// readOutputDetails reads output_tokens_details at s.i.
func (s *jsonScanner) readOutputDetails(d *outputDetails) {
	const path = "additional_usage_values.output_tokens_details"
	if !enter(s, d, &d.set, path) {
		return
	}
	for more := s.member(true); more; more = s.member(false) {
		if s.nameIs("reasoning_tokens") {
			s.count(&d.reasoning, path+".reasoning_tokens")
		} else {
			s.skip()
		}
	}
}

// readFailure reads error_information at s.i.
func (s *jsonScanner) readFailure(e *metaFailure) {
	if !enter(s, e, &e.set, "error_information") {
		return
	}
	for more := s.member(true); more; more = s.member(false) {
		switch string(s.name()) {
		case "error_code":
			s.label(&e.code)
		case "error_class":
			s.label(&e.class)
		case "llm_provider":
			s.label(&e.provider)
		case "error_message":
			s.label(&e.message)
		default:
			s.skip()
		}
	}
}

// readPriceKey reads model_map_information at s.i and returns its
// model_map_key: the last one given, when a JSON string; nil for any
// other value, and when model_map_information is not an object.
func (s *jsonScanner) readPriceKey() []byte {
	if s.peek() != '{' {
		s.skip()
		return nil
	}
	if !s.open() {
		return nil
	}
	var key []byte
	for more := s.member(true); more; more = s.member(false) {
		if !s.nameIs("model_map_key") {
			s.skip()
			continue
		}
		key = nil
		if s.peek() != '"' {
			s.skip()
			continue
		}
		raw, flags, ok := s.str()
		if ok {
			key = s.text(raw, flags)
		}
	}
	return key
}

// enter starts reading an optional object d (a pointer to a struct, to
// encoding/json) from the value at s.i: an object is entered, set noted,
// and true returned; null is read and removes d (zeroed). Any other kind
// of value is passed over as a mismatch, d left as it was.
func enter[T any](s *jsonScanner, d *T, set *bool, path string) bool {
	s.dup = s.dup || *set
	obj, null := s.objectAt(path)
	if null {
		var zero T
		*d = zero
	}
	if !obj || !s.open() {
		return false
	}
	*set = true
	return true
}

// objectAt tells whether the value at s.i is an object (not read yet) or
// null (read). Any other value is read and noted as a mismatch: path
// wants an object.
func (s *jsonScanner) objectAt(path string) (obj, null bool) {
	switch s.peek() {
	case '{':
		return true, false
	case 'n':
		return false, s.lit("null")
	}
	s.mismatch(path, "a JSON object")
	return false, false
}

// count reads a count at s.i into dst: a number as jsonb writes it back
// (jsonbNumber), or a string holding one as written (as encoding/json
// reads a json.Number); null leaves dst as it was. Any other value is a
// mismatch.
func (s *jsonScanner) count(dst *[]byte, path string) {
	s.dup = s.dup || *dst != nil
	switch c := s.peek(); {
	case c == '-' || isDigit(c):
		if num, ok := s.num(); ok {
			*dst = jsonbNumber(num)
		}
	case c == '"':
		raw, flags, ok := s.str()
		if !ok {
			return
		}
		if t := s.text(raw, flags); validNumber(t) {
			*dst = t
		} else if s.bad == "" {
			s.bad = badValue("metadata "+path, string(t), "a non-negative integer")
		}
	case c == 'n':
		s.lit("null")
	default:
		s.mismatch(path, "a non-negative integer")
	}
}

// label reads a label at s.i into dst: a string's value or a number as
// jsonb writes it back (jsonbNumber); any other value is read and leaves
// dst as it was.
func (s *jsonScanner) label(dst *label) {
	s.dup = s.dup || dst.ok
	switch c := s.peek(); {
	case c == '"':
		if raw, flags, ok := s.str(); ok {
			*dst = label{s.text(raw, flags), true}
		}
	case c == '-' || isDigit(c):
		if num, ok := s.num(); ok {
			*dst = label{jsonbNumber(num), true}
		}
	default:
		s.skip()
	}
}

// mismatch reads the value at s.i and notes, unless a mismatch was noted
// before, that it is not what path wants.
func (s *jsonScanner) mismatch(path, want string) {
	start := s.i
	if !s.skip() || s.bad != "" {
		return
	}
	where := "metadata"
	if path != "" {
		where += " " + path
	}
	s.bad = badValue(where, string(s.undoubled(s.b[start:s.i])), want)
}

// maxJSONBExponent bounds the exponents jsonbNumber writes out: a number
// beyond it is kept as written (PostgreSQL refuses most such numbers).
const maxJSONBExponent = 1000

// jsonbNumber returns the valid JSON number num as PostgreSQL's jsonb
// writes it back: its exact value in plain notation, with as many
// decimals as were written after the point less the exponent (none when
// that is below zero), and no sign on a zero. "1.50e3" is "1500",
// "12.5e-1" is "1.25", "-0" is "0", "1.50" stays "1.50". A number with
// neither an exponent nor a minus sign is num itself.
func jsonbNumber(num []byte) []byte {
	if num[0] != '-' && !hasExponent(num) {
		return num
	}
	return plainNumber(num)
}

// hasExponent tells whether the JSON number num has an exponent.
func hasExponent(num []byte) bool {
	for _, c := range num {
		if c|0x20 == 'e' {
			return true
		}
	}
	return false
}

// plainNumber is jsonbNumber's way for a number with an exponent or a
// minus sign.
func plainNumber(num []byte) []byte {
	neg := num[0] == '-'
	mant, expText := bytes.TrimPrefix(num, []byte("-")), []byte(nil)
	if i := bytes.IndexAny(mant, "eE"); i >= 0 {
		mant, expText = mant[:i], mant[i+1:]
	}
	exp := 0
	if len(expText) > 0 {
		e, err := strconv.Atoi(string(expText))
		if err != nil || e > maxJSONBExponent || e < -maxJSONBExponent {
			return num
		}
		exp = e
	}
	whole, frac, _ := bytes.Cut(mant, []byte("."))
	digits := string(whole) + string(frac)
	point := len(whole) + exp // where the point falls in digits
	var intPart, fracPart string
	switch {
	case point <= 0:
		intPart, fracPart = "0", strings.Repeat("0", -point)+digits
	case point >= len(digits):
		intPart = digits + strings.Repeat("0", point-len(digits))
	default:
		intPart, fracPart = digits[:point], digits[point:]
	}
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	out := intPart
	if fracPart != "" {
		out += "." + fracPart
	}
	if neg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	return []byte(out)
}

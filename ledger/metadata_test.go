package ledger

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The oracle: the metadata as tokenfare decoded it before readMetadata,
// with encoding/json into these structs, but for member names: those are
// matched exactly (exactNames), as LiteLLM and PostgreSQL's jsonb match
// them, where encoding/json folds case. readMetadata must give the same
// fields, or fail where it fails (with the same words for a syntax error).

// oracleUsage is additional_usage_values in LiteLLM's metadata: every
// member of the usage object LiteLLM kept but prompt_tokens,
// completion_tokens and total_tokens. Which members are there tells the
// API and the LiteLLM version that wrote the row (docs/calls.md).
type oracleUsage struct {
	// Chat Completions (LiteLLM's Usage type).
	Prompt *struct {
		Cached        json.Number `json:"cached_tokens"`
		CacheCreation json.Number `json:"cache_creation_tokens"`
		// The 5-minute / 1-hour split of the writes: logged only by the
		// versions that count writes inside prompt_tokens.
		WriteSplit *oracleSplit `json:"cache_creation_token_details"`
		// Gemini's grounding with Google Search: the searches (or grounded
		// prompts) LiteLLM counted.
		WebSearch json.Number `json:"web_search_requests"`
	} `json:"prompt_tokens_details"`
	// Anthropic's own usage object: its write split and server tools.
	CacheCreationSplit *oracleSplit `json:"cache_creation"`
	ServerToolUse      *struct {
		WebSearch json.Number `json:"web_search_requests"`
		WebFetch  json.Number `json:"web_fetch_requests"`
	} `json:"server_tool_use"`
	ServiceTier  oracleText `json:"service_tier"`
	InferenceGeo oracleText `json:"inference_geo"`
	Completion   struct {
		Reasoning json.Number `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	CacheRead     json.Number `json:"cache_read_input_tokens"`     // Anthropic, Bedrock
	CacheCreation json.Number `json:"cache_creation_input_tokens"` // Anthropic, Bedrock
	DeepSeekHit   json.Number `json:"prompt_cache_hit_tokens"`     // DeepSeek
	// Responses API, and Anthropic's own Messages usage.
	Input  json.Number `json:"input_tokens"`
	Output json.Number `json:"output_tokens"`
	InDet  *struct {
		Cached        json.Number `json:"cached_tokens"`
		CacheCreation json.Number `json:"cache_creation_tokens"`
		CacheWrite    json.Number `json:"cache_write_tokens"` // OpenAI's name
	} `json:"input_tokens_details"`
	OutDet *struct {
		Reasoning json.Number `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// oracleSplit is the split of cache writes by lifetime, as Anthropic's usage
// has it (cache_creation) and LiteLLM copies it
// (prompt_tokens_details.cache_creation_token_details).
type oracleSplit struct {
	FiveMinutes json.Number `json:"ephemeral_5m_input_tokens"`
	OneHour     json.Number `json:"ephemeral_1h_input_tokens"`
}

// oracleMeta is the part of LiteLLM's metadata JSON tokenfare reads.
type oracleMeta struct {
	Usage     oracleUsage `json:"additional_usage_values"`
	KeyAlias  oracleText  `json:"user_api_key_alias"`
	TeamAlias oracleText  `json:"user_api_key_team_alias"`
	TeamID    oracleText  `json:"user_api_key_team_id"`
	// ModelMap is the price entry LiteLLM used: an object whose
	// model_map_key names it. Read leniently, like the aliases: an odd
	// shape only costs the call its price key.
	ModelMap oracleKey `json:"model_map_information"`
	// Error is what LiteLLM logged of a failure (its
	// StandardLoggingPayloadErrorInformation), read leniently: an odd
	// shape only costs the call its failure detail.
	Error *struct {
		Code     oracleText `json:"error_code"`
		Class    oracleText `json:"error_class"`
		Provider oracleText `json:"llm_provider"`
		Message  oracleText `json:"error_message"`
	} `json:"error_information"`
}

// oracleKey reads model_map_information.model_map_key as the member is
// decoded: "" when the member is absent, not an object, or its key is not
// a JSON string.
type oracleKey struct{ s string }

func (k *oracleKey) UnmarshalJSON(b []byte) error {
	k.s = "" // a member given twice: the last one counts
	if b = bytes.TrimSpace(b); len(b) == 0 || b[0] != '{' {
		return nil
	}
	var info struct {
		Key json.RawMessage `json:"model_map_key"`
	}
	var key string
	if json.Unmarshal(b, &info) == nil && json.Unmarshal(info.Key, &key) == nil {
		k.s = key
	}
	return nil
}

// oracleText reads a JSON string, or a number as written, and passes over
// any other kind: aliases only label reports, so an odd type there must not
// cost the row its tokens and spend.
type oracleText struct {
	s  string
	ok bool
}

func (t *oracleText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 1 && b[0] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b[1:len(b)-1]):
		// No escape and valid UTF-8: the text between the quotes is the
		// string, as decoding it gives (the document is valid JSON).
		t.s, t.ok = string(b[1:len(b)-1]), true
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

// view lists the oracle's fields as "path=value" lines.
func (o *oracleMeta) view() []string {
	u := &o.Usage
	var p oracleUsagePrompt
	if u.Prompt != nil {
		p = oracleUsagePrompt{true, string(u.Prompt.Cached), string(u.Prompt.CacheCreation), string(u.Prompt.WebSearch), u.Prompt.WriteSplit}
	}
	var st [3]string
	if d := u.ServerToolUse; d != nil {
		st = [3]string{"true", string(d.WebSearch), string(d.WebFetch)}
	}
	var in [4]string
	if d := u.InDet; d != nil {
		in = [4]string{"true", string(d.Cached), string(d.CacheCreation), string(d.CacheWrite)}
	}
	out := [2]string{fmt.Sprint(u.OutDet != nil), ""}
	if u.OutDet != nil {
		out[1] = string(u.OutDet.Reasoning)
	}
	var none oracleText
	fail := [5]string{"false", none.view(), none.view(), none.view(), none.view()}
	if e := o.Error; e != nil {
		fail = [5]string{"true", e.Code.view(), e.Class.view(), e.Provider.view(), e.Message.view()}
	}
	return []string{
		"prompt=" + fmt.Sprint(p.set), "prompt.cached=" + p.cached, "prompt.cache_creation=" + p.creation,
		"prompt.split=" + p.split.view(), "prompt.web_search=" + p.search,
		"cache_creation=" + u.CacheCreationSplit.view(),
		"server_tool_use=" + fmt.Sprint(u.ServerToolUse != nil), "server.web_search=" + st[1], "server.web_fetch=" + st[2],
		"service_tier=" + u.ServiceTier.view(), "inference_geo=" + u.InferenceGeo.view(),
		"reasoning=" + string(u.Completion.Reasoning), "cache_read=" + string(u.CacheRead),
		"cache_creation_input=" + string(u.CacheCreation), "deepseek_hit=" + string(u.DeepSeekHit),
		"input=" + string(u.Input), "output=" + string(u.Output),
		"input_details=" + fmt.Sprint(u.InDet != nil), "in.cached=" + in[1], "in.cache_creation=" + in[2], "in.cache_write=" + in[3],
		"output_details=" + out[0], "out.reasoning=" + out[1],
		"key_alias=" + o.KeyAlias.view(), "team_alias=" + o.TeamAlias.view(), "team_id=" + o.TeamID.view(),
		"price_key=" + o.ModelMap.s,
		"failure=" + fmt.Sprint(o.Error != nil), "failure.code=" + fail[1], "failure.class=" + fail[2],
		"failure.provider=" + fail[3], "failure.message=" + fail[4],
	}
}

type oracleUsagePrompt struct {
	set                      bool
	cached, creation, search string
	split                    *oracleSplit
}

func (w *oracleSplit) view() string {
	if w == nil {
		return "false"
	}
	return fmt.Sprintf("true %q %q", w.FiveMinutes, w.OneHour)
}

func (t oracleText) view() string { return fmt.Sprintf("%t %q", t.ok, t.s) }

// view lists readMetadata's fields as the oracle's view does.
func (f *metaFields) view() []string {
	u := &f.usage
	p, in, e := &u.prompt, &u.inDetails, &f.failure
	return []string{
		"prompt=" + fmt.Sprint(p.set), "prompt.cached=" + string(p.cached), "prompt.cache_creation=" + string(p.cacheCreation),
		"prompt.split=" + p.split.view(), "prompt.web_search=" + string(p.webSearch),
		"cache_creation=" + u.cacheSplit.view(),
		"server_tool_use=" + fmt.Sprint(u.serverTools.set), "server.web_search=" + string(u.serverTools.webSearch),
		"server.web_fetch=" + string(u.serverTools.webFetch),
		"service_tier=" + u.serviceTier.view(), "inference_geo=" + u.inferenceGeo.view(),
		"reasoning=" + string(u.reasoning), "cache_read=" + string(u.cacheRead),
		"cache_creation_input=" + string(u.cacheCreation), "deepseek_hit=" + string(u.deepSeekHit),
		"input=" + string(u.input), "output=" + string(u.output),
		"input_details=" + fmt.Sprint(in.set), "in.cached=" + string(in.cached), "in.cache_creation=" + string(in.cacheCreation),
		"in.cache_write=" + string(in.cacheWrite),
		"output_details=" + fmt.Sprint(u.outDetails.set), "out.reasoning=" + string(u.outDetails.reasoning),
		"key_alias=" + f.keyAlias.view(), "team_alias=" + f.teamAlias.view(), "team_id=" + f.teamID.view(),
		"price_key=" + string(f.priceKey),
		"failure=" + fmt.Sprint(e.set), "failure.code=" + e.code.view(), "failure.class=" + e.class.view(),
		"failure.provider=" + e.provider.view(), "failure.message=" + e.message.view(),
	}
}

func (w *writeSplit) view() string {
	if !w.set {
		if w.fiveMinutes != nil || w.oneHour != nil {
			return "false, with counts" // a removed split keeps none
		}
		return "false"
	}
	return fmt.Sprintf("true %q %q", w.fiveMinutes, w.oneHour)
}

func (l label) view() string {
	if !l.ok {
		if l.text != nil {
			return "false, with text"
		}
		return "false \"\""
	}
	return fmt.Sprintf("true %q", l.text)
}

// oracleNames are the member names the oracle's structs know (their json
// tags, and model_map_key).
var oracleNames = func() map[string]bool {
	names := map[string]bool{"model_map_key": true}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for f := range t.Fields() {
			if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "" {
				names[tag] = true
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[oracleMeta]())
	return names
}()

// exactNames returns the valid JSON document m with every member name
// that is not, exactly, one the oracle knows (escapes resolved) renamed
// "~" and the name: a name no known one folds to, so that encoding/json,
// which matches names without regard to case, matches them exactly.
// Everything but the names is left byte for byte; an invalid m is
// returned as it is (encoding/json checks the whole text first).
func exactNames(m []byte) []byte {
	if !json.Valid(m) {
		return m
	}
	dec := json.NewDecoder(bytes.NewReader(m))
	var out []byte
	copied := 0
	var open []byte // per container: 'k' object before a name, 'v' before a value, 'a' array
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return append(out, m[copied:]...)
		}
		top := byte(0)
		if len(open) > 0 {
			top = open[len(open)-1]
		}
		switch {
		case top == 'k' && tok != json.Delim('}'):
			start := int(before) + bytes.IndexByte(m[before:], '"')
			name := tok.(string)
			if !oracleNames[name] {
				name = "~" + name
			}
			quoted, _ := json.Marshal(name)
			out = append(append(out, m[copied:start]...), quoted...)
			copied = int(dec.InputOffset())
			open[len(open)-1] = 'v'
			continue
		case tok == json.Delim('{'):
			open = append(open, 'k')
			continue
		case tok == json.Delim('['):
			open = append(open, 'a')
			continue
		case tok == json.Delim('}') || tok == json.Delim(']'):
			open = open[:len(open)-1]
		}
		if len(open) > 0 && open[len(open)-1] == 'v' {
			open[len(open)-1] = 'k'
		}
	}
}

// TestExactNames: the oracle's renaming, worked by hand: every name but
// the exact known ones (escapes resolved) renamed, at every depth, in
// arrays too; values and white space left as written; invalid JSON left.
func TestExactNames(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"User_Api_Key_Alias": "a", "user_api_key_alias" : "b"}`, `{"~User_Api_Key_Alias": "a", "user_api_key_alias" : "b"}`},
		{`{"a":[{"Cached_Tokens":1,"cached_tokens":"\u0031"},{}],"b":{"c":null}}`, `{"~a":[{"~Cached_Tokens":1,"cached_tokens":"\u0031"},{}],"~b":{"~c":null}}`},
		{`{"user\u005fapi_key_alias": 1.50e3, "x\"y": []}`, `{"user_api_key_alias": 1.50e3, "~x\"y": []}`},
		{` [ {"input_tokens" :{ }} , "k" ] `, ` [ {"input_tokens" :{ }} , "k" ] `},
		{`{"Input_Tokens": }`, `{"Input_Tokens": }`},
	} {
		if got := string(exactNames([]byte(tc.in))); got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// checkAgainstOracle reads m both ways and reports where they differ.
func checkAgainstOracle(t *testing.T, m []byte) {
	var o oracleMeta
	oerr := json.Unmarshal(asJSONB(exactNames(m)), &o)
	var f metaFields
	reason := readMetadata(m, &f)
	var syntax *json.SyntaxError
	switch {
	case errors.As(oerr, &syntax):
		if want := "metadata is not valid JSON: " + syntax.Error(); reason != want {
			t.Fatalf("%q:\nread  %q\nwant  %q", m, reason, want)
		}
	case oerr != nil:
		if reason == "" {
			t.Fatalf("%q: read, encoding/json fails: %v", m, oerr)
		}
		if strings.HasPrefix(reason, "metadata is not valid JSON") {
			t.Fatalf("%q: valid JSON of the wrong kind refused as %q", m, reason)
		}
	case reason != "":
		t.Fatalf("%q: refused (%s), encoding/json reads it", m, reason)
	default:
		got, want := f.view(), o.view()
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%q: %s, want %s", m, got[i], want[i])
			}
		}
	}
}

// FuzzReadMetadataMatchesEncodingJSON: for any input, readMetadata gives
// the fields encoding/json decoded into the structs tokenfare read it
// with, member names matched exactly (exactNames), or both fail (syntax
// errors in the same words). Seeds: the
// metadata of every usage shape of docs/calls.md, from the fixtures.
func FuzzReadMetadataMatchesEncodingJSON(f *testing.F) {
	for _, m := range metadataSeeds(f) {
		f.Add(m)
	}
	for _, m := range metadataCases {
		f.Add([]byte(m.in))
	}
	f.Fuzz(func(t *testing.T, m []byte) {
		checkAgainstOracle(t, m)
		checkDoubled(t, m)
		checkFramed(t, m)
	})
}

// checkFramed reads m as the JSON framer reads it, the metadata member of
// an element (frameObject with metas): the element checks exactly when it
// is valid JSON, and when m is an object its reading (reason, fields,
// place) is readMetadata's of m, or of the object m starts with when m
// holds members after it (the element is then valid where m is not).
func checkFramed(t *testing.T, m []byte) {
	head := `{"request_id":"r","metadata":`
	el := append(append([]byte(head), m...), `,"spend":1}`...)
	s := jsonScanner{b: el}
	var metas []framedMeta
	_, ok := s.frameObject(nil, &metas)
	ok = ok && s.end()
	if ok != json.Valid(el) {
		t.Fatalf("%q: framed %v (%s), valid %v", el, ok, s.err, json.Valid(el))
	}
	trimmed := bytes.TrimSpace(m)
	if !ok || len(trimmed) == 0 || trimmed[0] != '{' {
		if ok && len(metas) != 0 {
			t.Fatalf("%q: %d metadata read from a value that is not an object", el, len(metas))
		}
		return
	}
	if len(metas) != 1 {
		t.Fatalf("%q: %d metadata read, want 1", el, len(metas))
	}
	fm := &metas[0]
	at := el[fm.at[0]:fm.at[1]]
	value := trimmed
	if !json.Valid(trimmed) {
		// The element is valid and m is not: m is an object and more
		// members after it ({},"":""), and the metadata is the object.
		if !json.Valid(at) || !bytes.HasPrefix(trimmed, at) {
			t.Fatalf("%q: metadata at %q, not the object m starts with", el, at)
		}
		value = at
	}
	var f metaFields
	want := readMetadata(value, &f)
	if string(at) != string(value) {
		t.Fatalf("%q: metadata at %q, want %q", el, at, value)
	}
	if fm.reason != want {
		t.Fatalf("%q framed: reason %q, want %q", m, fm.reason, want)
	}
	if got, want := fm.f.view(), f.view(); !slices.Equal(got, want) {
		t.Fatalf("%q framed:\n%s\nwant\n%s", m, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadMetadataFramed: every hand-worked case and fixture reads the
// same as an element's metadata member, read by the framer.
func TestReadMetadataFramed(t *testing.T) {
	checkEveryMetadata(t, checkFramed, `{"additional_usage_values": {"input_tokens": 1}, "additional_usage_values": null}`,
		`{"user_api_key_alias": 1, "user_api_key_alias": "k"}`, `{"additional_usage_values": []}`, ` {"a": 1} `,
		`{"a": {"b": [1, {"c": "\u00e9"}]}}`, `{"a": 1,}`, `{"a" 1}`, `{`, `{"x": tru}`, `{"a":1}{`)
}

// checkEveryMetadata runs check on every hand-worked case and fixture,
// and on more.
func checkEveryMetadata(t *testing.T, check func(*testing.T, []byte), more ...string) {
	for _, tc := range metadataCases {
		check(t, []byte(tc.in))
	}
	for _, m := range metadataSeeds(t) {
		check(t, m)
	}
	for _, m := range more {
		check(t, []byte(m))
	}
}

// checkDoubled reads m with its quotes doubled, as a table dump's CSV
// field holds it, in place: the reason and the fields must be those of m
// read as it is (strings decoded from escapes compare by their text).
func checkDoubled(t *testing.T, m []byte) {
	var f, g metaFields
	want := readMetadata(m, &f)
	d := bytes.ReplaceAll(m, []byte(`"`), []byte(`""`))
	if got := readMetadataIn(d, 1, &g); got != want {
		t.Fatalf("%q doubled: reason %q, want %q", m, got, want)
	}
	if got, want := g.view(), f.view(); !slices.Equal(got, want) {
		t.Fatalf("%q doubled:\n%s\nwant\n%s", m, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadMetadataDoubled: every hand-worked case and fixture reads the
// same from its text with the quotes doubled, in place.
func TestReadMetadataDoubled(t *testing.T) {
	checkEveryMetadata(t, checkDoubled, `{"a\"b": 1}`, `{"user_api_key_alias": "\"\""}`, `{"x": "\"}`, `{""`, `{"`, `""`, `"\""`,
		`{"user_api_key_alias": 1, "user_api_key_alias": "\u0022q\"\\"}`, `{"additional_usage_values": {"input_tokens": "\"1"}}`,
		`{"additional_usage_values": {"server_tool_use": "a\"b"}}`, `{"Us\u0065r_api_key_alias": "k"}`, `{"a" "b"}`, `{"a":""}`)
}

// metadataSeeds returns the metadata of the fixtures' LiteLLM rows: the
// table dumps (CSV) and /spend/logs answers (JSON) of every usage shape.
func metadataSeeds(tb testing.TB) [][]byte {
	var seeds [][]byte
	csvs, _ := filepath.Glob("../testdata/litellm/*.csv")
	more, _ := filepath.Glob("testdata/spendlogs*.csv")
	for _, p := range append(append(csvs, more...), "../testdata/sample/spendlogs-dump-2026-10.csv") {
		seeds = append(seeds, csvMetadata(tb, p, 40)...)
	}
	jsons, _ := filepath.Glob("../testdata/litellm/*.json")
	more, _ = filepath.Glob("testdata/spendlogs*.json")
	for _, p := range append(jsons, more...) {
		seeds = append(seeds, jsonMetadata(tb, p)...)
	}
	if len(seeds) < 20 {
		tb.Fatalf("%d metadata seeds: the fixtures moved?", len(seeds))
	}
	return seeds
}

// csvMetadata returns up to limit metadata values of a CSV file.
func csvMetadata(tb testing.TB, path string, limit int) [][]byte {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord, r.LazyQuotes = -1, true
	recs, _ := r.ReadAll()
	if len(recs) == 0 {
		return nil
	}
	col := -1
	for i, h := range recs[0] {
		if h == "metadata" {
			col = i
		}
	}
	var out [][]byte
	for _, rec := range recs[1:] {
		if col >= 0 && col < len(rec) && len(out) < limit {
			out = append(out, []byte(rec[col]))
		}
	}
	return out
}

// jsonMetadata returns the metadata members of a JSON file's rows.
func jsonMetadata(tb testing.TB, path string) [][]byte {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var rows []map[string]json.RawMessage
	if json.Unmarshal(data, &rows) != nil {
		var page struct{ Data []map[string]json.RawMessage }
		json.Unmarshal(data, &page)
		rows = page.Data
	}
	var out [][]byte
	for _, r := range rows {
		if m, ok := r["metadata"]; ok {
			out = append(out, m)
		}
	}
	return out
}

// TestReadMetadataFixtures: the fixtures' metadata read both ways.
func TestReadMetadataFixtures(t *testing.T) {
	for _, m := range metadataSeeds(t) {
		checkAgainstOracle(t, m)
	}
}

// metadataCases are hand-worked metadata and what readMetadata finds in
// them: a field's view line, or the reason it refuses the metadata.
var metadataCases = []struct {
	name, in string
	want     []string // view lines that must be there
	reason   string
}{
	{name: "chat completions counts", in: `{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 16832, "cache_creation_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 7}}}`,
		want: []string{"prompt=true", "prompt.cached=16832", "prompt.cache_creation=0", "reasoning=7", "input_details=false"}},
	{name: "a count as jsonb writes it back", in: `{"additional_usage_values": {"input_tokens": 1.50e3, "output_tokens": -0, "cache_read_input_tokens": 12.0}}`,
		want: []string{"input=1500", "output=0", "cache_read=12.0"}},
	{name: "a count in a string is as written", in: `{"additional_usage_values": {"input_tokens": "1.50e3"}}`,
		want: []string{"input=1.50e3"}},
	{name: "a label number as jsonb writes it back", in: `{"user_api_key_team_id": 4.2e1, "user_api_key_alias": -0.0, "user_api_key_team_alias": 1e-2}`,
		want: []string{`team_id=true "42"`, `key_alias=true "0.0"`, `team_alias=true "0.01"`}},
	{name: "a count in a string", in: `{"additional_usage_values": {"cache_read_input_tokens": "12", "output_tokens": "\u0031\u0032"}}`,
		want: []string{"cache_read=12", "output=12"}},
	{name: "a later null removes a count", in: `{"additional_usage_values": {"input_tokens": 5, "input_tokens": null}}`,
		want: []string{"input="}},
	{name: "the last count wins", in: `{"additional_usage_values": {"input_tokens": 5, "input_tokens": 6}}`,
		want: []string{"input=6"}},
	{name: "an object given twice: the last, whole", in: `{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 1}, "prompt_tokens_details": {"cache_creation_tokens": 2}}}`,
		want: []string{"prompt=true", "prompt.cached=", "prompt.cache_creation=2"}},
	{name: "the usage given twice: the last, whole", in: `{"additional_usage_values": {"input_tokens": 1, "completion_tokens_details": {"reasoning_tokens": 4}}, "additional_usage_values": {"output_tokens": 2}}`,
		want: []string{"input=", "output=2", "reasoning="}},
	{name: "completion details given twice: the last", in: `{"additional_usage_values": {"completion_tokens_details": {"reasoning_tokens": 7}, "completion_tokens_details": {}}}`,
		want: []string{"reasoning="}},
	{name: "a wrong kind before the last is dropped", in: `{"additional_usage_values": {"server_tool_use": [1], "input_tokens": true, "server_tool_use": {"web_search_requests": 2}, "input_tokens": 3}, "error_information": "boom", "error_information": {"error_code": 1}}`,
		want: []string{"server_tool_use=true", "server.web_search=2", "input=3", `failure.code=true "1"`}},
	{name: "duplicates at every depth, escaped names among them", in: `{"user_api_key_alias": "a", "user\u005fapi_key_alias": 5, "additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 1, "cached_tokens": null, "cache_creation_tokens": 2}, "x": [{"a": 1, "a": 2}]}}`,
		want: []string{`key_alias=true "5"`, "prompt=true", "prompt.cached=", "prompt.cache_creation=2"}},
	{name: "a wrong kind given last refuses", in: `{"additional_usage_values": {"input_tokens": 1, "input_tokens": true}}`,
		reason: `metadata additional_usage_values.input_tokens "true" is not a non-negative integer`},
	{name: "null removes an optional object", in: `{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 1}, "prompt_tokens_details": null, "prompt_tokens_details": {"cache_creation_tokens": 2}}}`,
		want: []string{"prompt=true", "prompt.cached=", "prompt.cache_creation=2"}},
	{name: "a later null removes the usage", in: `{"additional_usage_values": {"input_tokens": 3}, "additional_usage_values": null}`,
		want: []string{"input="}},
	{name: "a top-level name in another case is another member", in: `{"ADDITIONAL_USAGE_VALUES": {"input_tokens": 1}, "User_Api_Key_Alias": "k", "user_api_key_team_alias": "t"}`,
		want: []string{"input=", "key_alias=false \"\"", `team_alias=true "t"`}},
	{name: "nested names in another case are other members", in: `{"additional_usage_values": {"Input_Tokens": 1, "Prompt_Tokens_Details": {"cached_tokens": 5}, "prompt_tokens_details": {"Cached_Tokens": 400, "cache_creation_tokens": 2}, "completion_tokens_details": {"REASONING_TOKENS": 3}}}`,
		want: []string{"input=", "prompt=true", "prompt.cached=", "prompt.cache_creation=2", "reasoning="}},
	{name: "nor are names folded as Unicode folds them", in: `{"additional_usage_values": {"server_tool_use": {"web_ſearch_requests": 2}, "cache_read_input_to\u212aens": 3}, "model_map_information": {"Model_Map_Key": "x"}}`,
		want: []string{"server_tool_use=true", "server.web_search=", "cache_read=", "price_key="}},
	{name: "the reproduction: capitalised usage, no cached tokens", in: `{"Additional_Usage_Values": {"prompt_tokens_details": {"cached_tokens": 400}}}`,
		want: []string{"prompt=false", "prompt.cached="}},
	{name: "a member of the wrong kind in another case is passed over", in: `{"additional_usage_values": {"Server_Tool_Use": [1], "INPUT_TOKENS": true}, "Error_Information": "boom"}`,
		want: []string{"server_tool_use=false", "input=", "failure=false"}},
	{name: "an escaped spelling is the name", in: `{"\u0061dditional_usage_values": {"input\u005ftokens": 1, "\u0073erver_tool_use": {"web_search_request\u0073": 2}}, "user_api_key\u005falias": "k"}`,
		want: []string{"input=1", "server_tool_use=true", "server.web_search=2", `key_alias=true "k"`}},
	{name: "duplicates: the last of the exact name wins, another case aside", in: `{"user_api_key_alias": "a", "User_Api_Key_Alias": "b", "additional_usage_values": {"input_tokens": 1, "Input_Tokens": 9, "input_tokens": 2, "INPUT_TOKENS": 8}}`,
		want: []string{`key_alias=true "a"`, "input=2"}},
	{name: "a name that only looks alike", in: `{"additional_usage_values": {"input_tokens ": 1, "ınput_tokens": 2}}`,
		want: []string{"input="}},
	{name: "labels: strings, escapes, numbers; other kinds are none", in: `{"user_api_key_alias": "caf\u00e9 \"prod\"", "user_api_key_team_alias": 42, "user_api_key_team_id": "t1", "user_api_key_team_id": true}`,
		want: []string{`key_alias=true "café \"prod\""`, `team_alias=true "42"`, `team_id=false ""`}},
	{name: "bytes that are not UTF-8 in a label", in: "{\"user_api_key_alias\": \"a\xffb\"}",
		want: []string{"key_alias=true \"a\ufffdb\""}},
	{name: "a broken surrogate pair in a label", in: `{"user_api_key_alias": "\ud83d\u0041\ud83d\ude00"}`,
		want: []string{"key_alias=true \"\ufffdA😀\""}},
	{name: "price key: the last, when a string", in: `{"model_map_information": {"model_map_key": "a", "MODEL_MAP_KEY": "b"}, "model_map_information": {"model_map_key": "c"}}`,
		want: []string{"price_key=c"}},
	{name: "price key: not a string", in: `{"model_map_information": {"model_map_key": "a", "model_map_key": 1}}`,
		want: []string{"price_key="}},
	{name: "price key: model_map_information not an object", in: `{"model_map_information": {"model_map_key": "a"}, "model_map_information": "x"}`,
		want: []string{"price_key="}},
	{name: "failure detail", in: `{"error_information": {"error_code": 429, "error_class": "RateLimitError", "llm_provider": "openai", "error_message": null}}`,
		want: []string{"failure=true", `failure.code=true "429"`, `failure.class=true "RateLimitError"`, `failure.message=false ""`}},
	{name: "null metadata", in: `null`, want: []string{"prompt=false", "key_alias=false \"\""}},
	{name: "unknown members of any kind passed over", in: `{"a": [1, {"b": [true, false, null, "x\n\t\\"]}, -1.5e-3], "user_api_key_alias": "k"}`,
		want: []string{`key_alias=true "k"`}},

	{name: "a count of the wrong kind", in: `{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": true}}}`,
		reason: `metadata additional_usage_values.prompt_tokens_details.cached_tokens "true" is not a non-negative integer`},
	{name: "a string that is no number", in: `{"additional_usage_values": {"input_tokens": "12 "}}`,
		reason: `metadata additional_usage_values.input_tokens "12 " is not a non-negative integer`},
	{name: "an object of the wrong kind", in: `{"additional_usage_values": {"server_tool_use": [1]}}`,
		reason: `metadata additional_usage_values.server_tool_use "[1]" is not a JSON object`},
	{name: "error_information of the wrong kind", in: `{"error_information": "boom"}`,
		reason: `metadata error_information "\"boom\"" is not a JSON object`},
	{name: "metadata that is not an object", in: `[1, 2]`, reason: `metadata "[1, 2]" is not a JSON object`},
	{name: "a syntax error after a wrong kind wins", in: `{"additional_usage_values": 1, "x": tru}`,
		reason: `metadata is not valid JSON: invalid character '}' in literal true (expecting 'e')`},
	{name: "a bad key", in: `{bad}`, reason: `metadata is not valid JSON: invalid character 'b' looking for beginning of object key string`},
	{name: "a cut string", in: `{"user_api_key_alias": "ab`, reason: `metadata is not valid JSON: unexpected end of JSON input`},
	{name: "a cut escape", in: `{"a": "\u12`, reason: `metadata is not valid JSON: invalid character ' ' in \u hexadecimal character escape`},
	{name: "a cut number", in: `{"a": 1.`, reason: `metadata is not valid JSON: invalid character ' ' after decimal point in numeric literal`},
	{name: "a leading zero", in: `{"a": 01}`, reason: `metadata is not valid JSON: invalid character '1' after object key:value pair`},
	{name: "a control byte in a string", in: "{\"a\": \"x\ty\"}", reason: `metadata is not valid JSON: invalid character '\t' in string literal`},
	{name: "a trailing comma", in: `{"a": [1,]}`, reason: `metadata is not valid JSON: invalid character ']' looking for beginning of value`},
	{name: "text after the object", in: `{"a": 1} x`, reason: `metadata is not valid JSON: invalid character 'x' after top-level value`},
	{name: "a byte beyond ASCII out of place", in: "{\"a\": \xff}", reason: `metadata is not valid JSON: invalid character 'ÿ' looking for beginning of value`},
	{name: "too deep", in: `{"a": ` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`,
		reason: `metadata is not valid JSON: invalid character '[' exceeded max depth`},
}

func TestReadMetadata(t *testing.T) {
	for _, tc := range metadataCases {
		t.Run(tc.name, func(t *testing.T) {
			var f metaFields
			if reason := readMetadata([]byte(tc.in), &f); reason != tc.reason {
				t.Fatalf("reason %q, want %q", reason, tc.reason)
			}
			view := strings.Join(f.view(), "\n")
			for _, w := range tc.want {
				if !strings.Contains("\n"+view+"\n", "\n"+w+"\n") {
					t.Errorf("no %q in\n%s", w, view)
				}
			}
			checkAgainstOracle(t, []byte(tc.in))
		})
	}
}

// TestReadMetadataAllocations: a dump's metadata, its labels plain, is
// read without allocating.
func TestReadMetadataAllocations(t *testing.T) {
	m := []byte(`{"status": "success", "user_api_key": "2e2f28", "user_api_key_alias": "growth-search", "user_api_key_team_id": "3f8c5d10", "additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 0, "cache_creation_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 0}}, "user_api_key_team_alias": "growth", "model_map_information": {"model_map_key": "gpt-4o"}}`)
	if !utf8.Valid(m) {
		t.Fatal("seed")
	}
	var f metaFields
	if n := testing.AllocsPerRun(100, func() { f = metaFields{}; readMetadata(m, &f) }); n != 0 {
		t.Errorf("%v allocations a read, want 0", n)
	}
}

// oracleMembers is how the members of a row object were read before
// eachMember used the scanner: a json.Decoder's tokens.
func oracleMembers(raw []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if tok != json.Delim('{') {
		return nil, fmt.Errorf("found %v", tok)
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var m json.RawMessage
		if err := dec.Decode(&m); err != nil {
			return nil, err
		}
		var text string
		switch {
		case string(m) == "null": // jsonText: null is empty
		case m[0] != '"' || json.Unmarshal(m, &text) != nil:
			text = string(m) // jsonText keeps what is not a string as written
		}
		out = append(out, fmt.Sprintf("%q=%s text %q", tok.(string), m, text))
	}
	return out, nil
}

// FuzzEachMemberMatchesDecoder: for any valid JSON value (as the readers
// hand eachMember), its members and their column text are the decoder's,
// and a value that is not an object is refused in the same words. The
// members the framer notes of an object, and their text as the workers
// take it, are the decoder's too.
func FuzzEachMemberMatchesDecoder(f *testing.F) {
	for _, p := range []string{"testdata/spendlogs.json", "../testdata/litellm/spendlogs-shapes.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var rows []json.RawMessage
		if err := json.Unmarshal(data, &rows); err != nil {
			f.Fatal(err)
		}
		for _, r := range rows {
			f.Add([]byte(r))
		}
	}
	for _, s := range []string{`[1]`, `1e6`, `"x"`, `null`, `true`, `{"a\u0062":"c\u00e9\ud800","":{}, "a b":[ ] , "n":-0.5e+1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		want, werr := oracleMembers(raw)
		var got []string
		err := eachMember(raw, func(k, m []byte) {
			got = append(got, fmt.Sprintf("%q=%s text %q", k, m, jsonText(m)))
		})
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("%q: error %v, want %v", raw, err, werr)
		}
		if err == nil && strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%q:\n%s\nwant\n%s", raw, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if framed := framedMembers(raw); err == nil && strings.Join(framed, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%q framed:\n%s\nwant\n%s", raw, strings.Join(framed, "\n"), strings.Join(want, "\n"))
		}
	})
}

// framedMembers is how the workers read the members of an element the
// framer checked (frameObject) and the column text of each (setJSON, by
// the value's kind the framer noted), shown as oracleMembers shows them;
// nil when raw is not an object. A text that differs from setJSON's
// reading the value itself (valueUnread) is shown as such.
func framedMembers(raw []byte) []string {
	s := jsonScanner{b: raw}
	if s.peek() != '{' {
		return nil
	}
	ms, ok := s.frameObject(nil, nil)
	if !ok {
		return []string{"not valid: " + s.err}
	}
	var out []string
	for _, m := range ms {
		key := raw[m.key[0]:m.key[1]]
		if !m.plain {
			key = unquote(key)
		}
		v := rowFields{data: raw[:len(raw):len(raw)]}
		v.setJSON(3, int(m.val[0]), int(m.val[1]), m.kind)
		unread := rowFields{data: raw[:len(raw):len(raw)]}
		unread.setJSON(3, int(m.val[0]), int(m.val[1]), valueUnread)
		if !bytes.Equal(v.get(3), unread.get(3)) {
			out = append(out, fmt.Sprintf("%q: by kind %d %q, read again %q", key, m.kind, v.get(3), unread.get(3)))
		}
		out = append(out, fmt.Sprintf("%q=%s text %q", key, raw[m.val[0]:m.val[1]], v.get(3)))
	}
	return out
}

// asJSONB returns the valid JSON document m as PostgreSQL's jsonb keeps
// it: each object's members only at the last of their name, numbers
// written back plainly (pgNumber), rebuilt from encoding/json's tokens;
// an invalid m is returned as it is. The oracle's own way to what the
// reader does with dropped and jsonbNumber.
func asJSONB(m []byte) []byte {
	if !json.Valid(m) {
		return m
	}
	dec := json.NewDecoder(bytes.NewReader(m))
	dec.UseNumber()
	out, err := json.Marshal(asJSONBValue(dec))
	if err != nil {
		panic(err)
	}
	return out
}

// orderedObject is an object's members in order, each name once.
type orderedObject struct {
	names []string
	vals  []any
}

func (o *orderedObject) MarshalJSON() ([]byte, error) {
	out := []byte{'{'}
	for i, n := range o.names {
		if i > 0 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(n)
		v, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, k...), ':'), v...)
	}
	return append(out, '}'), nil
}

func asJSONBValue(dec *json.Decoder) any {
	tok, _ := dec.Token()
	switch tok {
	case json.Delim('{'):
		o := &orderedObject{}
		for dec.More() {
			k, _ := dec.Token()
			v := asJSONBValue(dec)
			if i := slices.Index(o.names, k.(string)); i >= 0 {
				o.names, o.vals = slices.Delete(o.names, i, i+1), slices.Delete(o.vals, i, i+1)
			}
			o.names, o.vals = append(o.names, k.(string)), append(o.vals, v)
		}
		dec.Token()
		return o
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			a = append(a, asJSONBValue(dec))
		}
		dec.Token()
		return a
	}
	if n, ok := tok.(json.Number); ok {
		return json.Number(pgNumber(string(n)))
	}
	return tok
}

// pgNumber is the JSON number n as numeric's output writes it, worked
// with math/big: its exact value with max(0, decimals written − exponent)
// decimals.
func pgNumber(n string) string {
	r, ok := new(big.Rat).SetString(n)
	if !ok {
		panic(n)
	}
	mant, exp, _ := strings.Cut(strings.ToLower(n), "e")
	_, frac, _ := strings.Cut(mant, ".")
	e, _ := strconv.Atoi(exp)
	if e > 1000 || e < -1000 {
		return n
	}
	return r.FloatString(max(0, len(frac)-e))
}

// TestAsJSONB: the oracle's jsonb, worked by hand (the numbers as
// PostgreSQL 15 writes them back).
func TestAsJSONB(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a": 1, "b": {"c": 1, "c": [2, {"d": 0, "d": 1.50e3}]}, "a": null}`, `{"b":{"c":[2,{"d":1500}]},"a":null}`},
		{`[1.50e3, -0, 1e-2, -0.0, 12.5e-1, 1E+2, 0e5, 1.0e1, -1.5e2, 123456789012345678901234567890e-25, 5e-1, 0.00e2, -0e-3, 1.50]`,
			`[1500,0,0.01,0.0,1.25,100,0,10,-150,12345.6789012345678901234567890,0.5,0,0.000,1.50]`},
		{`{"a\u0062": 1, "ab": "x"}`, `{"ab":"x"}`},
		{`[1, {}]`, `[1,{}]`},
		{`{"a": }`, `{"a": }`},
	} {
		if got := string(asJSONB([]byte(tc.in))); got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// TestDropped: a scanner given dropped's places sees each object's last
// member of each name only, at every depth, in a document as written and
// with its quotes doubled: the oracle's document (lastOnly).
func TestDropped(t *testing.T) {
	for _, in := range []string{
		`{"a": 1, "b": {"c": 1, "c": [2, {"d": 0, "d": 1.50e3}]}, "a": null}`,
		`{"a\u0062": 1, "ab": "x\"y", "q": {"\"": 1, "\u0022": 2}}`,
		` [ 1 , { } , [ ] , "" ] `,
		`{"x": {"x": {"x": 1}, "x": {"y": 2}}, "z": [{"k": 1, "k": 2}, {"k": 3}], "x": {"x": 0}}`,
	} {
		want := asJSONB([]byte(in))
		for doubled := range 2 {
			m := []byte(in)
			if doubled == 1 {
				m = bytes.ReplaceAll(m, []byte(`"`), []byte(`""`))
			}
			s := jsonScanner{b: m, doubled: doubled, drop: dropped(m, doubled)}
			s.space()
			got := seenText(&s, nil)
			if doubled == 1 {
				got = undouble(got)
			}
			if !bytes.Equal(asJSONB(got), want) {
				t.Errorf("%s (doubled %d):\ngot  %s\nwant %s", in, doubled, got, want)
			}
		}
	}
}

// seenText appends the value at s.i as the scanner's member walk gives it.
func seenText(s *jsonScanner, out []byte) []byte {
	q := strings.Repeat(`"`, 1+s.doubled)
	switch s.peek() {
	case '{':
		s.open()
		out = append(out, '{')
		for more := s.member(true); more; more = s.member(false) {
			if out[len(out)-1] != '{' {
				out = append(out, ',')
			}
			out = append(append(append(append(out, q...), s.key...), q...), ':')
			out = seenText(s, out)
		}
		return append(out, '}')
	case '[':
		s.open()
		out = append(out, '[')
		for s.space(); s.peek() != ']'; s.space() {
			if s.peek() == ',' {
				out = append(out, ',')
				s.i++
				s.space()
			}
			out = seenText(s, out)
		}
		s.i++
		s.depth--
		return append(out, ']')
	}
	start := s.i
	s.skip()
	return append(out, s.b[start:s.i]...)
}

// TestFramedMetadataOnlyForItsText: a row's metadata as the framer read
// it is taken only for the very text of the metadata column; another text
// (another member, a decoded string) is read as it is.
func TestFramedMetadataOnlyForItsText(t *testing.T) {
	raw := []byte(`{"metadata":{"user_api_key_alias":"framed"},"other":{"user_api_key_alias":"column"}}`)
	s := jsonScanner{b: raw}
	var metas []framedMeta
	ms, ok := s.frameObject(nil, &metas)
	if !ok || len(metas) != 1 || len(ms) != 2 {
		t.Fatalf("framed %v, %d metadata, %d members", ok, len(metas), len(ms))
	}
	p := rowParser{framed: &metas[0]}
	for i, want := range []string{"framed", "column"} {
		v := rowFields{data: raw}
		v.setJSON(slMetadata, int(ms[i].val[0]), int(ms[i].val[1]), ms[i].kind)
		m, doubled := metadataText(&v)
		f, reason := p.metadata(m, doubled, &v)
		if reason != "" || string(f.keyAlias.text) != want {
			t.Errorf("member %d: alias %q (%q), want %q", i, f.keyAlias.text, reason, want)
		}
	}
}

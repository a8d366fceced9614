package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// cpaTokens is the "tokens" object of CLIProxyAPI usage records.
type cpaTokens struct {
	Input          int64 `json:"input_tokens"`
	Output         int64 `json:"output_tokens"`
	Reasoning      int64 `json:"reasoning_tokens"`
	Cached         int64 `json:"cached_tokens"`
	CacheRead      int64 `json:"cache_read_tokens"`
	CacheReadKnown bool  `json:"cache_read_tokens_present"`
	CacheCreation  int64 `json:"cache_creation_tokens"`
	Total          int64 `json:"total_tokens"`
}

// cpaBreakdown is the v7 "token_breakdown" (schema 2).
type cpaBreakdown struct {
	Quality string `json:"quality"`
	Total   int64  `json:"total_tokens"`
	Input   struct {
		Total     int64 `json:"total_tokens"`
		Uncached  int64 `json:"uncached_tokens"`
		CacheRead int64 `json:"cache_read_tokens"`
		CacheWrit int64 `json:"cache_write_tokens"`
	} `json:"input"`
	Output struct {
		Total        int64 `json:"total_tokens"`
		NonReasoning int64 `json:"non_reasoning_tokens"`
		Reasoning    int64 `json:"reasoning_tokens"`
	} `json:"output"`
	Unclassified int64 `json:"unclassified_tokens"`
}

// usable reports whether the breakdown is consistent, non-negative and
// fully classified, as CLIProxyAPI's own Valid check plus no
// unclassified tokens.
func (b *cpaBreakdown) usable() bool {
	in, out := b.Input, b.Output
	for _, n := range []int64{in.Uncached, in.CacheRead, in.CacheWrit, out.NonReasoning, out.Reasoning, b.Unclassified} {
		if n < 0 {
			return false
		}
	}
	return b.Quality != "unclassified" && b.Unclassified == 0 &&
		in.Total == in.Uncached+in.CacheRead+in.CacheWrit &&
		out.Total == out.NonReasoning+out.Reasoning &&
		b.Total == in.Total+out.Total+b.Unclassified
}

// cpaRecord is one v7 usage-queue record (and, minus the v7 fields, one
// v6 details[] entry).
type cpaRecord struct {
	Timestamp string          `json:"timestamp"`
	LatencyMs int64           `json:"latency_ms"`
	TTFTMs    int64           `json:"ttft_ms"`
	Source    string          `json:"source"`
	AuthIndex json.RawMessage `json:"auth_index"`
	Tokens    cpaTokens       `json:"tokens"`
	Failed    bool            `json:"failed"`
	Fail      *struct {
		StatusCode int    `json:"status_code"`
		Body       string `json:"body"`
	} `json:"fail"`
	Endpoint       string        `json:"endpoint"`
	TokenBreakdown *cpaBreakdown `json:"token_breakdown"`
	Provider       string        `json:"provider"`
	ExecutorType   string        `json:"executor_type"`
	Model          string        `json:"model"`
	Alias          string        `json:"alias"`
	APIKey         string        `json:"api_key"`
	RequestID      string        `json:"request_id"`
	// The tier the client asked for, and the one the upstream reported
	// (v7; the latter omitted when absent).
	ServiceTier         string `json:"service_tier"`
	ResponseServiceTier string `json:"response_service_tier"`
}

// tier sets the service tier of c: the one that served the call, from the
// upstream's report when there is one, else the tier asked for (said so
// by TierAsked). A tier tokenfare does not price ("scale") is standard.
func (r *cpaRecord) tier(c *Call) {
	if r.ServiceTier != "" {
		c.AskedTier, _ = ParseServiceTier(r.ServiceTier)
		c.Asked = true
	}
	switch {
	case r.ResponseServiceTier != "":
		c.ServiceTier, _ = ParseServiceTier(r.ResponseServiceTier)
		c.TierSource = TierServed
	case c.Asked:
		c.ServiceTier, c.TierSource = c.AskedTier, TierAsked
	}
}

// family is how a provider counts tokens (cliproxyapi.md §4).
type family uint8

const (
	familyOpenAI family = iota // input includes cached; output includes reasoning
	familyClaude               // input excludes cache reads and writes
	familyGemini               // input includes cached; reasoning separate from output
)

func providerFamily(provider string) family {
	switch strings.ToLower(provider) {
	case "claude", "anthropic":
		return familyClaude
	case "gemini", "gemini-cli", "aistudio", "antigravity", "vertex", "interactions":
		return familyGemini
	}
	return familyOpenAI
}

// modelFamily guesses the family from a model name, for v6 exports,
// which do not name the provider. CLIProxyAPI's own Claude and Gemini
// executors call bare model names; a "vendor/model" name
// ("anthropic/claude-sonnet-4.6", "google/gemini-3.1-pro-preview") is an
// openai-compatibility entry's, counted the OpenAI way whatever the model.
func modelFamily(model string) family {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "/"):
		return familyOpenAI
	case strings.Contains(m, "claude"):
		return familyClaude
	case strings.Contains(m, "gemini"):
		return familyGemini
	}
	return familyOpenAI
}

// split derives the non-overlapping buckets from a record's tokens.
func (t *cpaTokens) split(f family) (Tokens, string) {
	for _, x := range []struct {
		name string
		n    int64
	}{{"input_tokens", t.Input}, {"output_tokens", t.Output}, {"reasoning_tokens", t.Reasoning},
		{"cached_tokens", t.Cached}, {"cache_read_tokens", t.CacheRead}, {"cache_creation_tokens", t.CacheCreation}} {
		if x.n < 0 {
			return Tokens{}, fmt.Sprintf("tokens.%s %d is negative", x.name, x.n)
		}
	}
	read, write := t.Cached, t.CacheCreation
	if t.CacheReadKnown {
		read = t.CacheRead
	}
	switch f {
	case familyClaude:
		// Without the separate count, cached_tokens holds the cache
		// writes when there were no reads.
		if !t.CacheReadKnown && write > 0 && read == write {
			read = 0
		}
		if t.Reasoning > t.Output {
			return Tokens{}, fmt.Sprintf("tokens.reasoning_tokens %d exceeds output_tokens %d", t.Reasoning, t.Output)
		}
		return Tokens{Input: t.Input, CacheRead: read, CacheWrite: write, Output: t.Output, Reasoning: t.Reasoning}, ""
	case familyGemini:
		tk := Tokens{Input: t.Input - read - write, CacheRead: read, CacheWrite: write,
			Output: t.Output + t.Reasoning, Reasoning: t.Reasoning}
		if tk.Input < 0 {
			return Tokens{}, fmt.Sprintf("tokens.input_tokens %d is less than cached %d + cache-creation %d tokens", t.Input, read, write)
		}
		return tk, ""
	}
	tk := Tokens{Input: t.Input - read - write, CacheRead: read, CacheWrite: write, Output: t.Output, Reasoning: t.Reasoning}
	if tk.Input < 0 {
		return Tokens{}, fmt.Sprintf("tokens.input_tokens %d is less than cached %d + cache-creation %d tokens", t.Input, read, write)
	}
	if t.Reasoning > t.Output {
		return Tokens{}, fmt.Sprintf("tokens.reasoning_tokens %d exceeds output_tokens %d", t.Reasoning, t.Output)
	}
	return tk, ""
}

// authIndex returns auth_index as text: a string, or a JSON number as
// written.
func authIndex(m json.RawMessage) string {
	return string(jsonText(m))
}

// fill sets the fields shared by v6 details and v7 records.
func (r *cpaRecord) fill(p *rowParser, c *Call) string {
	if r.Timestamp == "" {
		return "timestamp is empty"
	}
	start, ok := parseTime([]byte(r.Timestamp), nil)
	if !ok {
		return badValue("timestamp", r.Timestamp, "an RFC 3339 timestamp")
	}
	if r.LatencyMs < 0 || r.TTFTMs < 0 {
		return fmt.Sprintf("latency_ms %d or ttft_ms %d is negative", r.LatencyMs, r.TTFTMs)
	}
	if maxMs := int64(math.MaxInt64 / time.Millisecond); r.LatencyMs > maxMs || r.TTFTMs > maxMs {
		return fmt.Sprintf("latency_ms %d or ttft_ms %d is out of range", r.LatencyMs, r.TTFTMs)
	}
	c.Gateway = CLIProxy
	c.Start = start
	if r.LatencyMs > 0 {
		c.End = start.Add(time.Duration(r.LatencyMs) * time.Millisecond)
	}
	if r.TTFTMs > 0 {
		c.FirstToken = start.Add(time.Duration(r.TTFTMs) * time.Millisecond)
	}
	if r.Failed {
		c.Status = StatusFailure
		c.Failure.Route = p.strs.get([]byte(r.Endpoint))
		if f := r.Fail; f != nil {
			if f.StatusCode >= 100 && f.StatusCode <= 599 {
				c.Failure.HTTPStatus = f.StatusCode
			}
			c.Failure.Text = failureText(f.Body)
		}
	}
	c.Deployment = p.strs.get([]byte(authIndex(r.AuthIndex)))
	if c.Deployment == "" && r.Source != "" {
		c.Deployment = HashKey(r.Source)
	}
	return ""
}

// v7Record reads one v7 usage-queue record.
func v7Record(p *rowParser, raw []byte, c *Call) (string, string) {
	var r cpaRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", "not a usage record: " + strings.TrimPrefix(err.Error(), "json: ")
	}
	if reason := buildChecked(r.fill(p, c), c); reason != "" {
		return r.RequestID, reason
	}
	if b := r.TokenBreakdown; b != nil && b.usable() {
		c.Tokens = Tokens{Input: b.Input.Uncached, CacheRead: b.Input.CacheRead, CacheWrite: b.Input.CacheWrit,
			Output: b.Output.Total, Reasoning: b.Output.Reasoning}
	} else {
		tk, reason := r.Tokens.split(providerFamily(r.Provider))
		if reason != "" {
			return r.RequestID, reason
		}
		c.Tokens = tk
	}
	if reason := c.check(); reason != "" { // the tokens, now that they are set
		return r.RequestID, reason
	}
	c.RequestID = r.RequestID
	c.Model = p.strs.get([]byte(r.Model))
	c.ModelGroup = p.strs.get([]byte(r.Alias))
	c.Provider = p.strs.get([]byte(r.Provider))
	r.tier(c)
	c.Host = CLIProxyHost(c.Provider, r.ExecutorType)
	if r.APIKey != "" {
		c.Key = HashKey(r.APIKey)
	}
	t := r.Tokens
	c.Identity = identity(fmt.Sprintf("v7|%s|%s|%s|%d|%d|%d|%d|%d|%d|%d|%t",
		r.RequestID, c.Start.Format(time.RFC3339Nano), authIndex(r.AuthIndex),
		t.Input, t.Output, t.Reasoning, t.Cached, t.CacheRead, t.CacheCreation, t.Total, r.Failed))
	c.IdentityHash = HashIdentity(c.Identity)
	return r.RequestID, ""
}

// identity hashes a record's identity text into a 32-hex-digit id.
func identity(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

// v6Walker streams a v6 usage export (or a GET /usage answer). Its
// locations name places within the input; the reader adds its name.
type v6Walker struct {
	dec *json.Decoder
	e   *emitter
}

// produceV6 walks {"version":1,"usage":{"apis":{KEY:{"models":{MODEL:
// {"details":[...]}}}}}} one detail at a time.
func produceV6(src io.Reader) func(e *emitter) error {
	return func(e *emitter) error {
		w := &v6Walker{dec: json.NewDecoder(src), e: e}
		w.dec.UseNumber()
		return w.object("", func(key string) error {
			switch key {
			case "version":
				var v json.Number
				if err := w.dec.Decode(&v); err != nil {
					return w.fail("version", err)
				}
				if v != "0" && v != "1" {
					return fmt.Errorf("usage export version %s is not supported (want 0 or 1)", v)
				}
				return nil
			case "usage":
				return w.object("usage", func(key string) error {
					if key != "apis" {
						return w.skip("usage")
					}
					return w.apis()
				})
			case "apis": // the statistics object alone, without its envelope
				return w.apis()
			}
			return w.skip("")
		})
	}
}

func (w *v6Walker) apis() error {
	i := 0
	return w.object("usage.apis", func(api string) error {
		i++
		// Locations name the key by position: the key itself is secret.
		where := fmt.Sprintf("usage.apis #%d", i)
		return w.object(where, func(key string) error {
			if key != "models" {
				return w.skip(where)
			}
			return w.object(where+" models", func(model string) error {
				mwhere := fmt.Sprintf("%s models[%q]", where, model)
				return w.object(mwhere, func(key string) error {
					if key != "details" {
						return w.skip(mwhere)
					}
					return w.details(mwhere+" details", api, model)
				})
			})
		})
	})
}

func (w *v6Walker) details(where, api, model string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return w.fail(where, err)
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		return w.fail(where, errors.New("not an array"))
	}
	for i := 0; w.dec.More(); i++ {
		var raw json.RawMessage
		if err := w.dec.Decode(&raw); err != nil {
			return w.fail(fmt.Sprintf("%s[%d]", where, i), err)
		}
		var c Call
		reason := v6Detail(&w.e.p, raw, api, model, &c)
		at := fmt.Sprintf("%s[%d]", where, i)
		if reason != "" {
			err = w.e.reject(at, 0, reason)
		} else {
			c.Source = w.e.where(at, 0)
			err = w.e.call(&c)
		}
		if err != nil {
			return err
		}
	}
	_, err = w.dec.Token()
	return w.fail(where, err)
}

// v6Detail reads one details[] entry of api key and model.
func v6Detail(p *rowParser, raw []byte, api, model string, c *Call) string {
	var r cpaRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return "not a usage detail: " + strings.TrimPrefix(err.Error(), "json: ")
	}
	if reason := buildChecked(r.fill(p, c), c); reason != "" {
		return reason
	}
	tk, reason := r.Tokens.split(modelFamily(model))
	if reason != "" {
		return reason
	}
	c.Tokens = tk
	if reason := c.check(); reason != "" { // the tokens, now that they are set
		return reason
	}
	c.Model = p.strs.get([]byte(model))
	c.Host = CLIProxyV6Host(model)
	if api != "" {
		c.Key = p.strs.get([]byte(HashKey(api)))
	}
	// CLIProxyAPI's own import dedupe key, hashed: raw keys never leave.
	t := r.Tokens
	total := t.Total
	if total == 0 {
		total = t.Input + t.Output + t.Reasoning
	}
	if total == 0 {
		total = t.Input + t.Output + t.Reasoning + t.Cached
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%s|%s|%s|%t|%d|%d|%d|%d|%d",
		api, model, c.Start.Format(time.RFC3339Nano), r.Source, authIndex(r.AuthIndex), r.Failed,
		t.Input, t.Output, t.Reasoning, t.Cached, total)))
	c.Identity = hex.EncodeToString(sum[:])
	c.IdentityHash = HashIdentity(c.Identity)
	c.RequestID = r.RequestID
	if c.RequestID == "" {
		c.RequestID = "v6-" + c.Identity[:16]
	}
	return ""
}

// object reads a JSON object (or null), calling member for each key with
// the decoder positioned at its value.
func (w *v6Walker) object(where string, member func(key string) error) error {
	tok, err := w.dec.Token()
	if err != nil {
		return w.fail(where, err)
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('{') {
		return w.fail(where, errors.New("not an object"))
	}
	for w.dec.More() {
		key, err := w.dec.Token()
		if err != nil {
			return w.fail(where, err)
		}
		if err := member(key.(string)); err != nil {
			return err
		}
	}
	_, err = w.dec.Token()
	return w.fail(where, err)
}

func (w *v6Walker) skip(where string) error {
	var skip json.RawMessage
	return w.fail(where, w.dec.Decode(&skip))
}

func (w *v6Walker) fail(where string, err error) error {
	if err == nil || err == errStopped {
		return err
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if where == "" {
		return err
	}
	return fmt.Errorf("%s: %w", where, err)
}

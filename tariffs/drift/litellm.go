package drift

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/tokenfare/tokenfare/internal/numtext"
	"github.com/tokenfare/tokenfare/tariffs"
)

// litellmFields maps LiteLLM's per-token price keys to usage types. The
// 1-hour write key reads "above_1hr": the cache lifetime, not a prompt size.
var litellmFields = map[string]tariffs.Usage{
	"input_cost_per_token":                      tariffs.Input,
	"cache_read_input_token_cost":               tariffs.CacheRead,
	"cache_creation_input_token_cost":           tariffs.CacheWrite,
	"cache_creation_input_token_cost_above_1hr": tariffs.CacheWrite1h,
	"output_cost_per_token":                     tariffs.Output,
	"output_cost_per_reasoning_token":           tariffs.Reasoning,
}

// litellmTiers maps the suffixes of LiteLLM's service-tier price keys
// (input_cost_per_token_batches, output_cost_per_token_priority,
// input_cost_per_token_above_200k_tokens_priority) to service tiers.
var litellmTiers = []struct {
	suffix string
	tier   tariffs.ServiceTier
}{{"_batches", tariffs.Batch}, {"_flex", tariffs.Flex}, {"_priority", tariffs.Priority}}

// searchContextSize is the search_context_cost_per_query size compared with
// the catalog's one web search fee: the one LiteLLM charges Anthropic's
// searches at and OpenAI's by default.
const searchContextSize = "search_context_size_medium"

// litellmHost returns the host a litellm_provider value names: LiteLLM's
// Vertex AI routes ("vertex_ai-anthropic_models", ...) are all Vertex AI;
// the rest as tariffs.NormalizeHost reads a gateway's provider.
func litellmHost(p string) string {
	if strings.HasPrefix(p, "vertex_ai-") {
		return "vertex_ai"
	}
	return tariffs.NormalizeHost(p)
}

// aboveKey matches a price key for prompts above N tokens, written N or
// Nk (thousands): input_cost_per_token_above_200k_tokens.
var aboveKey = regexp.MustCompile(`^(.+)_above_(\d+)(k?)_tokens$`)

// readLiteLLM reads LiteLLM's model_prices_and_context_window.json: an
// object of model name → entry, prices in USD per token.
func readLiteLLM(ctx context.Context, name string, data []byte) (*Database, error) {
	db := &Database{Format: LiteLLM, File: name}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	fail := func(err error) (*Database, error) {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%d: %v", name, lineAt(data, se.Offset), err)
		}
		return nil, fmt.Errorf("%s:%d: %v", name, lineAt(data, dec.InputOffset()), err)
	}
	if tok, err := dec.Token(); err != nil {
		return fail(err)
	} else if tok != json.Delim('{') {
		return fail(errors.New("a LiteLLM price table is a JSON object of model names"))
	}
	for dec.More() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tok, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key, _ := tok.(string)
		line := lineAt(data, dec.InputOffset())
		var msg json.RawMessage
		if err := dec.Decode(&msg); err != nil {
			return fail(fmt.Errorf("entry %q: %w", key, err))
		}
		if key == "sample_spec" {
			continue
		}
		if t, ok := tableDate(key, msg); ok {
			db.Date = t
			continue
		}
		db.Read++
		e, err := litellmEntry(name, line, key, msg)
		if err != nil {
			db.Skipped = append(db.Skipped, Skip{Name: key, Line: line, Reason: err.Error()})
			continue
		}
		db.Entries = append(db.Entries, e)
	}
	return db, nil
}

// tableDate reads the top-level "last_updated" key that copies of the
// table carry ("2026-07-24T18:23:43.215560+00:00"): the instant the copy
// was taken. Any other key, or a value that is no instant, is an entry.
func tableDate(key string, msg json.RawMessage) (time.Time, bool) {
	var s string
	if key != "last_updated" || json.Unmarshal(msg, &s) != nil {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), true
	}
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

// litellmObject decodes an entry's value, numbers kept as their text.
func litellmObject(msg json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return nil, errors.New("not an object of model facts")
	}
	return raw, nil
}

// litellmEntry converts one entry.
func litellmEntry(file string, line int, key string, msg json.RawMessage) (*Entry, error) {
	raw, err := litellmObject(msg)
	if err != nil {
		return nil, err
	}
	e := &Entry{Format: LiteLLM, File: file, Line: line, Name: key}
	if p, ok := raw["litellm_provider"].(string); ok {
		e.Provider, e.Host = p, litellmHost(p)
	}
	e.Mode, _ = raw["mode"].(string)
	var r rates
	for k, v := range raw {
		if err := r.setLiteLLM(k, v); err != nil {
			return nil, err
		}
	}
	if err := r.setTiered(raw["tiered_pricing"]); err != nil {
		return nil, err
	}
	if err := r.setSearch(raw["search_context_cost_per_query"]); err != nil {
		return nil, err
	}
	if err := e.setRegions(raw); err != nil {
		return nil, err
	}
	e.prices = []conditional{{rates: r}}
	if b, ok := raw["off_peak_pricing"]; ok && b != nil {
		op, err := parseOffPeak(b)
		if err != nil {
			return nil, fmt.Errorf("off_peak_pricing: %w", err)
		}
		e.offPeak = op
	}
	return e, nil
}

// setLiteLLM records key k's price if k is a per-token price key, of the
// standard tier or of the service tier its suffix names.
func (r *rates) setLiteLLM(k string, v any) error {
	field, service := k, tariffs.Standard
	for _, t := range litellmTiers {
		if base, ok := strings.CutSuffix(k, t.suffix); ok {
			field, service = base, t.tier
			break
		}
	}
	var above int64
	if m := aboveKey.FindStringSubmatch(field); m != nil {
		n, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			return fmt.Errorf("%s: threshold out of range", k)
		}
		if m[3] == "k" {
			n *= 1000
		}
		field, above = m[1], n
	}
	u, ok := litellmFields[field]
	if !ok || v == nil {
		return nil
	}
	p, err := perMillion(v)
	if err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	target := &r.in(service).base
	if above > 0 {
		target = r.in(service).tier(above)
	}
	target.Set(u, p)
	return nil
}

// setTiered reads LiteLLM's tiered_pricing list: ranges of prompt tokens,
// each with per-token prices that apply to every token of a call whose
// prompt falls in the range.
func (r *rates) setTiered(v any) error {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return fmt.Errorf("tiered_pricing[%d] is not an object", i)
		}
		rng, _ := m["range"].([]any)
		if len(rng) != 2 {
			return fmt.Errorf("tiered_pricing[%d]: range is not [from, to]", i)
		}
		lo, err := perToken(rng[0])
		if err != nil || !lo.IsInteger() || lo.IsNegative() {
			return fmt.Errorf("tiered_pricing[%d]: range start is not a token count", i)
		}
		target := &r.base
		if lo.IsPositive() {
			target = r.tier(lo.IntPart())
		}
		for k, u := range litellmFields {
			if v, ok := m[k]; ok && v != nil {
				p, err := perMillion(v)
				if err != nil {
					return fmt.Errorf("tiered_pricing[%d]: %s: %w", i, k, err)
				}
				if target != &r.base || !r.base.Listed(u) {
					target.Set(u, p)
				}
			}
		}
	}
	return nil
}

// regionalKey is the prefix of LiteLLM's data-residency multipliers
// (OpenAI's regional processing endpoints), followed by the region.
const regionalKey = "regional_processing_uplift_multiplier_"

// setRegions reads the region multipliers: regional_processing_uplift_
// multiplier_<region>, and the "us" key of provider_specific_entry
// (Anthropic's inference_geo). Other keys of that block (fast) are not
// regions.
func (e *Entry) setRegions(raw map[string]any) error {
	set := func(region string, v any) error {
		d, err := perToken(v)
		if err != nil || !d.IsPositive() {
			return fmt.Errorf("region %s multiplier %v is not a positive number", region, v)
		}
		if e.regions == nil {
			e.regions = map[string]decimal.Decimal{}
		}
		e.regions[region] = d
		return nil
	}
	for k, v := range raw {
		if region, ok := strings.CutPrefix(k, regionalKey); ok && v != nil {
			if err := set(strings.ToLower(region), v); err != nil {
				return err
			}
		}
	}
	if ps, ok := raw["provider_specific_entry"].(map[string]any); ok && ps["us"] != nil {
		return set("us", ps["us"])
	}
	return nil
}

// setSearch reads search_context_cost_per_query, USD per search by search
// context size, as the web search fee per use.
func (r *rates) setSearch(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	fee, ok := m[searchContextSize]
	if !ok || fee == nil {
		return nil
	}
	d, err := perToken(fee)
	if err != nil || d.IsNegative() {
		return fmt.Errorf("search_context_cost_per_query: %s: %v is not a fee", searchContextSize, fee)
	}
	r.base.Set(tariffs.WebSearch, d)
	return nil
}

// perToken reads a JSON number (or a number written as a string) exactly.
func perToken(v any) (decimal.Decimal, error) {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = n.String()
	case string:
		s = strings.TrimSpace(n)
	default:
		return decimal.Decimal{}, fmt.Errorf("%v is not a number", v)
	}
	d, err := numtext.Decimal(s)
	if errors.Is(err, numtext.ErrTooLong) {
		return decimal.Decimal{}, fmt.Errorf("a number of %d characters: %w", len(s), err)
	}
	if errors.Is(err, numtext.ErrOutOfRange) {
		return decimal.Decimal{}, fmt.Errorf("%q is out of range: %w", s, err)
	}
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%q is not a number", s)
	}
	return d, nil
}

// perMillion reads a per-token price and returns it per 1M tokens, rounded
// to 12 decimal places (see the package documentation).
func perMillion(v any) (decimal.Decimal, error) {
	d, err := perToken(v)
	if err != nil {
		return d, err
	}
	if d.IsNegative() {
		return d, fmt.Errorf("%s is negative", d)
	}
	return d.Shift(6).Round(12), nil
}

// offPeak is LiteLLM's off_peak_pricing block: rules that say when the
// block's rates replace the standard ones.
type offPeak struct {
	zone  *time.Location // decides the calendar day of weekdays and dates
	rules []offPeakRule
	rates tariffs.Rates // only the rates the block sets
}

// offPeakRule is one rule: UTC hours on some weekdays, or on listed dates.
type offPeakRule struct {
	hours    []dayWindow // malformed windows never match, as in LiteLLM
	weekdays map[time.Weekday]bool
	dates    map[string]bool // YYYY-MM-DD; a rule with dates applies on them only
}

// holds reports whether the rule puts t in off-peak, given t's local date
// and weekday.
func (r *offPeakRule) holds(t time.Time, wd time.Weekday) bool {
	if len(r.weekdays) > 0 && !r.weekdays[wd] {
		return false
	}
	for _, w := range r.hours {
		if w.holds(t) {
			return true
		}
	}
	return false
}

// at reports whether instant t is off-peak. On a date that some rule lists,
// only the rules listing it decide.
func (op *offPeak) at(t time.Time) bool {
	t = t.UTC()
	lt := t.In(op.zone)
	date := lt.Format(time.DateOnly)
	dated := false
	for i := range op.rules {
		if op.rules[i].dates[date] {
			dated = true
			break
		}
	}
	for i := range op.rules {
		r := &op.rules[i]
		if (len(r.dates) > 0) != dated || (dated && !r.dates[date]) {
			continue
		}
		if r.holds(t, lt.Weekday()) {
			return true
		}
	}
	return false
}

// parseOffPeak reads the block as LiteLLM does: an unknown zone means UTC;
// malformed windows, weekdays and dates never match.
func parseOffPeak(v any) (*offPeak, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not an object")
	}
	op := &offPeak{zone: time.UTC}
	if z, ok := m["weekday_timezone"].(string); ok {
		if loc, err := time.LoadLocation(z); err == nil && z != "" && z != "Local" {
			op.zone = loc
		}
	}
	if _, ok := m["hours_utc"]; ok {
		op.rules = append(op.rules, parseRule(m))
	}
	if ws, ok := m["windows"].([]any); ok {
		for _, w := range ws {
			if wm, ok := w.(map[string]any); ok {
				op.rules = append(op.rules, parseRule(wm))
			}
		}
	}
	for k, u := range litellmFields {
		if v, ok := m[k]; ok && v != nil {
			p, err := perMillion(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			op.rates.Set(u, p)
		}
	}
	return op, nil
}

func parseRule(m map[string]any) offPeakRule {
	var r offPeakRule
	for _, s := range stringList(m["hours_utc"]) {
		if w, ok := parseDayWindow(s); ok {
			r.hours = append(r.hours, w)
		}
	}
	if wds := list(m["weekdays"]); len(wds) > 0 {
		r.weekdays = map[time.Weekday]bool{}
		for _, v := range wds {
			if wd, ok := isoWeekday(v); ok {
				r.weekdays[wd] = true
			}
		}
	}
	if ds := stringList(m["override_dates"]); len(ds) > 0 {
		r.dates = map[string]bool{}
		for _, d := range ds {
			if _, err := time.Parse(time.DateOnly, d); err == nil {
				r.dates[d] = true
			}
		}
	}
	return r
}

// isoWeekday reads an ISO weekday number (1 = Monday) or an English name or
// abbreviation.
func isoWeekday(v any) (time.Weekday, bool) {
	if n, ok := v.(json.Number); ok {
		i, err := n.Int64()
		if err != nil || i < 1 || i > 7 {
			return 0, false
		}
		return time.Weekday(i % 7), true
	}
	s, _ := v.(string)
	wd, err := tariffs.ParseWeekday(strings.TrimSpace(s))
	return wd, err == nil
}

func list(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil:
		return nil
	}
	return []any{v}
}

func stringList(v any) []string {
	var out []string
	for _, x := range list(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

package drift

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Format names a price database's file format.
type Format string

// The formats Read understands.
const (
	LiteLLM     Format = "litellm"
	GenAIPrices Format = "genai-prices"
	ModelsDev   Format = "models.dev"
)

// byHost reports whether the format names the host that serves each
// entry (LiteLLM's litellm_provider, models.dev's provider), so that an
// entry's name is resolved among the catalog's lists of that host;
// genai-prices files name a host too (their provider id), but their
// entries are match clauses, tried on the names of that host's models.
func (f Format) byHost() bool { return f == LiteLLM || f == ModelsDev }

// Database is one file of another price database. Read is how many
// entries (LiteLLM keys, genai-prices models, models.dev models) the file
// holds; each is in Entries, Skipped or Removed. Date is the instant the
// table says it was written (LiteLLM's top-level last_updated, which
// copies of the table carry), zero when it states none.
type Database struct {
	Format  Format
	File    string
	Date    time.Time
	Read    int
	Entries []*Entry
	Skipped []Skip
	// Removed are the entries the table itself marks as withdrawn
	// (genai-prices' removed: true): neither compared nor imported.
	Removed []Skip
}

// Skip is an entry of a price database that could not be read, with why:
// it is left out of the comparison, and the rest of the file is compared.
type Skip struct {
	Name   string
	Line   int
	Reason string
}

// Entry is one model's prices as another database lists them.
type Entry struct {
	Format Format
	File   string
	Line   int
	Name   string // the key (LiteLLM) or model id (genai-prices, models.dev)
	// Provider is the table's own name of who serves it: LiteLLM's
	// litellm_provider, the genai-prices file's provider id, the
	// models.dev provider id.
	Provider string
	// Host is the tokenfare host that serves it (see tariffs/host.go):
	// LiteLLM's litellm_provider and models.dev's provider id mapped to a
	// host, genai-prices' provider id likewise; a name tokenfare does not
	// know stays as the table writes it, lowercase.
	Host string
	Mode string // LiteLLM's mode (chat, embedding, ...); "" when not given

	match   func(name string) bool // genai-prices' match clause; nil: the name itself
	prices  []conditional          // genai-prices: tried last to first; LiteLLM: one
	offPeak *offPeak               // LiteLLM's off_peak_pricing block, nil when absent
	// regions are the multipliers of token prices the database lists by
	// region (LiteLLM's regional_processing_uplift_multiplier_<region> and
	// provider_specific_entry.us), by region name as tariff files write it.
	regions map[string]decimal.Decimal
}

// priced reports whether the entry states any price per token (or per
// call) that Compare could put beside the catalog's.
func (e *Entry) priced() bool {
	if e.offPeak != nil {
		return true
	}
	for i := range e.prices {
		r := &e.prices[i].rates
		if len(r.tiers) > 0 {
			return true
		}
		for u := range tariffs.NumUsage {
			if r.base.Listed(tariffs.Usage(u)) {
				return true
			}
		}
	}
	return false
}

// Where returns file:line of the entry.
func (e *Entry) Where() string { return fmt.Sprintf("%s:%d", e.File, e.Line) }

// conditional is a rate set with the condition under which it applies.
type conditional struct {
	since time.Time  // applies from this instant on; zero: always
	daily *dayWindow // applies inside this UTC time of day; nil: all day
	rates rates
}

// begun reports whether c applies from t on, its time of day aside.
func (c *conditional) begun(t time.Time) bool { return c.since.IsZero() || !t.Before(c.since) }

// rates are prices per 1M tokens (per call for Request, per use for a
// tool) with prompt-size tiers: a tier's listed prices replace the base
// ones for a call whose prompt exceeds its threshold. service holds the
// rates the database lists for a service tier other than the standard one
// (LiteLLM's _batches, _flex and _priority keys), by tier; nil for none.
type rates struct {
	base    tariffs.Rates
	tiers   []tier // ascending by above
	service [tariffs.NumServiceTiers]*rates
}

// in returns the rates of service tier s, adding them if needed; the
// standard tier is r itself.
func (r *rates) in(s tariffs.ServiceTier) *rates {
	if s == tariffs.Standard {
		return r
	}
	if r.service[s] == nil {
		r.service[s] = &rates{}
	}
	return r.service[s]
}

type tier struct {
	above int64
	rates tariffs.Rates
}

// price returns the listed price of u for a call with prompt tokens, and
// whether the database lists one.
func (r *rates) price(u tariffs.Usage, prompt int64) (decimal.Decimal, bool) {
	for i := len(r.tiers) - 1; i >= 0; i-- {
		if t := &r.tiers[i]; prompt > t.above && t.rates.Listed(u) {
			return t.rates.Price(u), true
		}
	}
	return r.base.Price(u), r.base.Listed(u)
}

// tier returns the tier of threshold above, adding it in order if needed.
func (r *rates) tier(above int64) *tariffs.Rates {
	i := 0
	for i < len(r.tiers) && r.tiers[i].above < above {
		i++
	}
	if i == len(r.tiers) || r.tiers[i].above != above {
		r.tiers = append(r.tiers, tier{})
		copy(r.tiers[i+1:], r.tiers[i:])
		r.tiers[i] = tier{above: above}
	}
	return &r.tiers[i].rates
}

// thresholds returns the prompt-size thresholds of the rates.
func (r *rates) thresholds() []int64 {
	var out []int64
	for _, t := range r.tiers {
		out = append(out, t.above)
	}
	return out
}

// dayWindow is a UTC time of day [start, end) in minutes; end < start
// crosses midnight, end == start is the whole day.
type dayWindow struct{ start, end int }

func (w dayWindow) holds(t time.Time) bool {
	m := t.Hour()*60 + t.Minute()
	switch {
	case w.start < w.end:
		return m >= w.start && m < w.end
	case w.start > w.end:
		return m >= w.start || m < w.end
	}
	return true
}

// parseDayWindow reads "HH:MM-HH:MM" (24:00 allowed as an end).
func parseDayWindow(s string) (dayWindow, bool) {
	from, to, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok {
		return dayWindow{}, false
	}
	a, okA := clock(from)
	b, okB := clock(to)
	if !okA || !okB || a == 24*60 {
		return dayWindow{}, false
	}
	return dayWindow{a, b % (24 * 60)}, true
}

// clock reads HH:MM or HH:MM:SS (seconds must be zero), with an optional
// trailing Z, as minutes since midnight.
func clock(s string) (int, bool) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "Z")
	if len(s) == len("HH:MM:SS") && strings.HasSuffix(s, ":00") {
		s = s[:5]
	}
	t, err := time.Parse("15:04", s)
	if err != nil {
		if s == "24:00" {
			return 24 * 60, true
		}
		return 0, false
	}
	return t.Hour()*60 + t.Minute(), true
}

// Read reads one price database file, LiteLLM's JSON table, models.dev's
// api.json or a genai-prices provider YAML file, telling them apart by
// content; any may be gzip'd. name is used in errors and findings.
func Read(ctx context.Context, name string, r io.Reader) (*Database, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err == nil {
			data, err = io.ReadAll(zr)
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: gzip: %w", name, err)
		}
	}
	first := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case len(first) > 0 && first[0] == '{' && isModelsDev(data):
		return readModelsDev(ctx, name, data)
	case len(first) > 0 && first[0] == '{':
		return readLiteLLM(ctx, name, data)
	}
	return readGenAIPrices(ctx, name, data)
}

// lineAt returns the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

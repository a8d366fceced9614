package litellm

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/tariffs"
)

// UpdateOptions say what prices to write into a config.
type UpdateOptions struct {
	Catalog *tariffs.Catalog
	// Prices are the prices per 1M tokens to write for each tariff model;
	// only the usage types listed are written.
	Prices map[*tariffs.Model]*tariffs.Rates
	// Unpriced says why a tariff model has no entry in Prices (the model
	// retired, say); "no priced calls in the window" when not listed.
	Unpriced map[*tariffs.Model]string
	// OffPeakPricing writes, for a model priced by time of day at At, the
	// dear period's rates as standard prices and an off_peak_pricing block
	// from the tariff, instead of Prices.
	OffPeakPricing bool
	At             time.Time
}

// Change is one value an update writes.
type Change struct {
	ModelName string
	Line      int    // line of the value in the original file, or of the key it follows
	Field     string // e.g. "model_info.input_cost_per_token"
	Old, New  string // as written; Old is "" for a key added
	// OldPrice and NewPrice are per 1M tokens; Block is set instead for
	// an off_peak_pricing block (Old and New then say what differs).
	OldPrice, NewPrice decimal.Decimal
	Block              bool
	// OldText: LiteLLM (PyYAML, YAML 1.1) reads the old value as text,
	// not a number (3e-6 has no dot), whatever its price.
	OldText bool
}

// Skip is an entry an update leaves alone, and why.
type Skip struct {
	ModelName string
	Line      int
	Reason    string
}

// Update is the result of writing prices into a config: the new bytes,
// every value changed and every entry left alone.
type Update struct {
	Data    []byte
	Changes []Change
	Skipped []Skip

	recorded map[changeKey]bool // the changes listed
}

// EntryError is an entry an update refuses to write, with why.
type EntryError struct {
	File      string
	Line      int
	ModelName string
	Msg       string
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.ModelName, e.Msg)
}

// Update writes prices into the config's text: the values of price keys
// are replaced where they stand, missing keys are added to the mapping
// that keeps the entry's prices (model_info when it has any price or an
// off_peak_pricing block, else litellm_params), and every other byte is
// kept. Every entry of one tariff model gets the same prices. An entry
// with an off_peak_pricing block is refused unless OffPeakPricing is set:
// LiteLLM replaces the flat price inside the block's windows. All refused
// entries are returned together (as *EntryError joined); nothing is
// written then.
func (c *Config) Update(opts UpdateOptions) (*Update, error) {
	es := &edits{t: c.text}
	u := &Update{}
	var errs []error
	refuse := func(e *Entry, format string, args ...any) {
		errs = append(errs, &EntryError{File: c.File, Line: e.Line, ModelName: e.ModelName, Msg: fmt.Sprintf(format, args...)})
	}
	for _, e := range c.Entries {
		m, host, ok := e.Resolve(opts.Catalog)
		if !ok && host != "" && !opts.Catalog.PricesHost(host) {
			u.Skipped = append(u.Skipped, Skip{e.ModelName, e.Line, fmt.Sprintf("no tariff prices host %s: left unchanged", host)})
			continue
		}
		if !ok {
			u.Skipped = append(u.Skipped, Skip{e.ModelName, e.Line, fmt.Sprintf("no tariff model is known by %s", strings.Join(quoteAll(e.Names()), ", "))})
			continue
		}
		blockKey, _ := lookup(e.info, "off_peak_pricing")
		var want *tariffs.Rates
		var block *OffPeak
		if _, _, _, tou := TimeOfUse(m, opts.At); tou && opts.OffPeakPricing {
			o, dear, err := OffPeakFromTariff(m, opts.At)
			if err != nil {
				refuse(e, "%v", err)
				continue
			}
			block, want = o, withFallbacks(dear)
		} else {
			if blockKey != nil {
				if opts.OffPeakPricing {
					refuse(e, "has an off_peak_pricing block (line %d) but %s is not priced by time of day at %s: remove the block", blockKey.Line, m.ID, opts.At.UTC().Format(time.RFC3339))
				} else {
					refuse(e, "has an off_peak_pricing block (line %d): LiteLLM applies the block's rates inside its windows, so a blended flat price would be wrong there; remove the block, or write it from the tariff with --off-peak-pricing", blockKey.Line)
				}
				continue
			}
			if want = opts.Prices[m]; want == nil {
				why := opts.Unpriced[m]
				if why == "" {
					why = "no priced calls in the window"
				}
				u.Skipped = append(u.Skipped, Skip{e.ModelName, e.Line, "no price for " + m.ID + " (" + why + ")"})
				continue
			}
		}
		if err := c.updateEntry(es, e, want, block, u); err != nil {
			refuse(e, "%v", err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	u.Data = es.apply()
	if _, err := Parse(c.File, u.Data); err != nil {
		return nil, fmt.Errorf("the updated config would not parse (nothing written): %w", err)
	}
	return u, nil
}

// withFallbacks lists every per-token usage at the price that applies
// (cache at the input price when not listed), reasoning only when the
// tariff prices it apart, the 1-hour write and the web search fee only
// when it prices them.
func withFallbacks(r *tariffs.Rates) *tariffs.Rates {
	var out tariffs.Rates
	for _, f := range Fields {
		if f.Usage != tariffs.Reasoning || r.Listed(tariffs.Reasoning) {
			out.Set(f.Usage, r.Price(f.Usage))
		}
	}
	for _, u := range []tariffs.Usage{tariffs.CacheWrite1h, tariffs.WebSearch} {
		if r.Priced(u) {
			out.Set(u, r.Price(u))
		}
	}
	return &out
}

// oneHourField is LiteLLM's price of a 1-hour cache write, per token. The
// off_peak_pricing block has no such key: LiteLLM keeps it at all hours.
var oneHourField = Field{"cache_creation_input_token_cost_above_1hr", tariffs.CacheWrite1h}

// writeFields are the per-token keys Update writes: Fields and the 1-hour
// write.
var writeFields = append(append([]Field{}, Fields...), oneHourField)

// searchKey is LiteLLM's fee per web search, by search context size: one
// tariff fee is written for the three sizes.
const searchKey = "search_context_cost_per_query"

var searchSizes = []string{"search_context_size_low", "search_context_size_medium", "search_context_size_high"}

// searchLines are the lines of a search_context_cost_per_query block of
// fee p per search.
func searchLines(p decimal.Decimal) []string {
	out := make([]string, len(searchSizes))
	for i, s := range searchSizes {
		out[i] = s + ": " + formatPerCall(p)
	}
	return out
}

// formatPerCall writes a fee per call as a number PyYAML reads as a float
// (with a dot).
func formatPerCall(p decimal.Decimal) string {
	s := p.String()
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// updateSearch gives mapping mp (the entry's home for prices) the web
// search fee of want, when the tariff has one, unless it carries it already.
func (c *Config) updateSearch(es *edits, e *Entry, mp *yaml.Node, name string, want *tariffs.Rates, add *[]pair, u *Update) error {
	if !want.Listed(tariffs.WebSearch) {
		return nil
	}
	p := want.Price(tariffs.WebSearch)
	ch := Change{ModelName: e.ModelName, Field: name + "." + searchKey, New: formatPerCall(p), NewPrice: p, Line: mp.Line}
	k, v, own := lookupOwn(mp, searchKey)
	if k == nil || !own {
		c.record(u, ch)
		*add = append(*add, pair{key: searchKey, block: searchLines(p)})
		return nil
	}
	same := v.Kind == yaml.MappingNode
	for _, size := range searchSizes {
		_, sv := lookup(v, size)
		if sv == nil {
			same = false
			continue
		}
		text := !ReadsAsNumber(sv)
		if d, err := tariffs.ScalarDecimal(sv); err != nil || !d.Equal(p) || text {
			same = false
			if err == nil && ch.Old == "" {
				ch.Old, ch.OldPrice = sv.Value, d
			}
			ch.OldText = ch.OldText || text
		}
	}
	if same {
		return nil
	}
	ch.Line = k.Line
	c.record(u, ch)
	return es.replaceBlock(k, pair{key: searchKey, block: searchLines(p)})
}

// updateEntry records the edits that give entry e the prices want (and
// the block, when not nil). With a block, an entry without model_info gets
// one holding the prices and the block, and the flat prices its
// litellm_params carries are rewritten too, so that one write leaves a
// config its own check passes.
func (c *Config) updateEntry(es *edits, e *Entry, want *tariffs.Rates, block *OffPeak, u *Update) error {
	if e.params == nil {
		return fmt.Errorf("has no litellm_params")
	}
	home := e.params
	if k, _ := lookup(e.info, "off_peak_pricing"); e.info != nil && (priced(e.info) || k != nil || block != nil) {
		home = e.info
	}
	if block != nil && e.info == nil {
		if err := c.addInfo(es, e, want, block, u); err != nil {
			return err
		}
		home = nil // the prices' home is the model_info just added
	}
	maps := []*yaml.Node{e.params}
	names := []string{"litellm_params"}
	if e.info != nil && e.info != e.params {
		maps, names = append(maps, e.info), append(names, "model_info")
	}
	for i, mp := range maps {
		if block != nil && mp != e.info && !priced(mp) {
			continue
		}
		if err := c.updateMapping(es, e, mapping{mp, names[i], mp == home}, want, block, u); err != nil {
			return err
		}
	}
	return nil
}

// addInfo adds a model_info mapping to entry e, holding the prices want
// and the off_peak_pricing block.
func (c *Config) addInfo(es *edits, e *Entry, want *tariffs.Rates, block *OffPeak, u *Update) error {
	lines := priceLines(want)
	lines = append(lines, "off_peak_pricing:")
	for _, l := range block.Lines() {
		lines = append(lines, "  "+l)
	}
	c.record(u, Change{ModelName: e.ModelName, Line: e.Line, Field: "model_info", New: "(added with prices and off_peak_pricing)", Block: true})
	return es.insertPairs(e.node, nil, []pair{{key: "model_info", block: lines}})
}

// mapping is one of an entry's mappings that may hold prices: its node,
// its name and whether it is the prices' home (where missing keys go).
type mapping struct {
	node *yaml.Node
	name string
	home bool
}

// updateMapping records the edits that give mapping m of entry e the
// prices want: values replaced where they stand, missing keys added to the
// home mapping (and to a mapping that inherits them), the block and the
// search fee.
func (c *Config) updateMapping(es *edits, e *Entry, m mapping, want *tariffs.Rates, block *OffPeak, u *Update) error {
	var add []pair
	for _, f := range writeFields {
		if !want.Listed(f.Usage) {
			continue
		}
		p, err := c.updatePrice(es, e, m, f, want.Price(f.Usage), u)
		if err != nil {
			return err
		}
		if p != nil {
			add = append(add, *p)
		}
	}
	if block != nil && m.node == e.info {
		if err := c.updateBlock(es, e, block, &add, u); err != nil {
			return err
		}
	}
	if m.home {
		if err := c.updateSearch(es, e, m.node, m.name, want, &add, u); err != nil {
			return err
		}
	}
	if len(add) == 0 {
		return nil
	}
	keys := make([]string, len(writeFields))
	for i, f := range writeFields {
		keys[i] = f.Key
	}
	return es.insertPairs(m.node, keys, add)
}

// updatePrice records the edit that gives field f of mapping m the price
// p: the value replaced where it stands, or the pair to add (returned)
// when m inherits the key or is the home of prices; nothing when the value
// already reads as p.
func (c *Config) updatePrice(es *edits, e *Entry, m mapping, f Field, p decimal.Decimal, u *Update) (*pair, error) {
	text := FormatPerToken(p)
	ch := Change{ModelName: e.ModelName, Field: m.name + "." + f.Key, New: text, NewPrice: p}
	k, v, own := lookupOwn(m.node, f.Key)
	if k != nil && v.Kind == yaml.ScalarNode && strings.HasPrefix(strings.TrimSpace(v.Value), "os.environ/") {
		// The price is set where the reference points; writing a
		// number here would silently cut that link.
		return nil, fmt.Errorf("line %d: %s.%s is %s, a price read from the environment: set it there, or replace the reference with a number to let tokenfare write it", v.Line, m.name, f.Key, v.Value)
	}
	if k != nil {
		ch.Old, ch.Line, ch.OldText = v.Value, v.Line, !ReadsAsNumber(v)
		cur, err := PerMillion(v)
		ch.OldPrice = cur
		if err == nil && cur.Equal(p) && !ch.OldText {
			return nil, nil
		}
	}
	switch {
	case own:
		c.record(u, ch)
		return nil, es.replaceScalar(rawValue(m.node, f.Key), text)
	case k != nil || m.home:
		if k == nil {
			ch.Line = m.node.Line
		}
		c.record(u, ch)
		return &pair{key: f.Key, scalar: text}, nil
	}
	return nil, nil
}

// updateBlock rewrites or adds the entry's off_peak_pricing block unless
// the one there already means the same.
func (c *Config) updateBlock(es *edits, e *Entry, want *OffPeak, add *[]pair, u *Update) error {
	k, v, own := lookupOwn(e.info, "off_peak_pricing")
	ch := Change{ModelName: e.ModelName, Line: e.info.Line, Field: "model_info.off_peak_pricing", Block: true}
	p := pair{key: "off_peak_pricing", block: want.Lines()}
	if k == nil || !own {
		ch.New = "(added from the tariff)"
		c.record(u, ch)
		*add = append(*add, p)
		return nil
	}
	got, problems := ReadOffPeak(v)
	diff := got.Diff(want)
	if diff == "" {
		if f, g, w := got.RatesDiff(&want.Rates, nil); f != "" {
			diff = fmt.Sprintf("%s %s, want %s", f, g, w)
		}
	}
	if diff == "" && len(problems) == 0 {
		return nil
	}
	ch.Line, ch.Old, ch.New = k.Line, diff, "(rewritten from the tariff)"
	if diff == "" {
		ch.Old = problems[0]
	}
	c.record(u, ch)
	return es.replaceBlock(k, p)
}

// record adds a change once (entries sharing a mapping make it twice).
func (c *Config) record(u *Update, ch Change) {
	k := changeKey{ch.Line, ch.Field, ch.New, ch.Old}
	if u.recorded[k] {
		return
	}
	if u.recorded == nil {
		u.recorded = map[changeKey]bool{}
	}
	u.recorded[k] = true
	u.Changes = append(u.Changes, ch)
}

// changeKey is what makes two changes the same one.
type changeKey struct {
	line            int
	field, new, old string
}

// rawValue returns the value node of key in m itself, not dereferenced.
func rawValue(m *yaml.Node, key string) *yaml.Node {
	m = deref(m)
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Tag != "!!merge" {
			return m.Content[i+1]
		}
	}
	return nil
}

// priceLines writes the listed prices of r as "key: value" lines.
func priceLines(r *tariffs.Rates) []string {
	var out []string
	for _, f := range writeFields {
		if r.Listed(f.Usage) {
			out = append(out, f.Key+": "+FormatPerToken(r.Price(f.Usage)))
		}
	}
	if r.Listed(tariffs.WebSearch) {
		out = append(out, searchKey+":")
		for _, l := range searchLines(r.Price(tariffs.WebSearch)) {
			out = append(out, "  "+l)
		}
	}
	return out
}

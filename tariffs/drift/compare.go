package drift

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Kind says what a finding is about.
type Kind uint8

// Kinds of finding.
const (
	// PriceDiffers: a usage type's price differs at the instant.
	PriceDiffers Kind = iota
	// OnlyInCatalog: the catalog prices a model the other database lacks.
	OnlyInCatalog
	// OnlyInOther: the other database prices a model the catalog lacks, or
	// one the catalog has retired or does not price at the instant.
	OnlyInOther
	// RulesDiffer: the two disagree on when the cheaper rates apply.
	RulesDiffer
	// UnknownName: the other database lists a catalog model under a name
	// the catalog does not know (a dated snapshot id, a host's id).
	UnknownName
	// RegionDiffers: a region's multiplier of the token prices differs, or
	// the catalog has none for the model.
	RegionDiffers
)

var kindNames = [...]string{"price", "only_in_catalog", "only_in_other", "time_of_use", "unknown_name", "region"}

// Scope says which differences Compare reports.
type Scope uint8

// Scopes of a comparison.
const (
	// ScopeAll reports every difference, models either side lacks
	// included.
	ScopeAll Scope = iota
	// ScopeCatalog reports only what bears on the catalog's own models:
	// their prices and time-of-use rules, and the names the other
	// database lists them under that the catalog does not know. Models
	// only one side has are left out, so that a check is clean when the
	// catalog is right.
	ScopeCatalog
)

// ParseScope reads "all" or "catalog".
func ParseScope(s string) (Scope, error) {
	switch s {
	case "all":
		return ScopeAll, nil
	case "catalog":
		return ScopeCatalog, nil
	}
	return ScopeAll, fmt.Errorf("scope %q is not all or catalog", s)
}

// String returns the kind's name as JSON output writes it.
func (k Kind) String() string { return kindNames[k] }

// Finding is one difference between the catalog and another database.
type Finding struct {
	Kind     Kind
	Database *Database
	Model    *tariffs.Model      // nil for OnlyInOther when no model matched
	Entry    *Entry              // nil for OnlyInCatalog
	Usage    tariffs.Usage       // PriceDiffers
	Above    int64               // PriceDiffers: the prompt-size tier (0: base rates)
	Service  tariffs.ServiceTier // PriceDiffers: the service tier (Standard: the version's own prices)
	Region   string              // RegionDiffers: the region; Catalog and Other are its multipliers
	Period   string              // the catalog's period at the instant
	Catalog  decimal.Decimal
	Other    decimal.Decimal
	From     time.Time // RulesDiffer: the interval where they disagree
	Until    time.Time
	Note     string
}

// maxIntervals bounds the time-of-use intervals reported per pair; the rest
// are summed up in one finding.
const maxIntervals = 20

// chatModes are the LiteLLM modes priced per token like the catalog.
var chatModes = map[string]bool{"": true, "chat": true, "completion": true, "responses": true}

// Compare puts each database beside the catalog at instant at and returns
// every difference: prices per model, usage type and prompt-size tier, models
// one side lacks (for providers both sides cover), and time-of-use rules
// over the week from at's UTC day and on every calendar date either side
// names while the catalog's version in force at at holds.
//
// Entries that state no price (a model LiteLLM lists for its context
// window only) are not compared. With ScopeCatalog, models one side lacks
// are not reported.
func Compare(cat *tariffs.Catalog, dbs []*Database, at time.Time, scope Scope) []Finding {
	var out []Finding
	for _, db := range dbs {
		for _, f := range compareDB(cat, db, at.UTC()) {
			if scope == ScopeCatalog && (f.Kind == OnlyInCatalog || f.Kind == OnlyInOther) {
				continue
			}
			out = append(out, f)
		}
	}
	return out
}

// pair is a catalog model and the entry the other database prices it by.
type pair struct {
	m *tariffs.Model
	e *Entry
}

func compareDB(cat *tariffs.Catalog, db *Database, at time.Time) []Finding {
	var entries []*Entry
	covered := map[string]bool{} // hosts the file covers
	for _, e := range db.Entries {
		if chatModes[e.Mode] && e.priced() && e.covered(cat) {
			covered[e.scope()] = true
			entries = append(entries, e)
		}
	}
	pairs, lone := match(cat, db.Format, entries)
	var out []Finding
	for _, e := range lone {
		if m := baseModel(cat, e); m != nil {
			out = append(out, unknownName(db, m, e, at))
			continue
		}
		out = append(out, Finding{Kind: OnlyInOther, Database: db, Entry: e, Note: "no catalog model has this name"})
	}
	paired := map[*tariffs.Model]bool{}
	for _, p := range pairs {
		paired[p.m] = true
		if m, _, ok := cat.ResolveOn(p.e.Host, p.e.Name); db.Format == GenAIPrices && (!ok || m != p.m) {
			out = append(out, unknownName(db, p.m, p.e, at))
		}
		out = append(out, comparePair(db, p, at)...)
	}
	for _, m := range cat.Models() {
		if q := m.At(at); coveredModel(m, covered) && !paired[m] && q.Status == tariffs.Priced {
			out = append(out, Finding{Kind: OnlyInCatalog, Database: db, Model: m, Period: q.PeriodName(),
				Note: fmt.Sprintf("%s lists none of its names", db.Format)})
		}
	}
	return out
}

// covered reports whether the catalog has a list for the entry to be
// compared with: a tariff of the host that serves it. A genai-prices
// file's host is the one its provider id names (aws is Bedrock, azure
// Azure OpenAI, together Together AI: see genaiHost), so that a file of a
// host is held to the catalog's list of that host, whatever the catalog
// provider is called (aws-bedrock, azure-openai, together-ai).
func (e *Entry) covered(cat *tariffs.Catalog) bool {
	return e.Host != "" && cat.PricesHost(e.Host)
}

// scope is what the entry covers: the host that serves it.
func (e *Entry) scope() string { return e.Host }

// coveredModel reports whether a database that covers the given hosts
// should list model m.
func coveredModel(m *tariffs.Model, covered map[string]bool) bool {
	for _, h := range m.Provider.Hosts {
		if covered[h] {
			return true
		}
	}
	return false
}

// servedBy reports whether catalog model m is priced for calls host h
// serves.
func servedBy(m *tariffs.Model, h string) bool {
	for _, x := range m.Provider.Hosts {
		if x == h {
			return true
		}
	}
	return false
}

// match pairs entries with catalog models. A LiteLLM key or models.dev
// model id is a model name resolved as a call its host served would be,
// among that host's lists only; a genai-prices model takes every catalog
// model of its file's host one of whose names its clause matches, as
// written or without its leading route segments, the first such model in
// the file winning as it does there. Entries that match nothing are
// returned apart.
func match(cat *tariffs.Catalog, f Format, entries []*Entry) ([]pair, []*Entry) {
	var pairs []pair
	var lone []*Entry
	if f.byHost() {
		for _, e := range entries {
			if m, _, ok := cat.ResolveOn(e.Host, e.Name); ok {
				pairs = append(pairs, pair{m, e})
			} else {
				lone = append(lone, e)
			}
		}
		return pairs, lone
	}
	used := map[*Entry]bool{}
	for _, m := range cat.Models() {
		for _, e := range entries {
			if servedBy(m, e.Host) && e.matches(m) {
				pairs = append(pairs, pair{m, e})
				used[e] = true
				break
			}
		}
	}
	for _, e := range entries {
		if !used[e] && !e.matchesAny(cat) {
			lone = append(lone, e)
		}
	}
	return pairs, lone
}

// matches reports whether a genai-prices clause matches one of m's names,
// as written or without its leading route segments: genai-prices'
// first-party files name models without a route (claude-sonnet-4-5 for
// the catalog's anthropic/claude-sonnet-4-5), its OpenRouter file with the
// author's (openai/gpt-4o, which is the OpenRouter slug itself).
func (e *Entry) matches(m *tariffs.Model) bool {
	for _, n := range m.Names {
		if e.match(n) {
			return true
		}
		if i := strings.LastIndexByte(n, '/'); i >= 0 && e.match(n[i+1:]) {
			return true
		}
	}
	return false
}

func (e *Entry) matchesAny(cat *tariffs.Catalog) bool {
	for _, m := range cat.Models() {
		if servedBy(m, e.Host) && e.matches(m) {
			return true
		}
	}
	return false
}

// unknownName is the finding that db lists model m under a name the
// catalog does not know. When the entry's input price at at differs from
// the model's, the note says so: the name may be a model of its own (an
// older snapshot at an older price) rather than another name of m.
func unknownName(db *Database, m *tariffs.Model, e *Entry, at time.Time) Finding {
	note := fmt.Sprintf("the catalog does not know this name of %s: add it to the model's names if it is billed as %s", m.ID, m.ID)
	if q := m.At(at); q.Status == tariffs.Priced {
		mine := q.Prices.For(q.Period, 0).Price(tariffs.Input)
		if other, ok := e.priceAt(tariffs.Input, at, 0); ok && !other.Equal(mine) {
			note += fmt.Sprintf("; %s prices its input at %s against %s, so it may be a model of its own", e.Format, other, mine)
		}
	}
	return Finding{Kind: UnknownName, Database: db, Model: m, Entry: e, Note: note}
}

// comparePair compares one model's prices and time-of-use rules.
func comparePair(db *Database, p pair, at time.Time) []Finding {
	q := p.m.At(at)
	if q.Status != tariffs.Priced {
		note := "not priced by the catalog at this instant"
		if v := retiredBy(p.m); q.Status == tariffs.Retired && v != nil {
			note = fmt.Sprintf("retired in the catalog since %s (version %s)", v.Effective.Format(time.RFC3339), v.Name)
		}
		return []Finding{{Kind: OnlyInOther, Database: db, Model: p.m, Entry: p.e, Note: note}}
	}
	if p.m.Provider.Currency != "USD" {
		return nil // the other databases are in USD; a separate list is not a difference
	}
	out := comparePrices(db, p, &q, at)
	out = append(out, compareRegions(db, p, &q)...)
	return append(out, compareRules(db, p, &q, at)...)
}

// retiredBy returns the version that retired m for good: the first of the
// run of versions, up to the last, in which m is retired.
func retiredBy(m *tariffs.Model) *tariffs.Version {
	var since *tariffs.Version
	for _, v := range m.Provider.Versions {
		switch {
		case m.StatusIn(v) != tariffs.Retired:
			since = nil
		case since == nil:
			since = v
		}
	}
	return since
}

// comparePrices compares every usage type the other database lists, for
// the base rates and each prompt-size tier of either side: in the standard
// tier, and in each service tier the other database has rates for. Tool
// fees are per use, token prices per 1M tokens.
func comparePrices(db *Database, p pair, q *tariffs.Quote, at time.Time) []Finding {
	c := p.e.choose(at)
	std := side{service: tariffs.Standard, mine: q.Prices, thresholds: c.rates.thresholds(),
		other: func(u tariffs.Usage, prompt int64) (decimal.Decimal, bool) { return p.e.priceAt(u, at, prompt) }}
	out := std.compare(db, p, q)
	for s := tariffs.Batch; int(s) < tariffs.NumServiceTiers; s++ {
		theirs := c.rates.service[s]
		if theirs == nil {
			continue
		}
		mp, miss := q.Prices.Variant(s, "")
		sd := side{service: s, mine: mp, thresholds: theirs.thresholds(), other: theirs.price}
		if miss&tariffs.MissService != 0 {
			sd.note = fmt.Sprintf("the catalog has no %s rates for this model: it prices such calls at the standard rates", s)
		}
		out = append(out, sd.compare(db, p, q)...)
	}
	return out
}

// side is one service tier of a pair: the catalog's prices in it and the
// other database's.
type side struct {
	service    tariffs.ServiceTier
	mine       *tariffs.ModelPrices
	thresholds []int64 // the other database's prompt-size tiers
	other      func(u tariffs.Usage, prompt int64) (decimal.Decimal, bool)
	note       string
}

func (sd *side) compare(db *Database, p pair, q *tariffs.Quote) []Finding {
	tiers := map[int64]bool{0: true}
	for _, t := range sd.mine.Tiers {
		tiers[t.Above] = true
	}
	for _, a := range sd.thresholds {
		tiers[a] = true
	}
	var aboves []int64
	for a := range tiers {
		aboves = append(aboves, a)
	}
	sort.Slice(aboves, func(i, j int) bool { return aboves[i] < aboves[j] })
	var out []Finding
	for _, above := range aboves {
		prompt := above
		if above > 0 {
			prompt = above + 1
		}
		mine := sd.mine.For(q.Period, prompt)
		for u := range tariffs.NumUsage {
			other, ok := sd.other(tariffs.Usage(u), prompt)
			if !ok || (mine.Priced(tariffs.Usage(u)) && mine.Price(tariffs.Usage(u)).Equal(other)) || noWriteCharge(mine, tariffs.Usage(u), other) {
				continue
			}
			note := sd.note
			if !mine.Priced(tariffs.Usage(u)) {
				note = "the catalog does not price it: such quantities are reported as unpriced"
			}
			out = append(out, Finding{Kind: PriceDiffers, Database: db, Model: p.m, Entry: p.e, Usage: tariffs.Usage(u),
				Above: above, Service: sd.service, Period: q.PeriodName(), Catalog: mine.Price(tariffs.Usage(u)), Other: other, Note: note})
		}
	}
	return out
}

// compareRegions compares the other database's region multipliers with
// the catalog's for the model in the version in force. Regions only the
// catalog lists are not reported: LiteLLM names few of them.
func compareRegions(db *Database, p pair, q *tariffs.Quote) []Finding {
	var names []string
	for r := range p.e.regions {
		names = append(names, r)
	}
	sort.Strings(names)
	var out []Finding
	for _, r := range names {
		other := p.e.regions[r]
		mine, ok := regionMultiplier(q.Version, p.m, r)
		if ok && mine.Equal(other) {
			continue
		}
		f := Finding{Kind: RegionDiffers, Database: db, Model: p.m, Entry: p.e, Region: r, Period: q.PeriodName(), Catalog: mine, Other: other}
		if !ok {
			f.Note = fmt.Sprintf("the catalog has no multiplier for region %s on this model: it prices such calls without one", r)
		}
		out = append(out, f)
	}
	return out
}

// regionMultiplier returns the multiplier version v gives model m's token
// prices in region r, and whether it gives one.
func regionMultiplier(v *tariffs.Version, m *tariffs.Model, r string) (decimal.Decimal, bool) {
	for _, rule := range v.Regions {
		if rule.Name == r && (len(rule.Models) == 0 || slices.Contains(rule.Models, m)) {
			return rule.Multiplier, true
		}
	}
	return decimal.Zero, false
}

// noWriteCharge reports whether a cache-write price of 0 in the other
// database and the catalog's say the same: that the provider charges
// nothing apart for building its cache. The catalog writes that as a
// cache-write price equal to the input price (DeepSeek: the tokens that
// build the cache are the request's cache-miss tokens, billed as input);
// LiteLLM writes it as cache_creation_input_token_cost 0, as such a
// provider reports no cache-creation tokens and every prompt token that is
// not a cache hit is charged at input_cost_per_token. Either way a token
// that builds the cache costs the input price.
func noWriteCharge(mine *tariffs.Rates, u tariffs.Usage, other decimal.Decimal) bool {
	return u == tariffs.CacheWrite && other.IsZero() && mine.Price(tariffs.CacheWrite).Equal(mine.Price(tariffs.Input))
}

// choose returns the conditional price in force at t: the last whose
// constraints hold, else the first (genai-prices' rule; LiteLLM has one).
func (e *Entry) choose(t time.Time) *conditional {
	for i := len(e.prices) - 1; i >= 0; i-- {
		c := &e.prices[i]
		if c.begun(t) && (c.daily == nil || c.daily.holds(t)) {
			return c
		}
	}
	return &e.prices[0]
}

// priceAt returns the entry's price of u at t for a call with prompt
// tokens, and whether it lists one. LiteLLM's off-peak rates replace the
// standard or tiered rate for the whole call.
func (e *Entry) priceAt(u tariffs.Usage, t time.Time, prompt int64) (decimal.Decimal, bool) {
	if e.offPeak != nil && e.offPeak.rates.Listed(u) && e.offPeak.at(t) {
		return e.offPeak.rates.Price(u), true
	}
	return e.choose(t).rates.price(u, prompt)
}

// timeOfUse reports whether the entry's price depends on the time of day
// at instant at.
func (e *Entry) timeOfUse(at time.Time) bool {
	if e.offPeak != nil {
		return true
	}
	for _, c := range e.prices {
		if c.daily != nil && c.begun(at) {
			return true
		}
	}
	return false
}

// cheapAt reports whether the entry charges its cheaper rates at t, and
// names them as the database does.
func (e *Entry) cheapAt(t time.Time) (bool, string) {
	if e.offPeak != nil {
		if e.offPeak.at(t) {
			return true, "off-peak"
		}
		return false, "standard"
	}
	c := e.choose(t)
	in, _ := c.rates.price(tariffs.Input, 0)
	for i := range e.prices {
		o := &e.prices[i]
		if p, _ := o.rates.price(tariffs.Input, 0); o.begun(t) && p.LessThan(in) {
			return false, fmt.Sprintf("the dearer price (%s per 1M input)", in)
		}
	}
	return true, fmt.Sprintf("the cheaper price (%s per 1M input)", in)
}

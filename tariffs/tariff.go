package tariffs

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"
)

// Source is where a tariff's figures come from and when they were checked.
type Source struct {
	URL     string
	Kind    SourceKind
	Checked string // YYYY-MM-DD
	Note    string
}

// Provider is one provider's tariff: its models and their price history.
type Provider struct {
	Name string
	// DisplayName is the provider's name as it writes it ("DeepSeek"), and
	// ServiceName its name for the API it sells ("DeepSeek API"): the file's
	// display_name and service_name, else Name and DisplayName + " API".
	DisplayName string
	ServiceName string
	// Hosts are the hosts whose calls the price list prices, as the file's
	// hosts key lists them; a file without the key prices its provider
	// name's host (HostsGiven false).
	Hosts      []string
	HostsGiven bool
	Currency   string
	Zone       *time.Location
	Billing    BillingTime
	// FailedCalls is the provider's billing policy for failed calls;
	// not billed unless the file states otherwise.
	FailedCalls FailedCalls
	Sources     []Source
	Calendar    Calendar
	Models      []*Model
	Versions    []*Version // ordered by Effective
	File        string     // the file it was read from
	Line        int        // the line of its name in the file
}

// FirstParty reports whether the list prices calls no host is known for:
// it prices a first-party host (openai, anthropic, gemini, deepseek), or
// it is a file without a hosts key whose provider name is no known host.
func (p *Provider) FirstParty() bool {
	for _, h := range p.Hosts {
		if FirstPartyHost(h) {
			return true
		}
	}
	return !p.HostsGiven && len(p.Hosts) == 1 && !KnownHost(p.Hosts[0])
}

// ListsHost reports whether the list prices calls of host h: one of its
// Hosts, or, for "" (no host known), a first-party list.
func (p *Provider) ListsHost(h string) bool {
	if h == "" {
		return p.FirstParty()
	}
	return slices.Contains(p.Hosts, NormalizeHost(h))
}

// Model is a priced model with every name it appears under in gateway logs.
type Model struct {
	ID    string
	Names []string
	Note  string
	// Replaces is the id of a model of another file whose names this
	// model takes on the hosts both files price ("" for none): an
	// imported price that stands in for the catalog's (see New).
	Replaces  string
	Provider  *Provider
	Line      int                   // the line of its id in the file
	nameLines []int                 // the line of each name
	spans     []span                // the model's state in each version, in order
	last      atomic.Pointer[Quote] // the quote At computed last
}

// Version is a complete snapshot of a provider's prices, in force from
// Effective until the next version's Effective (End; zero for the last).
type Version struct {
	Name      string
	Effective time.Time
	End       time.Time
	Note      string
	Source    string     // the URL of the version's first own source, if the file names one
	Sources   []string   // the URLs of the version's own sources, in file order
	Basis     SourceKind // the kind of source its rates rest on: the strongest of Sources, else the weakest of the provider's
	Promotion *Promotion // nil unless the version's prices are a promotion
	// Unreadable says why the provider's own page could not be read, for a
	// version that rests on secondary sources only.
	Unreadable string
	Zone       *time.Location
	Periods    []string    // period names; index 0 is the default period
	Defs       []PeriodDef // how each named period (all but the default) is defined
	Prices     map[*Model]*ModelPrices
	Retired    map[*Model]bool
	// ServiceTiers and Regions are the version's rules in file order, for
	// display; their effect is in each model's ModelPrices.Variants.
	ServiceTiers []VariantRule
	Regions      []VariantRule
	plans        [7]dayPlan // by time.Weekday
	calendar     *Calendar
	// dayMatters says, by weekday, whether a holiday or a make-up
	// workday on that weekday would have other periods than the weekday.
	dayMatters [7]bool
	named      bool // the file gives the version a name; else Name is its effective instant
	Line       int
}

// PeriodDef is a named period as the tariff file defines it: local time
// windows on some weekdays (every day when Weekdays is empty).
type PeriodDef struct {
	Name     string
	Weekdays []time.Weekday
	Windows  []Window
}

// ModelPrices are one model's rates in one version: per period, and per
// prompt-size tier; and the rates of the service tiers and regions the
// version lists for the model.
type ModelPrices struct {
	Periods  []Rates         // indexed like Version.Periods
	Tiers    []Tier          // ordered by Above, ascending
	Variants []Variant       // service tiers and regions; the standard tier with no region is the ModelPrices itself
	factor   decimal.Decimal // of a service tier's prices derived by a multiplier: the multiplier
}

// Variant is the model's prices in one service tier and region. Region is
// "" for the variant of a service tier without a region. Multiplier is the
// factor of the standard token prices the variant is derived by (the
// service tier's times the region's), or zero when the service tier lists
// rates of its own (Prices then holds them, times the region's factor).
type Variant struct {
	Service    ServiceTier
	Region     string
	Multiplier decimal.Decimal
	Prices     *ModelPrices
}

// Miss says what a call's service tier or region has no rates for in its
// tariff version: the call is priced at the standard tier (or without the
// region's multiplier), and reports count it.
type Miss uint8

// What a variant lookup did not find.
const (
	MissService Miss = 1 << iota // the service tier has no rates for the model
	MissRegion                   // the region has no multiplier for the model
)

// Variant returns the model's prices in service tier s and region (""
// for none), and what of that the version does not price: a missing
// service tier falls back to the standard tier, a missing region to no
// region. It does not allocate.
func (mp *ModelPrices) Variant(s ServiceTier, region string) (*ModelPrices, Miss) {
	if s == Standard && region == "" {
		return mp, 0
	}
	var sOnly, rOnly *ModelPrices
	for i := range mp.Variants {
		v := &mp.Variants[i]
		switch {
		case v.Service == s && v.Region == region:
			return v.Prices, 0
		case v.Service == s && v.Region == "":
			sOnly = v.Prices
		case v.Service == Standard && v.Region == region:
			rOnly = v.Prices
		}
	}
	var miss Miss
	if region != "" {
		miss |= MissRegion
	}
	if s != Standard {
		miss |= MissService
	}
	switch {
	case sOnly != nil:
		return sOnly, miss &^ MissService
	case rOnly != nil:
		return rOnly, miss &^ MissRegion
	}
	return mp, miss
}

// Tier holds rates that apply to a whole call whose prompt exceeds Above tokens.
type Tier struct {
	Above   int64
	Periods []Rates
}

// For returns the rates of period p for a call with promptTokens prompt
// tokens: those of the highest tier the prompt exceeds, else the base rates.
func (mp *ModelPrices) For(p int, promptTokens int64) *Rates {
	for i := len(mp.Tiers) - 1; i >= 0; i-- {
		if promptTokens > mp.Tiers[i].Above {
			return &mp.Tiers[i].Periods[p]
		}
	}
	return &mp.Periods[p]
}

// TierOf returns the tier index (0 = base, i+1 = Tiers[i]) for a prompt size.
func (mp *ModelPrices) TierOf(promptTokens int64) int {
	for i := len(mp.Tiers) - 1; i >= 0; i-- {
		if promptTokens > mp.Tiers[i].Above {
			return i + 1
		}
	}
	return 0
}

// RatesAt returns the rates of period p in tier t as numbered by TierOf.
func (mp *ModelPrices) RatesAt(p, t int) *Rates {
	if t == 0 {
		return &mp.Periods[p]
	}
	return &mp.Tiers[t-1].Periods[p]
}

// VariantRule is a service tier or region of a version as the file states
// it: a multiplier of token prices for some models (all the version prices
// when Models is empty), and, for a service tier, rates of its own for
// others (Priced).
type VariantRule struct {
	Name       string
	Multiplier decimal.Decimal // zero when the rule has none
	Models     []*Model        // the multiplier's models; nil for every model not in Priced
	Priced     []*Model        // models with rates of their own in this service tier
	Note       string
}

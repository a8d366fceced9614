package savings

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Options say which levers to weigh and how to group the calls.
type Options struct {
	// Catalog lists the hosts the host lever looks among.
	Catalog *tariffs.Catalog
	// Levers are the levers weighed; empty means every lever.
	Levers []Lever
	// Dims are the groupings: model, group, key, team, user, host, tag,
	// version and day. None is one line for every call.
	Dims []pricing.Dim
	// Zone is the time zone of the day grouping; nil means UTC.
	Zone *time.Location
}

// Savings is a run observer that re-prices each call under each lever and
// sums the results by group. Its memory grows with the groups, never with
// the calls. It is not safe for concurrent use.
type Savings struct {
	opts   Options
	on     [NumLevers]bool
	lines  map[pricing.GroupKey]*Line
	listed map[string][]tariffs.HostModel // the hosts listing a name (Catalog.HostsOf)
	money  map[string]bool                // the currencies of the priced calls
	cost   pricing.Coster                 // prices quantities at rates in integers
}

// New returns an observer for opts; an error names a grouping it cannot
// group by.
func New(opts Options) (*Savings, error) {
	for _, d := range opts.Dims {
		switch d {
		case pricing.DimModel, pricing.DimGroup, pricing.DimKey, pricing.DimTeam, pricing.DimUser,
			pricing.DimHost, pricing.DimTag, pricing.DimVersion, pricing.DimDay:
		default:
			return nil, fmt.Errorf("savings groups by model, group, key, team, user, host, tag, version and day, not %s", d)
		}
	}
	if len(opts.Levers) == 0 {
		opts.Levers = AllLevers()
	}
	if opts.Zone == nil {
		opts.Zone = time.UTC
	}
	s := &Savings{opts: opts, lines: map[pricing.GroupKey]*Line{}, listed: map[string][]tariffs.HostModel{}, money: map[string]bool{}}
	for _, l := range opts.Levers {
		s.on[l] = true
	}
	return s, nil
}

// Observe counts one call of the run: a priced call under each lever, a
// call that is unpriced, retired, failed or a cache hit as outside every
// lever. Duplicates and calls outside the window are left out.
func (s *Savings) Observe(c *ledger.Call, pc *pricing.PricedCall) error {
	return s.ObserveSummed(c, pc, pricing.QuantitiesOf(c.Tokens, c.Tools), 1)
}

// ObserveSummed counts n calls summed alike, as serve's state keeps them:
// calls of one model name, host, service tier, region and prompt-size
// tier, in one quote of their tariff; c is one of them (its tokens but
// the prompt size do not count), pc its pricing, q the quantities of all
// n. Each lever alone is exact on sums, costs being linear in
// quantities; the best lever is chosen for the sum as a whole, so the
// combined saving of sums never exceeds that of their calls one by one.
func (s *Savings) ObserveSummed(c *ledger.Call, pc *pricing.PricedCall, q pricing.Quantities, n int64) error {
	switch pc.Outcome {
	case pricing.Priced:
		s.observePriced(s.lineOf(c, pc), &call{c: c, pc: pc, q: q, cost: &s.cost}, n)
	case pricing.Unpriced, pricing.Retired:
		s.lineOf(c, pc).Outside.Unpriced += n
	case pricing.Failed:
		s.lineOf(c, pc).Outside.Failed += n
	case pricing.CacheHit:
		s.lineOf(c, pc).Outside.CacheHit += n
	}
	return nil
}

// observePriced re-prices n priced calls under each lever asked for and
// counts them under each that applies, and once under their best.
func (s *Savings) observePriced(l *Line, k *call, n int64) {
	k.served = s.cost.Total(k.pc.Rates, &k.q)
	s.money[k.pc.Quote.Model.Provider.Currency] = true
	l.Priced += n
	l.served.Add(k.served)
	opts := s.options(k)
	best := -1
	for i, o := range opts {
		if !o.ok {
			continue
		}
		l.Levers[i].add(k.served, o.under, n)
		if best < 0 || less(o.under, opts[best].under) {
			best = i
		}
	}
	if o := opts[Offpeak]; o.ok {
		l.Levers[Offpeak].Delays[DelayOf(o.delay)] += n
	}
	if o := opts[Host]; o.ok {
		l.hostSums(o.host).add(k.served, o.under, n)
	}
	if best < 0 {
		l.levered.Add(k.served)
		return
	}
	l.Best.add(k.served, opts[best].under, n)
	l.BestBy[best] += n
	if best == int(Offpeak) {
		l.Best.Delays[DelayOf(opts[best].delay)] += n
	}
	l.levered.Add(opts[best].under)
}

// options re-prices the call under each lever asked for.
func (s *Savings) options(k *call) [NumLevers]option {
	var out [NumLevers]option
	if s.on[Offpeak] {
		out[Offpeak] = k.offpeak()
	}
	if s.on[Batch] {
		out[Batch] = k.tier(tariffs.Batch)
	}
	if s.on[Flex] {
		out[Flex] = k.tier(tariffs.Flex)
	}
	if s.on[Host] {
		out[Host] = k.host(s.candidates(k.c))
	}
	return out
}

// candidates returns the hosts listing any name of c, each model once.
func (s *Savings) candidates(c *ledger.Call) []tariffs.HostModel {
	var out []tariffs.HostModel
	for _, n := range namesOf(c) {
		key := strings.ToLower(n)
		hms, ok := s.listed[key]
		if !ok {
			hms = s.opts.Catalog.HostsOf(n)
			s.listed[key] = hms
		}
		for _, hm := range hms {
			if !slices.ContainsFunc(out, func(o tariffs.HostModel) bool { return o.Model == hm.Model }) {
				out = append(out, hm)
			}
		}
	}
	return out
}

// lineOf returns the line of the call's group, creating it when new.
func (s *Savings) lineOf(c *ledger.Call, pc *pricing.PricedCall) *Line {
	k := s.groupKey(c, pc)
	l := s.lines[k]
	if l == nil {
		l = newLine(k)
		s.lines[k] = l
	}
	if c.KeyAlias != "" && slices.Contains(s.opts.Dims, pricing.DimKey) && (l.KeyAlias == "" || c.KeyAlias < l.KeyAlias) {
		l.KeyAlias = c.KeyAlias
	}
	return l
}

// groupKey names the call's group in each dimension asked for.
func (s *Savings) groupKey(c *ledger.Call, pc *pricing.PricedCall) pricing.GroupKey {
	var k pricing.GroupKey
	for _, d := range s.opts.Dims {
		switch d {
		case pricing.DimModel:
			k.Model = pc.ModelName()
		case pricing.DimGroup:
			k.Group = c.ModelGroup
		case pricing.DimKey:
			k.Key = c.Key
		case pricing.DimTeam:
			k.Team = c.Team
		case pricing.DimUser:
			k.User = c.User
		case pricing.DimHost:
			k.Host = pc.Host()
		case pricing.DimTag:
			k.Tag = c.Tags
		case pricing.DimVersion:
			if pc.Quote.Version != nil {
				k.Version = pc.Quote.Version.Name
			}
		case pricing.DimDay:
			y, m, d := pc.At.In(s.opts.Zone).Date()
			k.Start = time.Date(y, m, d, 0, 0, 0, 0, s.opts.Zone)
		}
	}
	return k
}

// Result is what the levers would save, by group.
type Result struct {
	Levers []Lever       // the levers weighed, in order
	Dims   []pricing.Dim // the groupings
	// Lines are the groups, the largest combined saving first (then the
	// largest cost as served, then by name).
	Lines []*Line
	// Total sums every line.
	Total *Line
	// Currencies are those of the priced calls' tariffs, sorted: the
	// amounts add them up as they are, like the engine's totals.
	Currencies []string
}

// Result returns the lines so far and their total.
func (s *Savings) Result() *Result {
	r := &Result{Levers: s.opts.Levers, Dims: s.opts.Dims, Total: newLine(pricing.GroupKey{})}
	for _, l := range s.lines {
		l.settle()
		r.Lines = append(r.Lines, l)
		r.Total.merge(l)
	}
	r.Total.settle()
	for c := range s.money {
		r.Currencies = append(r.Currencies, c)
	}
	slices.Sort(r.Currencies)
	slices.SortFunc(r.Lines, func(a, b *Line) int {
		return cmp.Or(b.Saving().Cmp(a.Saving()), b.Served.Cmp(a.Served), compareKeys(&a.Key, &b.Key, s.opts.Dims))
	})
	return r
}

// compareKeys orders group keys by their values in each dimension.
func compareKeys(a, b *pricing.GroupKey, dims []pricing.Dim) int {
	for _, d := range dims {
		if c := strings.Compare(a.Value(d), b.Value(d)); c != 0 {
			return c
		}
	}
	return 0
}

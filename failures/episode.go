package failures

import (
	"slices"
	"sort"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// slack widens a rest's bounds by the access log's resolution: it logs
// wall times to the second.
const slack = time.Second

// maxLookBack bounds how many earlier upstream failures a refusal is
// compared with: the latest ones open the rests that matter.
const maxLookBack = 256

// RetryGap is the longest wait between a failure and a client's retry
// that counts as a retry into an episode: a client's backoff of 1 s or
// 3 s, measured on a log that writes whole seconds.
const RetryGap = 4 * time.Second

// trigger is an upstream failure and the rest it opened.
type trigger struct {
	e     *event
	until time.Time // end of the rest
	ep    *Episode
	// last is when the latest failure of the episode from each client
	// ended: a refusal soon after it is that client's retry.
	last map[string]time.Time
}

// episodes finds the runs of refusals that follow an upstream failure on
// the same pool within the rest. events are ordered by start.
func episodes(events []event, cfg *Config) []Episode {
	f := newFinder(cfg)
	for i := range events {
		if e := &events[i]; e.class == Upstream {
			f.trigger(e)
		}
	}
	for i := range events {
		f.refusal(&events[i])
	}
	return f.episodes()
}

// finder finds episodes: it is given the upstream failures, then the
// refusals in the order they started.
type finder struct {
	cfg       *Config
	byGateway map[ledger.Gateway][]*trigger // by end, then as given
	found     []*Episode
}

func newFinder(cfg *Config) *finder {
	return &finder{cfg: cfg, byGateway: map[ledger.Gateway][]*trigger{}}
}

// trigger adds upstream failure e, after those that ended at or before
// it.
func (f *finder) trigger(e *event) {
	ts := f.byGateway[e.gateway]
	i := sort.Search(len(ts), func(i int) bool { return ts[i].e.fail.End.After(e.fail.End) })
	t := &trigger{e: e, until: e.fail.End.Add(f.cfg.cooldown(e.gateway, e.fail.HTTPStatus))}
	f.byGateway[e.gateway] = slices.Insert(ts, i, t)
}

// refusal counts r into the episode whose rest covers it, when r is a
// refusal that can be part of one, opening the episode at its first.
func (f *finder) refusal(r *event) {
	if r.class != Gateway || !r.reason.Opens() {
		return
	}
	t := match(f.byGateway[r.gateway], r)
	if t == nil {
		return
	}
	if t.ep == nil {
		t.open(r, f.cfg)
		f.found = append(f.found, t.ep)
	}
	t.refuse(r)
	// A refusal names no provider (no deployment was picked), an
	// access line not even a model: the episode says whose it was.
	if r.provider == "" {
		r.provider = t.e.provider
	}
	if r.group == "" {
		r.group = t.e.group
	}
	if r.retry > 0 { // LiteLLM says how long the rest has left
		t.until = latest(t.until, r.fail.Start.Add(r.retry))
	}
}

// forget drops the upstream failures no refusal ending at or after end
// can reach any more: those more than maxLookBack before the last that
// ended by end (plus slack). Their episodes are complete.
func (f *finder) forget(g ledger.Gateway, end time.Time) {
	ts := f.byGateway[g]
	n := sort.Search(len(ts), func(i int) bool { return ts[i].e.fail.End.After(end.Add(slack)) })
	if drop := n - maxLookBack; drop >= maxLookBack { // in batches: a copy per maxLookBack dropped
		f.byGateway[g] = slices.Delete(ts, 0, drop)
	}
}

// episodes returns the episodes found, in the order they opened.
func (f *finder) episodes() []Episode {
	out := make([]Episode, len(f.found))
	for i, ep := range f.found {
		out[i] = *ep
	}
	return out
}

// open begins t's episode at its first refusal r.
func (t *trigger) open(r *event, cfg *Config) {
	u := t.e
	t.ep = &Episode{Gateway: u.gateway, Provider: u.provider, ModelGroup: u.group, Trigger: u.fail,
		First: r.fail, Cooldown: cfg.cooldown(u.gateway, u.fail.HTTPStatus), Pool: cfg.pool(u.gateway, u.provider, u.group)}
	if t.ep.Pool == nil && u.gateway == ledger.CLIProxy && u.provider == "" {
		t.ep.Pool, t.ep.Candidates = cfg.eliminate()
		if t.ep.Pool != nil {
			t.ep.ByElimination, t.ep.Provider = true, t.ep.Pool.Name
		}
	}
	t.last = map[string]time.Time{u.fail.Client: u.fail.End}
}

// refuse counts refusal r into t's episode.
func (t *trigger) refuse(r *event) {
	ep := t.ep
	ep.Refused++
	ep.RefusalLatency.add(r.fail.Latency())
	if !r.fail.End.Before(ep.Last.End) {
		ep.Last = r.fail
	}
	prev, ok := t.last[r.fail.Client]
	if !ok {
		prev, ok = t.last[""] // a failure whose client was not logged
	}
	if ok {
		if gap := r.fail.Start.Sub(prev); gap >= -slack && gap <= RetryGap {
			ep.Retried++
		}
	}
	t.last[r.fail.Client] = latest(t.last[r.fail.Client], r.fail.End)
}

// match returns the upstream failure whose rest covers refusal r on r's
// pool, or nil: the latest one that already began an episode, else the
// latest. A refusal continues an episode under way: an upstream failure
// logged inside that rest reached a provider, so it was another pool's
// (the access log names none), and opens an episode only when no other
// is under way.
func match(ts []*trigger, r *event) *trigger {
	n := sort.Search(len(ts), func(i int) bool { return ts[i].e.fail.End.After(r.fail.End.Add(slack)) })
	var first *trigger
	for i := n - 1; i >= 0 && i >= n-maxLookBack; i-- {
		t := ts[i]
		if r.fail.Start.After(t.until.Add(slack)) || !samePool(t.e, r) {
			continue
		}
		if t.ep != nil {
			return t
		}
		if first == nil {
			first = t
		}
	}
	return first
}

// samePool reports whether refusal r is of upstream failure u's pool: the
// model group for LiteLLM; for CLIProxyAPI the provider when the refusal
// names one, else the route (the access log names nothing else).
func samePool(u, r *event) bool {
	if u.gateway == ledger.LiteLLM {
		return r.group != "" && r.group == u.group
	}
	if r.provider != "" {
		return providerName(r.provider) == providerName(u.provider)
	}
	return u.fail.Route == "" || r.fail.Route == "" || u.fail.Route == r.fail.Route
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Day is the episodes that began on one date.
type Day struct {
	Date     time.Time // midnight, in the result's zone
	Episodes int
	Refused  int64
	Retried  int64
}

// ByDate returns the episodes by the date they began in r.Zone, in date
// order.
func (r *Result) ByDate() []Day {
	zone := r.Zone
	if zone == nil {
		zone = time.UTC
	}
	var out []Day
	for i := range r.Episodes {
		ep := &r.Episodes[i]
		y, m, d := ep.Start().In(zone).Date()
		date := time.Date(y, m, d, 0, 0, 0, 0, zone)
		j, found := slices.BinarySearchFunc(out, date, func(x Day, t time.Time) int { return x.Date.Compare(t) })
		if !found {
			out = slices.Insert(out, j, Day{Date: date})
		}
		out[j].Episodes++
		out[j].Refused += ep.Refused
		out[j].Retried += ep.Retried
	}
	return out
}

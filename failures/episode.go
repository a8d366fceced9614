package failures

import (
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

// trigger is an upstream failure and the rest it opened.
type trigger struct {
	e     *event
	until time.Time // end of the rest
	ep    *Episode
}

// episodes finds the runs of refusals that follow an upstream failure on
// the same pool within the rest. events are ordered by start.
func episodes(events []event, cfg *Config) []Episode {
	byGateway := map[ledger.Gateway][]*trigger{}
	for i := range events {
		e := &events[i]
		if e.class == Upstream {
			byGateway[e.gateway] = append(byGateway[e.gateway], &trigger{e: e, until: e.fail.End.Add(cfg.cooldown(e.gateway, e.fail.HTTPStatus))})
		}
	}
	for _, ts := range byGateway {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].e.fail.End.Before(ts[j].e.fail.End) })
	}
	var found []*Episode
	for i := range events {
		r := &events[i]
		if r.class != Gateway || !r.reason.Opens() {
			continue
		}
		t := match(byGateway[r.gateway], r)
		if t == nil {
			continue
		}
		if t.ep == nil {
			u := t.e
			t.ep = &Episode{Gateway: u.gateway, Provider: u.provider, ModelGroup: u.group, Trigger: u.fail,
				First: r.fail, Cooldown: cfg.cooldown(u.gateway, u.fail.HTTPStatus), Pool: cfg.pool(u.gateway, u.provider, u.group)}
			found = append(found, t.ep)
		}
		t.ep.Refused++
		// A refusal names no provider (no deployment was picked), an
		// access line not even a model: the episode says whose it was.
		if r.provider == "" {
			r.provider = t.e.provider
		}
		if r.group == "" {
			r.group = t.e.group
		}
		if !r.fail.End.Before(t.ep.Last.End) {
			t.ep.Last = r.fail
		}
		if r.retry > 0 { // LiteLLM says how long the rest has left
			t.until = latest(t.until, r.fail.Start.Add(r.retry))
		}
	}
	out := make([]Episode, len(found))
	for i, ep := range found {
		out[i] = *ep
	}
	return out
}

// match returns the latest upstream failure whose rest covers refusal r
// on r's pool, or nil.
func match(ts []*trigger, r *event) *trigger {
	n := sort.Search(len(ts), func(i int) bool { return ts[i].e.fail.End.After(r.fail.End.Add(slack)) })
	for i := n - 1; i >= 0 && i >= n-maxLookBack; i-- {
		t := ts[i]
		if r.fail.Start.After(t.until.Add(slack)) || !samePool(t.e, r) {
			continue
		}
		return t
	}
	return nil
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

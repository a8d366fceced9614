package failures

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// Hour is one hour's requests and the gateway's refusals of them.
type Hour struct {
	Gateway ledger.Gateway
	Start   time.Time // the hour's start, in the result's zone
	// Requests counts the requests of the hour: every call of the run
	// (duplicates aside), or for CLIProxyAPI, when an access log was
	// given, its request lines (refusals leave no record).
	Requests int64
	// Rejected counts the gateway's refusals among them, by reason.
	Rejected int64
	Reasons  [numReasons]int64
}

// Share returns the part of the hour's requests the gateway refused, 0
// for an hour without requests.
func (h *Hour) Share() float64 { // a ratio to show, not money
	if h.Requests == 0 {
		return 0
	}
	return float64(h.Rejected) / float64(h.Requests)
}

// ByReason returns the hour's refusals by reason, leaving out those with
// none.
func (h *Hour) ByReason() []ReasonCount {
	var out []ReasonCount
	for r := ReasonProvider; r < numReasons; r++ {
		if h.Reasons[r] > 0 {
			out = append(out, ReasonCount{r, h.Reasons[r]})
		}
	}
	return out
}

type hourKey struct {
	g ledger.Gateway
	t int64 // unix hour
}

// hours counts requests and refusals by gateway and hour.
type hours map[hourKey]*Hour

func (h hours) at(g ledger.Gateway, t time.Time) *Hour {
	k := hourKey{g, t.Unix() / 3600}
	x := h[k]
	if x == nil {
		x = &Hour{Gateway: g, Start: time.Unix(k.t*3600, 0).UTC()}
		h[k] = x
	}
	return x
}

// rejected returns the hours with a refusal, by gateway and time, their
// starts in zone.
func (h hours) rejected(zone *time.Location) []Hour {
	var out []Hour
	for _, x := range h {
		if x.Rejected > 0 {
			y := *x
			y.Start = y.Start.In(zone)
			out = append(out, y)
		}
	}
	slices.SortFunc(out, func(a, b Hour) int { return cmp.Or(cmp.Compare(a.Gateway, b.Gateway), a.Start.Compare(b.Start)) })
	return out
}

// Rejection is LiteLLM's "No deployments available" refusals of one model
// group for one cause, as far as the log and the config tell it.
type Rejection struct {
	ModelGroup string
	Reason     Reason // cooldown, rate_limit or budget
	Calls      int64
	// Pool is the config's group, nil without a config or when it has
	// none of that name; with one deployment, a cooldown of it is the
	// whole group's.
	Pool *Pool
	// Period is the budget's period as the message gives it ("1d": a
	// daily cap), "" when not given.
	Period string
}

// noDeployments marks LiteLLM's router refusing a group: every
// deployment resting, filtered out by its limits, or over its budget.
const noDeployments = "No deployments available"

// budgetPeriod reads the period LiteLLM's budget limiter prints after
// the spend ("20.0013 >= 1d").
var budgetPeriod = regexp.MustCompile(`>= ([0-9]+[smhdw]o?)\b`)

// rejections sums LiteLLM's "No deployments available" refusals by
// model group and reason.
func rejections(events []event, cfg *Config) []Rejection {
	var out []Rejection
	for i := range events {
		e := &events[i]
		if e.gateway != ledger.LiteLLM || e.class != Gateway || !strings.Contains(e.fail.Text, noDeployments) {
			continue
		}
		period := ""
		if m := budgetPeriod.FindStringSubmatch(e.fail.Text); e.reason == ReasonBudget && m != nil {
			period = m[1]
		}
		j := slices.IndexFunc(out, func(r Rejection) bool {
			return r.ModelGroup == e.group && r.Reason == e.reason && r.Period == period
		})
		if j < 0 {
			j = len(out)
			out = append(out, Rejection{ModelGroup: e.group, Reason: e.reason, Period: period, Pool: cfg.pool(ledger.LiteLLM, "", e.group)})
		}
		out[j].Calls++
	}
	slices.SortStableFunc(out, func(a, b Rejection) int {
		return cmp.Or(cmp.Compare(a.ModelGroup, b.ModelGroup), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}

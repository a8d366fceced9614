package failures

import (
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// LiteLLM's refusals as its router words them (litellm/types/router.py,
// router_strategy/budget_limiter.py).
const (
	cooling   = "No deployments available for selected model, Try again in 5 seconds. Passed model=%s. pre-call-checks=False, cooldown_list=[('d1', {})]"
	limited   = "No deployments available for selected model, Try again in 60 seconds. Passed model=m. pre-call-checks=True, cooldown_list=[]"
	dailyCap  = "No deployments available - crossed budget: Exceeded budget for deployment model_name: m: 20.0013 >= 1d"
	keyBudget = "Budget has been exceeded! Current cost: 10.2, Max budget: 10.0"
)

// litellmCall is a LiteLLM row at minute m past 10:00 of group g; text
// "" is a success.
func litellmCall(m int, g, text string) (ledger.Call, pricing.PricedCall) {
	at := time.Date(2026, 10, 5, 10, 0, 0, 0, time.UTC).Add(time.Duration(m) * time.Minute)
	c := ledger.Call{Gateway: ledger.LiteLLM, ModelGroup: g, Model: g, Start: at, End: at}
	if text == "" {
		return c, pricing.PricedCall{Outcome: pricing.Priced}
	}
	c.Status, c.Failure = ledger.StatusFailure, ledger.Failure{Text: text, HTTPStatus: 429}
	return c, pricing.PricedCall{Outcome: pricing.Failed}
}

func TestRejectionsByCauseAndHour(t *testing.T) {
	cfg := &Config{File: "litellm.yaml", Gateway: ledger.LiteLLM, Rule: "cooldown", AllowedFails: 1, AllowedFailsSet: true,
		Pools: []Pool{{Name: "solo", Keys: 1, Cooling: true, Line: 2}, {Name: "pair", Keys: 2, Cooling: true, Line: 9}}}
	an := New(Options{Config: cfg})
	rows := []struct {
		minute int
		group  string
		text   string
	}{
		{0, "solo", ""}, {1, "solo", cooling}, {2, "solo", cooling}, {3, "pair", cooling},
		{20, "pair", limited}, {40, "m", dailyCap}, {41, "m", dailyCap}, {50, "m", keyBudget},
		{59, "pair", ""}, {61, "solo", ""}, {62, "solo", cooling}, {70, "solo", ""},
	}
	for _, r := range rows {
		c, pc := litellmCall(r.minute, r.group, r.text)
		if err := an.Observe(&c, &pc); err != nil {
			t.Fatal(err)
		}
	}
	res := an.Result()
	want := []Rejection{
		// The budget error names no "No deployments available": a key's
		// budget is no rejection of a group.
		{ModelGroup: "m", Reason: ReasonBudget, Calls: 2, Period: "1d"},
		{ModelGroup: "pair", Reason: ReasonCooldown, Calls: 1, Pool: &cfg.Pools[1]},
		{ModelGroup: "pair", Reason: ReasonRateLimit, Calls: 1, Pool: &cfg.Pools[1]},
		{ModelGroup: "solo", Reason: ReasonCooldown, Calls: 3, Pool: &cfg.Pools[0]},
	}
	if len(res.Rejections) != len(want) {
		t.Fatalf("rejections %+v, want %+v", res.Rejections, want)
	}
	for i, w := range want {
		if res.Rejections[i] != w {
			t.Errorf("rejection %d = %+v, want %+v", i, res.Rejections[i], w)
		}
	}
	// 10:00-11:00: 9 requests, 7 refused (3 cooldown, 1 rate limit, 2
	// daily cap, 1 key budget); 11:00-12:00: 3 requests, 1 refused.
	hours := []struct {
		start              time.Time
		requests, rejected int64
	}{
		{time.Date(2026, 10, 5, 10, 0, 0, 0, time.UTC), 9, 7},
		{time.Date(2026, 10, 5, 11, 0, 0, 0, time.UTC), 3, 1},
	}
	if len(res.Hours) != len(hours) {
		t.Fatalf("hours %+v, want %d", res.Hours, len(hours))
	}
	for i, w := range hours {
		h := res.Hours[i]
		if !h.Start.Equal(w.start) || h.Requests != w.requests || h.Rejected != w.rejected {
			t.Errorf("hour %d = %s %d of %d, want %s %d of %d", i, h.Start, h.Rejected, h.Requests, w.start, w.rejected, w.requests)
		}
	}
}

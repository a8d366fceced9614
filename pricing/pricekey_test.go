package pricing_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestPriceKeyFirst prices LiteLLM rows whose model is a deployment's own
// name, with the price entry LiteLLM used in
// metadata.model_map_information.model_map_key, at the embedded catalog's
// rates (USD per 1M tokens, input / cache read / output):
//
//	Azure gpt-4o Global     2.50 / 1.25  / 10.00
//	Azure gpt-4o Data Zone  2.75 / 1.375 / 11.00
//	Azure gpt-4o-mini Global 0.15 / -    / 0.60
//	Bedrock claude-sonnet-4-6 us. profile 3.30 / - / 16.50
//
// pk-azure-eu: 200,000 prompt of which 40,000 cached, 50,000 output:
// 160,000 x 2.75 + 40,000 x 1.375 + 50,000 x 11 = 0.44 + 0.055 + 0.55 =
// 1.045 (at Global it would be 0.40 + 0.05 + 0.50 = 0.95, the figure of
// the same row without a key, priced by its model group).
func TestPriceKeyFirst(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	tests := map[string]struct {
		model string // tariff model id; "" for unpriced
		cost  string
		host  string // unpriced: the host named as the reason
	}{
		"pk-azure-eu":    {model: "azure-gpt-4o-datazone", cost: "1.045"},
		"pk-azure-nokey": {model: "azure-gpt-4o-global", cost: "0.95"}, // the deployment name is no model: the group
		// A key the host's lists do not know: the model as logged.
		// 100,000 x 0.15 + 10,000 x 0.60 = 0.015 + 0.006.
		"pk-azure-unknown-key": {model: "azure-gpt-4o-mini-global", cost: "0.021"},
		// An application inference profile ARN as the model: only the
		// key names the profile. 100,000 x 3.30 + 10,000 x 16.50.
		"pk-bedrock-us": {model: "bedrock-claude-sonnet-4-6-regional", cost: "0.495"},
		// A key OpenAI's list knows, on a host with no list: unpriced,
		// never OpenAI's price.
		"pk-groq": {host: "groq"},
		// model_map_information that is no object: no key, the group.
		"pk-odd-map": {model: "azure-gpt-4o-global", cost: "0.95"},
		// No host logged: a key naming a host does not choose it.
		"pk-nohost-key": {},
		// No host logged, a bare key: the first-party lists, as a bare
		// model name. OpenAI gpt-4o 2.50 / 10: 1,000 x 2.50 + 100 x 10.
		"pk-nohost-firstparty": {model: "gpt-4o", cost: "0.0035"},
	}
	e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimModel}})
	calls := readCalls(t, "../testdata/hosts/spendlogs-pricekey.csv")
	if len(calls) != len(tests) {
		t.Fatalf("read %d calls, want %d", len(calls), len(tests))
	}
	for i := range calls {
		c := &calls[i]
		w, ok := tests[c.RequestID]
		if !ok {
			t.Fatalf("unexpected call %s", c.RequestID)
		}
		pc := e.AddPriced(c)
		if w.model == "" {
			if pc.Outcome != pricing.Unpriced || pc.Host() != w.host {
				t.Errorf("%s (key %q): %s %s on host %q, want unpriced on host %q", c.RequestID, c.PriceKey, pc.Outcome, pc.ModelName(), pc.Host(), w.host)
			}
			continue
		}
		_, cost := pc.Cost(c)
		if pc.Outcome != pricing.Priced || pc.ModelName() != w.model || !cost.Equal(decimal.RequireFromString(w.cost)) {
			t.Errorf("%s (key %q): %s %s at %s, want priced %s at %s", c.RequestID, c.PriceKey, pc.Outcome, pc.ModelName(), cost, w.model, w.cost)
		}
	}
}

// TestGroupByHost groups the price-key rows by host, as an invoice per
// host would: the sums are those of TestPriceKeyFirst added by hand, and
// rolling up to no grouping leaves one total. Host "" is the calls with
// no host known (the first-party lists).
func TestGroupByHost(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	e := pricing.New(cat, pricing.Options{Dims: []pricing.Dim{pricing.DimHost, pricing.DimModel}})
	calls := readCalls(t, "../testdata/hosts/spendlogs-pricekey.csv")
	for i := range calls {
		e.AddPriced(&calls[i])
	}
	type sum struct {
		calls    int64
		official string
	}
	want := map[string]sum{
		"azure":   {4, "2.966"}, // 1.045 + 0.95 + 0.021 + 0.95
		"bedrock": {1, "0.495"},
		"groq":    {1, "0"}, // unpriced, its host named
		"":        {2, "0.0035"},
	}
	gs := groupsOf(t, e.Rollup([]pricing.Dim{pricing.DimHost}).Reconcile())
	if len(gs) != len(want) {
		t.Fatalf("%d groups, want %d: %+v", len(gs), len(want), gs)
	}
	for _, g := range gs {
		w, ok := want[g.Key.Value(pricing.DimHost)]
		if !ok || g.Calls != w.calls || !g.Official.Equal(decimal.RequireFromString(w.official)) {
			t.Errorf("host %q: %d calls at %s, want %+v", g.Key.Host, g.Calls, g.Official, w)
		}
	}
	for _, g := range groupsOf(t, e.Reconcile()) {
		if g.Key.Model == "azure-gpt-4o-datazone" && g.Key.Host != "azure" {
			t.Errorf("the data-zone model's group is on host %q, want azure", g.Key.Host)
		}
	}
	if total := groupsOf(t, e.Rollup(nil).Reconcile()); len(total) != 1 || !total[0].Official.Equal(decimal.RequireFromString("3.4645")) {
		t.Errorf("rolled up to no grouping: %+v, want one group of 3.4645", total)
	}
}

package pricing

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

func testCatalog(t testing.TB) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffs.Load("../tariffs/testdata")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return cat
}

// zone loads a time zone by name, failing the test when it cannot.
func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// balanced reports whether every row read is accounted for exactly once.
func balanced(r Rows) bool {
	return r.Read == r.Priced+r.Unpriced+r.Retired+r.Failed+r.Duplicate+r.Rejected+r.Outside
}

// call builds a call ending at end with the given tokens.
func call(id, model, end string, in, cached, out int64) ledger.Call {
	e := at(end)
	return ledger.Call{RequestID: id, Identity: id, Gateway: ledger.LiteLLM, Start: e.Add(-10 * time.Second), End: e,
		Model: model, Key: "k1", Recorded: ledger.Amount{},
		Tokens: ledger.Tokens{Input: in, CacheRead: cached, Output: out}}
}

func TestClassify(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		name    string
		mutate  func(c *ledger.Call)
		opts    Options
		outcome Outcome
		period  string
		cost    string
	}{
		{name: "peak call", outcome: Priced, period: "peak", cost: "0.000306"},
		{name: "billed at start falls in off-peak", mutate: func(c *ledger.Call) { c.Start = at("2026-09-01T00:59:59Z") },
			opts: Options{Billing: billing(tariffs.BillStart)}, outcome: Priced, period: "offpeak", cost: "0.000153"},
		{name: "end unknown falls back to start", mutate: func(c *ledger.Call) { c.End = time.Time{}; c.Start = at("2026-09-05T02:00:00Z") },
			outcome: Priced, period: "offpeak", cost: "0.000153"},
		{name: "failed", mutate: func(c *ledger.Call) { c.Status = ledger.StatusFailure }, outcome: Failed, cost: "0"},
		{name: "unknown model", mutate: func(c *ledger.Call) { c.Model = "mystery" }, outcome: Unpriced, cost: "0"},
		{name: "model group resolves", mutate: func(c *ledger.Call) { c.Model = "my-deployment"; c.ModelGroup = "edgeco/flash" }, outcome: Priced, period: "peak", cost: "0.000306"},
		{name: "a host's deployment: its group is not priced at the first party's list",
			mutate: func(c *ledger.Call) { c.Model = "azure/x"; c.ModelGroup = "edgeco/flash" }, outcome: Unpriced, cost: "0"},
		{name: "a host logged: not priced at the first party's list", mutate: func(c *ledger.Call) { c.Host = "bedrock" }, outcome: Unpriced, cost: "0"},
		{name: "retired model", mutate: func(c *ledger.Call) { c.Model = "old-model" }, outcome: Retired, cost: "0"},
		{name: "before the model's first version", mutate: func(c *ledger.Call) { c.End = at("2026-08-01T00:00:00Z") }, outcome: Unpriced, cost: "0"},
		{name: "outside the window", opts: Options{Until: at("2026-09-01T02:00:00Z")}, outcome: Outside, cost: "0"},
		{name: "tier above 128k prompt tokens", mutate: func(c *ledger.Call) { c.Tokens.Input = 128_001 }, outcome: Priced, period: "peak",
			cost: "0.0780006"}, // (128001 × 0.60 + 1000 cached × 0.60, the tier lists no cache price, + 250 × 2.40) / 1M
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := call("r1", "flash", "2026-09-01T02:00:00Z", 0, 1000, 250)
			if tt.mutate != nil {
				tt.mutate(&c)
			}
			e := New(cat, tt.opts)
			pc := e.AddPriced(&c)
			_, cost := pc.Cost(&c)
			if pc.Outcome != tt.outcome || (pc.Outcome == Priced && pc.Quote.PeriodName() != tt.period) || !cost.Equal(dec(tt.cost)) {
				t.Errorf("got %s/%s cost %s, want %s/%s cost %s", pc.Outcome, pc.Quote.PeriodName(), cost, tt.outcome, tt.period, tt.cost)
			}
			if rows := e.Rows(); !balanced(rows) || rows.Read != 1 {
				t.Errorf("rows not accounted for: %+v", rows)
			}
		})
	}
}

func billing(b tariffs.BillingTime) *tariffs.BillingTime { return &b }

// randomCalls makes n calls over September 2026 of the test tariff's
// models, some failed, some unknown, some duplicated.
func randomCalls(rng *rand.Rand, n int) []ledger.Call {
	models := []string{"flash", "edgeco/flash", "old-model", "dst-model", "mystery"}
	base := at("2026-09-01T00:00:00Z")
	calls := make([]ledger.Call, 0, n)
	for i := range n {
		if i > 0 && rng.IntN(50) == 0 {
			calls = append(calls, calls[rng.IntN(len(calls))]) // an exported-twice row
			continue
		}
		end := base.Add(time.Duration(rng.Int64N(int64(30 * 24 * time.Hour))))
		c := call(fmt.Sprintf("r%d", i), models[rng.IntN(len(models))], end.Format(time.RFC3339Nano),
			rng.Int64N(200_000), rng.Int64N(50_000), rng.Int64N(8_000))
		c.Tokens.Reasoning = rng.Int64N(c.Tokens.Output + 1)
		c.Key = fmt.Sprintf("k%d", rng.IntN(5))
		c.Recorded = ledger.NewAmount(rng.Int64N(1_000_000), -9)
		if rng.IntN(40) == 0 {
			c.Status = ledger.StatusFailure
		}
		calls = append(calls, c)
	}
	return calls
}

// TestAggregateIsExact checks that the bucketed official cost equals the
// sum of every call's own cost to the last digit, and that totals do not
// depend on the order of the input.
func TestAggregateIsExact(t *testing.T) {
	cat := testCatalog(t)
	newYork := zone(t, "America/New_York")
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 20 {
		calls := randomCalls(rng, 2000)
		opts := Options{Dims: []Dim{DimModel, DimKey, DimPeriod}}
		if round%2 == 1 { // days in a zone that changes its clocks
			opts = Options{Dims: []Dim{DimModel, DimKey, DimDay}, Zone: newYork}
		}
		e := New(cat, opts)
		perCall := decimal.Zero
		for i := range calls {
			pc := e.AddPriced(&calls[i])
			_, c := pc.Cost(&calls[i])
			if pc.Outcome == Duplicate {
				continue
			}
			perCall = perCall.Add(c)
		}
		want := e.Reconcile()
		if !want.Totals.Official.Equal(perCall) {
			t.Fatalf("round %d: bucketed official %s, sum of per-call costs %s", round, want.Totals.Official, perCall)
		}
		if !balanced(want.Rows) || want.Rows.Read != int64(len(calls)) {
			t.Fatalf("round %d: rows not accounted for: %+v", round, want.Rows)
		}
		// Shuffled: the same totals and groups. The duplicates are
		// dropped first: which copy of a call counts depends on the order.
		var uniq []ledger.Call
		seen := map[string]bool{}
		for _, c := range calls {
			if !seen[c.Identity] {
				seen[c.Identity] = true
				uniq = append(uniq, c)
			}
		}
		seq := New(cat, opts)
		for i := range uniq {
			seq.AddPriced(&uniq[i])
		}
		want = seq.Reconcile()
		rng.Shuffle(len(uniq), func(i, j int) { uniq[i], uniq[j] = uniq[j], uniq[i] })
		shuffled := New(cat, opts)
		for i := range uniq {
			shuffled.AddPriced(&uniq[i])
		}
		got := shuffled.Reconcile()
		if !got.Totals.Official.Equal(want.Totals.Official) || !got.Totals.Recorded.Equal(want.Totals.Recorded) {
			t.Fatalf("round %d: shuffled totals %+v, sequential %+v", round, got.Totals, want.Totals)
		}
		if len(got.groups) != len(want.groups) {
			t.Fatalf("round %d: %d groups shuffled, %d sequential", round, len(got.groups), len(want.groups))
		}
		for i := range got.groups {
			g, w := &got.groups[i], &want.groups[i]
			if g.Key != w.Key || !g.Official.Equal(w.Official) || !g.Recorded.Equal(w.Recorded) {
				t.Fatalf("round %d: group %+v differs: %+v vs %+v", round, g.Key, g, w)
			}
		}
	}
}

func TestDuplicates(t *testing.T) {
	cat := testCatalog(t)
	a := call("same", "flash", "2026-09-01T02:00:00Z", 10, 0, 10)
	b := a                                                        // exported twice
	c := call("same", "flash", "2026-09-01T03:00:00Z", 10, 0, 10) // id reused by another call
	e := New(cat, Options{})
	got := []Outcome{e.AddPriced(&a).Outcome, e.AddPriced(&b).Outcome, e.AddPriced(&c).Outcome}
	want := []Outcome{Priced, Duplicate, Priced}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("call %d: %s, want %s", i, got[i], want[i])
		}
	}
}

func TestFingerprint(t *testing.T) {
	lite := ledger.HashIdentity(string(ledger.LiteLLM))
	proxy := ledger.HashIdentity(string(ledger.CLIProxy))
	req1, req2, none := ledger.HashIdentity("req-1"), ledger.HashIdentity("req-2"), ledger.HashIdentity("None")
	base := fingerprint(lite, req1, 1_000_000_000)
	if fingerprint(lite, req1, 1_000_000_000) != base {
		t.Fatal("the same call has two fingerprints")
	}
	differ := []struct {
		name string
		fp   uint64
	}{
		{"another instant", fingerprint(lite, req1, 1_000_000_001)},
		{"another id", fingerprint(lite, req2, 1_000_000_000)},
		{"another gateway", fingerprint(proxy, req1, 1_000_000_000)},
	}
	for _, d := range differ {
		if d.fp == base {
			t.Errorf("%s: same fingerprint %x", d.name, d.fp)
		}
	}
	// Calls that differ only in their instant never collide: the instant
	// is mixed in by a bijection.
	seen := map[uint64]int64{}
	for ns := int64(0); ns < 100_000; ns++ {
		fp := fingerprint(lite, none, ns*1_000_003)
		if prev, ok := seen[fp]; ok {
			t.Fatalf("instants %d and %d share fingerprint %x", prev, ns*1_000_003, fp)
		}
		seen[fp] = ns * 1_000_003
	}
}

// TestFirstAlias checks that a key's alias is the first in sort order
// of those seen, whether its bytes are those of the alias held or a copy.
func TestFirstAlias(t *testing.T) {
	held := "alias-b"
	copyOf := strings.Clone(held)
	for _, tc := range []struct{ cur, alias, want string }{
		{"", "alias-b", "alias-b"},
		{held, "", held},
		{held, held, held},
		{held, copyOf, held},
		{held, "alias-a", "alias-a"},
		{held, "alias-c", held},
		{held, held[:5], "alias"}, // the same bytes, shorter: another alias
	} {
		if got := firstAlias(tc.cur, tc.alias); got != tc.want {
			t.Errorf("firstAlias(%q, %q) = %q, want %q", tc.cur, tc.alias, got, tc.want)
		}
	}
}

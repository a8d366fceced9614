package pricing

import (
	"testing"

	"github.com/tokenfare/tokenfare/tariffs"
)

// promoTariff prices model m at a promotion through 2026-11-21 (UTC) from
// 2026-08-21, with nothing after it.
const promoTariff = `provider: p
hosts: [openai]
currency: USD
timezone: UTC
billing_time: end
sources:
  - {url: https://p.example/pricing, kind: official, checked: 2026-12-06}
  - {url: https://a.example/post, kind: secondary, checked: 2026-12-06}
models:
  - id: m
    names: [m]
versions:
  - effective: 2026-01-01T00:00:00Z
    name: list
    sources: [https://p.example/pricing, https://a.example/post]
    prices: {m: {standard: {input: 5, output: 30}}}
  - effective: 2026-08-21T00:00:00Z
    name: cut
    sources: [https://p.example/pricing, https://a.example/post]
    promotion: {until: 2026-11-21}
    prices: {m: {standard: {input: 4, output: 20}}}
`

func TestPromotionEnded(t *testing.T) {
	p, ps := tariffs.Parse("p.yaml", []byte(promoTariff))
	cat, cps := tariffs.New([]*tariffs.Provider{p})
	if len(ps)+len(cps) > 0 {
		t.Fatalf("tariff problems: %v %v", ps, cps)
	}
	e := New(cat, Options{})
	// Two calls inside the promotion, three after its last day: all priced
	// at 4 / 20 (1M input + 100k output = 4 + 2 = 6 each).
	for i, end := range []string{"2026-09-01T10:00:00Z", "2026-11-21T23:59:59Z", "2026-11-22T00:00:00Z",
		"2026-11-30T08:00:00Z", "2026-12-05T12:00:00Z"} {
		c := call(string(rune('a'+i)), "m", end, 1_000_000, 0, 100_000)
		if pc := e.AddPriced(&c); pc.Outcome != Priced {
			t.Fatalf("call at %s: %s", end, pc.Outcome)
		}
	}
	r := e.Reconcile()
	if !r.Totals.Official.Equal(dec("30")) {
		t.Errorf("official = %s, want 30 (5 calls x 6)", r.Totals.Official)
	}
	var got []Explanation
	for _, x := range r.Explanations {
		if x.Kind == KindPromotionEnded {
			got = append(got, x)
		}
	}
	if len(got) != 1 {
		t.Fatalf("promotion_ended explanations: %+v, want one", got)
	}
	x := got[0]
	if x.Calls != 3 || x.Version != "cut" || x.FirstDay.String() != "2026-11-22" || x.LastDay.String() != "2026-12-05" || !x.Amount.IsZero() {
		t.Errorf("explanation = %+v, want 3 calls of version cut from 2026-11-22 to 2026-12-05, amount 0", x)
	}
}

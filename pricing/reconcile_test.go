package pricing

import (
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// costAtRates prices a call's tokens at fixed rates, as a gateway with one
// flat price would record it.
func costAtRates(c *ledger.Call, r *tariffs.Rates) decimal.Decimal {
	q := QuantitiesOf(c.Tokens, c.Tools)
	_, total := CostOf(r, &q)
	return total
}

func rates(prices map[tariffs.Usage]string) *tariffs.Rates {
	var r tariffs.Rates
	for u, p := range prices {
		r.Set(u, dec(p))
	}
	return &r
}

func TestExplanations(t *testing.T) {
	cat := testCatalog(t)
	peak := rates(map[tariffs.Usage]string{tariffs.Input: "0.30", tariffs.CacheRead: "0.006", tariffs.Output: "1.20"})
	oldFlat := rates(map[tariffs.Usage]string{tariffs.Input: "0.56", tariffs.CacheRead: "0.07", tariffs.Output: "1.68"})
	peakCachedAsInput := rates(map[tariffs.Usage]string{tariffs.Input: "0.30", tariffs.CacheRead: "0.30", tariffs.Output: "1.20"})
	ends := []string{"2026-09-01T02:00:00Z", "2026-09-01T12:00:00Z", "2026-09-05T02:00:00Z", "2026-09-02T07:30:00Z"}
	tests := []struct {
		name    string
		at      *tariffs.Rates
		kind    ExplanationKind
		version string
		period  string
		rates   string
	}{
		{"recorded at the peak price at every hour", peak, KindFlatPrice, "peak", "peak", ""},
		{"recorded at another model's old flat price", oldFlat, KindFlatPrice, "flat", "standard", "old"},
		{"cache reads recorded at the input price", peakCachedAsInput, KindCachedAsInput, "peak", "peak", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(cat, Options{})
			for i, end := range ends {
				c := call(string(rune('a'+i)), "flash", end, 1000*int64(i+1), 5000, 700)
				c.Recorded = ledger.AmountOf(costAtRates(&c, tt.at))
				e.AddPriced(&c)
			}
			zero := call("zero", "flash", "2026-09-01T02:30:00Z", 100, 0, 100)
			e.AddPriced(&zero)
			failed := call("failed", "flash", "2026-09-01T02:40:00Z", 0, 0, 0)
			failed.Status, failed.Recorded = ledger.StatusFailure, ledger.AmountOf(dec("0.25"))
			e.AddPriced(&failed)
			unknown := call("unknown", "mystery", "2026-09-01T02:40:00Z", 10, 0, 10)
			unknown.Recorded = ledger.AmountOf(dec("0.5"))
			e.AddPriced(&unknown)

			rec := e.Reconcile()
			byKind := map[ExplanationKind]Explanation{}
			sum := decimal.Zero
			for _, x := range rec.Explanations {
				byKind[x.Kind] = x
				sum = sum.Add(x.Amount)
			}
			x, found := byKind[tt.kind]
			if !found || x.Version != tt.version || x.Period != tt.period || x.RatesOf != tt.rates {
				t.Errorf("%s: version %q period %q rates of %q, want %q %q %q\n%+v", tt.kind, x.Version, x.Period, x.RatesOf, tt.version, tt.period, tt.rates, rec.Explanations)
			}
			zeroCost := costAtRates(&zero, peak)
			if z := byKind[KindZeroSpend]; z.Calls != 1 || !z.Amount.Equal(zeroCost) {
				t.Errorf("zero_spend = %+v, want 1 call of %s", z, zeroCost)
			}
			if f := byKind[KindFailedWithSpend]; f.Calls != 1 || !f.Amount.Equal(dec("-0.25")) {
				t.Errorf("failed_with_spend = %+v, want 1 call of -0.25", f)
			}
			if u := byKind[KindUnpricedModel]; u.Model != "mystery" || !u.Amount.Equal(dec("-0.5")) {
				t.Errorf("unpriced_model = %+v, want mystery -0.5", u)
			}
			if !sum.Equal(rec.Totals.Gap) || !rec.Totals.Explained.Equal(rec.Totals.Gap) {
				t.Errorf("explanations add up to %s (explained %s), gap is %s", sum, rec.Totals.Explained, rec.Totals.Gap)
			}
		})
	}
}

func TestUnexplainedGap(t *testing.T) {
	cat := testCatalog(t)
	e := New(cat, Options{})
	c := call("a", "flash", "2026-09-01T02:00:00Z", 1000, 0, 1000)
	c.Recorded = ledger.AmountOf(dec("0.123456"))
	e.AddPriced(&c)
	rec := e.Reconcile()
	if len(rec.Explanations) != 1 || rec.Explanations[0].Kind != KindUnexplained {
		t.Fatalf("explanations = %+v, want one unexplained", rec.Explanations)
	}
	if !rec.Totals.Explained.IsZero() {
		t.Errorf("explained = %s, want 0", rec.Totals.Explained)
	}
}

func TestGroupsByPeriodAndDay(t *testing.T) {
	cat := testCatalog(t)
	e := New(cat, Options{Dims: []Dim{DimDay, DimPeriod}})
	for _, end := range []string{"2026-09-01T02:00:00Z", "2026-09-01T03:00:00Z", "2026-09-01T12:00:00Z", "2026-09-01T17:00:00Z"} {
		c := call(end, "flash", end, 100_000, 0, 0) // below the 128k tier
		e.AddPriced(&c)
	}
	rec := e.Reconcile()
	got := map[string]decimal.Decimal{}
	for _, g := range rec.groups {
		got[g.Key.Value(DimDay)+"/"+g.Key.Value(DimPeriod)] = g.Official
	}
	// 17:00 UTC is 01:00 on the next day in Beijing: off-peak, but grouped
	// on its UTC day. Two calls of 100k input tokens each at 0.30 (peak)
	// and 0.15 (off-peak) per 1M: 0.06 and 0.03.
	if !got["2026-09-01/peak"].Equal(dec("0.06")) || !got["2026-09-01/offpeak"].Equal(dec("0.03")) || len(got) != 2 {
		t.Errorf("groups = %v, want 2026-09-01/peak 0.06 and 2026-09-01/offpeak 0.03", got)
	}
}

func TestGatewayWithoutSpend(t *testing.T) {
	cat := testCatalog(t)
	e := New(cat, Options{})
	c := call("a", "flash", "2026-09-01T02:00:00Z", 1_000, 0, 1_000)
	c.Gateway = ledger.CLIProxy
	e.AddPriced(&c)
	rec := e.Reconcile()
	if len(rec.Explanations) != 1 || rec.Explanations[0].Kind != KindNotRecorded || !rec.Explanations[0].Amount.Equal(rec.Totals.Gap) {
		t.Fatalf("explanations = %+v, want one not_recorded for the whole gap %s", rec.Explanations, rec.Totals.Gap)
	}
}

func TestRoundingAndKeyGroups(t *testing.T) {
	cat := testCatalog(t)
	e := New(cat, Options{Dims: []Dim{DimKey}})
	a := call("a", "flash", "2026-09-01T02:00:00Z", 100_000, 0, 0) // official 0.03
	a.Recorded, a.Key, a.KeyAlias = ledger.AmountOf(dec("0.0300000001")), "abc", "team-a-bot-renamed"
	b := call("b", "flash", "2026-09-01T12:00:00Z", 100_000, 0, 0) // official 0.015, another period
	b.Recorded, b.Key, b.KeyAlias = ledger.AmountOf(dec("0.015")), "abc", "team-a-bot"
	c := call("c", "flash", "2026-09-01T13:00:00Z", 100_000, 0, 0)
	c.Recorded, c.Key = ledger.AmountOf(dec("0.015")), "abc"
	for _, x := range []*ledger.Call{&a, &b, &c} {
		e.AddPriced(x)
	}
	rec := e.Reconcile()
	if len(rec.groups) != 1 || rec.groups[0].Key.Key != "abc" || rec.groups[0].KeyAlias != "team-a-bot" {
		t.Errorf("groups = %+v, want one group for key abc with alias team-a-bot", rec.groups)
	}
	if len(rec.Explanations) != 1 || rec.Explanations[0].Kind != KindRounding || !rec.Totals.Explained.Equal(rec.Totals.Gap) {
		t.Errorf("explanations = %+v (explained %s, gap %s), want one rounding for the whole gap", rec.Explanations, rec.Totals.Explained, rec.Totals.Gap)
	}
}

func TestHourGroupsOnFallBackDay(t *testing.T) {
	cat := testCatalog(t)
	ny := zone(t, "America/New_York")
	e := New(cat, Options{Dims: []Dim{DimHour}, Zone: ny})
	// 05:30Z is 01:30 EDT, 06:30Z is 01:30 EST: the same local hour twice.
	for _, end := range []string{"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-01T07:30:00Z"} {
		c := call(end, "flash", end, 10, 0, 10)
		e.AddPriced(&c)
	}
	var hours []string
	for _, g := range e.Reconcile().groups {
		hours = append(hours, g.Key.Value(DimHour))
	}
	want := []string{"2026-11-01T01:00-04:00", "2026-11-01T01:00-05:00", "2026-11-01T02:00-05:00"}
	if strings.Join(hours, " ") != strings.Join(want, " ") {
		t.Errorf("hours = %v, want %v", hours, want)
	}
}

// TestFlatPriceWithTiers checks that a gateway recording long prompts at
// the tier's rates is still recognised.
func TestFlatPriceWithTiers(t *testing.T) {
	cat := testCatalog(t)
	peak := rates(map[tariffs.Usage]string{tariffs.Input: "0.30", tariffs.CacheRead: "0.006", tariffs.Output: "1.20"})
	peakTier := rates(map[tariffs.Usage]string{tariffs.Input: "0.60", tariffs.Output: "2.40"})
	e := New(cat, Options{})
	long := call("long", "flash", "2026-09-01T12:00:00Z", 200_000, 0, 1000) // off-peak hour, tier prompt
	long.Recorded = ledger.AmountOf(costAtRates(&long, peakTier))
	short := call("short", "flash", "2026-09-01T13:00:00Z", 1000, 0, 1000)
	short.Recorded = ledger.AmountOf(costAtRates(&short, peak))
	e.AddPriced(&long)
	e.AddPriced(&short)
	xs := e.Reconcile().Explanations
	if len(xs) != 1 || xs[0].Kind != KindFlatPrice || xs[0].Period != "peak" {
		t.Errorf("explanations = %+v, want flat_price at the peak rates", xs)
	}
}

// TestFlatPriceNamesVersionInForce checks that a flat price is explained
// by a version in force by the time of the calls, not by a later one that
// happens to carry the same rates.
func TestFlatPriceNamesVersionInForce(t *testing.T) {
	p, ps := tariffs.Parse("later.yaml", []byte(`provider: acme
currency: USD
timezone: UTC
billing_time: end
sources:
  - {url: https://example.com/test-figures, kind: secondary, checked: 2026-12-01}
models:
  - id: m
    names: [m]
versions:
  - name: july
    effective: 2026-07-01T00:00:00Z
    prices:
      m: {standard: {input: 1.00, output: 4.00}}
  - name: october
    effective: 2026-10-01T00:00:00Z
    prices:
      m: {standard: {input: 2.00, output: 8.00}}
  - name: november
    effective: 2026-11-01T00:00:00Z
    prices:
      m: {standard: {input: 1.00, output: 4.00}}
`))
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	cat, ps := tariffs.New([]*tariffs.Provider{p})
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	e := New(cat, Options{})
	c := call("oct", "m", "2026-10-15T12:00:00Z", 1_000_000, 0, 1_000_000)
	// Official 2 + 8 at October's rates; recorded 1 + 4, the rates of July
	// (a stale flat price) and, again, of November, after the call.
	c.Recorded = ledger.AmountOf(decimal.RequireFromString("5"))
	e.AddPriced(&c)
	xs := e.Reconcile().Explanations
	// The figures' one source is secondary: the price rests on it, which
	// a secondary_price note (amount 0) says after the flat price.
	if len(xs) != 2 || xs[0].Kind != KindFlatPrice || xs[0].Version != "july" || xs[1].Kind != KindSecondaryPrice || !xs[1].Amount.IsZero() {
		t.Errorf("explanations = %+v, want flat_price at version july, then secondary_price", xs)
	}
}

// TestAddCurrencyLeavesSharedListsAlone checks that the lists of one
// currency, shared between groups, are never written into: a second
// currency added to one makes a new sorted list, and the shared list
// still holds its one currency.
func TestAddCurrencyLeavesSharedListsAlone(t *testing.T) {
	usd := addCurrency(nil, "USD")
	again := addCurrency([]string{}, "USD")
	if !slices.Equal(usd, []string{"USD"}) || !slices.Equal(again, []string{"USD"}) {
		t.Fatalf("lists of one currency: %v, %v", usd, again)
	}
	both := addCurrency(usd, "CNY")
	more := addCurrency(again, "EUR")
	if !slices.Equal(both, []string{"CNY", "USD"}) || !slices.Equal(more, []string{"EUR", "USD"}) {
		t.Fatalf("added: %v, %v; want [CNY USD], [EUR USD]", both, more)
	}
	if !slices.Equal(usd, []string{"USD"}) || !slices.Equal(again, []string{"USD"}) {
		t.Fatalf("a shared list was written into: %v, %v", usd, again)
	}
	if cny := addCurrency(nil, "CNY"); !slices.Equal(cny, []string{"CNY"}) || !slices.Equal(addCurrency(nil, "USD"), []string{"USD"}) {
		t.Fatalf("lists of one currency after another: %v", cny)
	}
}

package pricing

import (
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/tariffs"
)

// tariffAtCatalog parses one provider file for the tariff-at tests.
func tariffAtCatalog(t *testing.T, src string) *tariffs.Catalog {
	t.Helper()
	p, ps := tariffs.Parse("p.yaml", []byte(src))
	if p == nil {
		t.Fatal(ps)
	}
	cat, ps := tariffs.New([]*tariffs.Provider{p})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return cat
}

// blendInput blends the calls over [from, until) with tariffAt (zero:
// historical) and returns the input price, its peak share and the
// versions named.
func blendInput(t *testing.T, cat *tariffs.Catalog, from, until, tariffAt string, calls []struct {
	end string
	in  int64
}) (BlendPrice, []string) {
	t.Helper()
	opts := Options{Since: at(from), Until: at(until)}
	if tariffAt != "" {
		opts.TariffAt = at(tariffAt)
	}
	e := New(cat, opts)
	for i, c := range calls {
		cl := call(string(rune('a'+i)), "m", c.end, c.in, 0, 0)
		if o := e.AddPriced(&cl).Outcome; o != Priced {
			t.Fatalf("call at %s: %v, want priced", c.end, o)
		}
	}
	bl := e.BlendWindow(at(from), at(until), ModePerModel)
	if len(bl.Models) != 1 || len(bl.Models[0].Prices) == 0 || bl.Models[0].Prices[0].Usage != tariffs.Input {
		t.Fatalf("blend: %+v", bl.Models)
	}
	if tariffAt != "" && !bl.TariffAt.Equal(at(tariffAt)) || tariffAt == "" && !bl.TariffAt.IsZero() {
		t.Errorf("Blend.TariffAt = %v, want %q", bl.TariffAt, tariffAt)
	}
	return bl.Models[0].Prices[0], bl.Models[0].Versions
}

func TestBlendTariffAtPriceChange(t *testing.T) {
	cat := tariffAtCatalog(t, `provider: p
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://example.com, kind: official, checked: 2026-11-30}]
models: [{id: m, names: [m]}]
versions:
  - {effective: 2026-01-01T00:00:00Z, name: v1, prices: {m: {standard: {input: 1.00, output: 2.00}}}}
  - {effective: 2026-01-21T00:00:00Z, name: v2, prices: {m: {standard: {input: 2.00, output: 4.00}}}}
  - {effective: 2026-02-01T00:00:00Z, name: v3, prices: {m: {standard: {input: 3.00, output: 6.00}}}}
`)
	// 1M input tokens on 2026-01-10 (v1 in force) and 1M on 2026-01-25 (v2).
	calls := []struct {
		end string
		in  int64
	}{{"2026-01-10T12:00:00Z", 1_000_000}, {"2026-01-25T12:00:00Z", 1_000_000}}
	tests := []struct {
		name, tariffAt, blended, official, versions string
	}{
		// Each at its own version: (1.00 + 2.00) / 2M = 1.50 per 1M.
		{"historical", "", "1.5", "3", "v1 v2"},
		// Both at v2, in force at the end of the window: 2 × 2.00 / 2M = 2.00.
		{"at the end of the window", "2026-01-29T00:00:00Z", "2", "4", "v2"},
		// Both at v3, published but not yet in force: 2 × 3.00 / 2M = 3.00.
		{"at a future instant", "2026-02-15T00:00:00Z", "3", "6", "v3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, versions := blendInput(t, cat, "2026-01-01T00:00:00Z", "2026-01-29T00:00:00Z", tc.tariffAt, calls)
			if !p.Blended.Equal(dec(tc.blended)) || !p.Official.Equal(dec(tc.official)) || strings.Join(versions, " ") != tc.versions {
				t.Errorf("blended %s, official %s, versions %v; want %s, %s, %s", p.Blended, p.Official, versions, tc.blended, tc.official, tc.versions)
			}
		})
	}
}

func TestBlendTariffAtPeakWindowChange(t *testing.T) {
	cat := tariffAtCatalog(t, `provider: p
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://example.com, kind: official, checked: 2026-11-30}]
models: [{id: m, names: [m]}]
versions:
  - effective: 2026-03-01T00:00:00Z
    name: morning-peak
    default_period: offpeak
    periods: [{name: peak, windows: ["08:00-12:00"]}]
    prices: {m: {offpeak: {input: 1.00, output: 2.00}, peak: {input: 2.00, output: 4.00}}}
  - effective: 2026-03-15T00:00:00Z
    name: afternoon-peak
    default_period: offpeak
    periods: [{name: peak, windows: ["12:00-16:00"]}]
    prices: {m: {offpeak: {input: 1.00, output: 2.00}, peak: {input: 2.00, output: 4.00}}}
`)
	calls := []struct {
		end string
		in  int64
	}{
		{"2026-03-10T09:00:00Z", 1_000_000}, // peak in morning-peak, off-peak in afternoon-peak
		{"2026-03-20T13:00:00Z", 1_000_000}, // peak in afternoon-peak (off-peak in morning-peak)
		{"2026-03-20T09:00:00Z", 2_000_000}, // off-peak in afternoon-peak, peak in morning-peak
	}
	tests := []struct {
		name, tariffAt, blended, share, versions string
	}{
		// Each at its own version: 2.00 + 2.00 + 2 × 1.00 = 6.00 over 4M =
		// 1.50 per 1M; peak tokens 1M + 1M of 4M = 0.5.
		{"historical", "", "1.5", "0.5", "morning-peak afternoon-peak"},
		// All at afternoon-peak: 1.00 + 2.00 + 2 × 1.00 = 5.00 over 4M =
		// 1.25 per 1M; peak tokens 1M of 4M = 0.25.
		{"at the end of the window", "2026-03-29T00:00:00Z", "1.25", "0.25", "afternoon-peak"},
		// All at morning-peak (a past instant): 2.00 + 1.00 + 2 × 2.00 =
		// 7.00 over 4M = 1.75 per 1M; peak tokens 3M of 4M = 0.75.
		{"at the earlier version", "2026-03-05T00:00:00Z", "1.75", "0.75", "morning-peak"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, versions := blendInput(t, cat, "2026-03-01T00:00:00Z", "2026-03-29T00:00:00Z", tc.tariffAt, calls)
			if !p.Blended.Equal(dec(tc.blended)) || !p.PeakShare.Equal(dec(tc.share)) || strings.Join(versions, " ") != tc.versions {
				t.Errorf("blended %s, peak share %s, versions %v; want %s, %s, %s", p.Blended, p.PeakShare, versions, tc.blended, tc.share, tc.versions)
			}
		})
	}
}

// TestTariffAtOutcomes: with a tariff instant, a call's outcome follows
// the model's status at that instant, not at the call's own.
func TestTariffAtOutcomes(t *testing.T) {
	cat := tariffAtCatalog(t, `provider: p
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://example.com, kind: official, checked: 2026-11-30}]
models: [{id: m, names: [m]}, {id: old, names: [old]}]
versions:
  - {effective: 2026-01-01T00:00:00Z, name: v1, prices: {m: {standard: {input: 1.00, output: 2.00}}, old: {standard: {input: 1.00, output: 2.00}}}}
  - {effective: 2026-02-01T00:00:00Z, name: v2, retire: [old], prices: {m: {standard: {input: 2.00, output: 4.00}}}}
`)
	tests := []struct {
		name, model, end, tariffAt string
		want                       Outcome
	}{
		{"before any version, priced at a later tariff", "m", "2025-12-25T00:00:00Z", "2026-02-15T00:00:00Z", Priced},
		{"before any version, historical", "m", "2025-12-25T00:00:00Z", "", Unpriced},
		{"priced then, retired at the tariff instant", "old", "2026-01-10T00:00:00Z", "2026-02-15T00:00:00Z", Retired},
		{"retired now, priced at an earlier tariff", "old", "2026-02-10T00:00:00Z", "2026-01-15T00:00:00Z", Priced},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{}
			if tc.tariffAt != "" {
				opts.TariffAt = at(tc.tariffAt)
			}
			c := call("a", tc.model, tc.end, 1000, 0, 0)
			if got := New(cat, opts).AddPriced(&c).Outcome; got != tc.want {
				t.Errorf("outcome %v, want %v", got, tc.want)
			}
		})
	}
}

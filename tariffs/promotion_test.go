package tariffs

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// sourced is a preamble with one official and two secondary sources.
const sourced = `provider: p
currency: USD
timezone: Asia/Shanghai
billing_time: end
sources:
  - {url: https://p.example/pricing, kind: official, checked: 2026-12-06}
  - {url: https://a.example/post, kind: secondary, checked: 2026-12-06}
  - {url: https://b.example/post, kind: secondary, checked: 2026-12-06}
models:
  - id: m
    names: [m]
versions:
`

func TestVersionSources(t *testing.T) {
	tests := []struct {
		name      string
		version   string
		wantBasis SourceKind
		wantMsgs  []string
	}{
		{name: "official and secondary", wantBasis: SourceOfficial,
			version: "    sources: [https://p.example/pricing, https://a.example/post]\n"},
		{name: "one source", wantBasis: SourceOfficial,
			version:  "    sources: [https://p.example/pricing]\n",
			wantMsgs: []string{"t.yaml:15: warning: version v: rests on one source; every version needs two independent sources"}},
		{name: "secondary only", wantBasis: SourceSecondary,
			version:  "    sources: [https://a.example/post, https://b.example/post]\n",
			wantMsgs: []string{"t.yaml:15: warning: version v: rests on secondary sources only; add the provider's own page or announcement, or say why it cannot be read (official_unreadable)"}},
		{name: "secondary only, the page unreadable", wantBasis: SourceSecondary,
			version: "    sources: [https://a.example/post, https://b.example/post]\n    official_unreadable: behind a login\n"},
		{name: "source and sources both", wantBasis: SourceOfficial,
			version:  "    source: https://p.example/pricing\n    sources: [https://p.example/pricing, https://a.example/post]\n",
			wantMsgs: []string{"t.yaml:15: version v: give source or sources, not both"}},
		{name: "the single source key still reads", wantBasis: SourceSecondary,
			version: "    source: https://a.example/post\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := sourced + "  - effective: 2026-01-01T00:00:00Z\n    name: v\n" + tt.version +
				"    prices: {m: {standard: {input: 1, output: 2}}}\n"
			p, ps := Parse("t.yaml", []byte(file))
			var got []string
			for _, pr := range ps {
				got = append(got, pr.Error())
			}
			if !slices.Equal(got, tt.wantMsgs) {
				t.Fatalf("problems:\n got %q\nwant %q", got, tt.wantMsgs)
			}
			if p == nil {
				return
			}
			if b := p.Versions[0].Basis; b != tt.wantBasis {
				t.Errorf("basis = %s, want %s", b, tt.wantBasis)
			}
		})
	}
}

func TestPromotion(t *testing.T) {
	file := sourced + `  - effective: 2026-08-21T00:00:00Z
    name: promo
    sources: [https://p.example/pricing, https://a.example/post]
    promotion: {until: 2026-11-21, note: lower rates for three months}
    prices: {m: {standard: {input: 1, output: 2}}}
  - effective: 2026-12-01T00:00:00Z
    name: open
    sources: [https://p.example/pricing, https://a.example/post]
    promotion: {until: further-notice}
    prices: {m: {standard: {input: 1, output: 2}}}
`
	p, ps := Parse("t.yaml", []byte(file))
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	promo, open := p.Versions[0].Promotion, p.Versions[1].Promotion
	// The last day is inclusive, on the tariff's clock (Asia/Shanghai):
	// the promotion ends at 2026-11-22 00:00 +08:00 = 2026-11-21 16:00 UTC.
	wantUntil := time.Date(2026, 11, 21, 16, 0, 0, 0, time.UTC)
	if !promo.Until.Equal(wantUntil) || promo.String() != "promotion through 2026-11-21" {
		t.Errorf("promo = %v %q, want until %v", promo.Until, promo, wantUntil)
	}
	if promo.EndedBy(wantUntil.Add(-time.Nanosecond)) || !promo.EndedBy(wantUntil) {
		t.Errorf("EndedBy does not turn at %v", wantUntil)
	}
	if !open.Open() || open.EndedBy(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)) || open.String() != "promotion until further notice" {
		t.Errorf("open promotion = %+v", open)
	}
}

func TestPromotionsEnded(t *testing.T) {
	file := sourced + `  - effective: 2026-08-21T00:00:00Z
    name: promo
    sources: [https://p.example/pricing, https://a.example/post]
    promotion: {until: 2026-11-21}
    prices: {m: {standard: {input: 1, output: 2}}}
`
	p, ps := Parse("t.yaml", []byte(file))
	cat, cps := New([]*Provider{p})
	if len(ps)+len(cps) > 0 {
		t.Fatalf("problems: %v %v", ps, cps)
	}
	tests := []struct {
		name string
		now  time.Time
		want int
	}{
		{"before the end", time.Date(2026, 11, 21, 15, 59, 0, 0, time.UTC), 0},
		{"after the end, nothing follows", time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cat.PromotionsEnded(tt.now)
			if len(got) != tt.want {
				t.Fatalf("got %v, want %d warning(s)", got, tt.want)
			}
			if tt.want > 0 && (!got[0].Warning || !strings.Contains(got[0].Msg, "promotion through 2026-11-21, which has passed")) {
				t.Errorf("warning = %v", got[0])
			}
		})
	}
	// A version after the promotion ends the warning.
	file += `  - effective: 2026-11-22T00:00:00+08:00
    name: after
    sources: [https://p.example/pricing, https://a.example/post]
    prices: {m: {standard: {input: 2, output: 4}}}
`
	p, _ = Parse("t.yaml", []byte(file))
	cat, _ = New([]*Provider{p})
	if got := cat.PromotionsEnded(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)); len(got) > 0 {
		t.Errorf("superseded promotion warned: %v", got)
	}
}

func TestPromotionBadUntil(t *testing.T) {
	file := sourced + `  - effective: 2026-08-21T00:00:00Z
    name: promo
    sources: [https://p.example/pricing, https://a.example/post]
    promotion: {until: 2026-08-01}
    prices: {m: {standard: {input: 1, output: 2}}}
`
	_, ps := Parse("t.yaml", []byte(file))
	want := "t.yaml:16: version promo: promotion ends on 2026-08-01, before the version takes effect"
	if len(ps) != 1 || ps[0].Error() != want {
		t.Fatalf("got %v, want %q", ps, want)
	}
}

func TestPromotionOfSomeModels(t *testing.T) {
	file := strings.Replace(sourced, "    names: [m]\n", "    names: [m]\n  - id: n\n    names: [n]\n", 1) + `  - effective: 2026-08-21T00:00:00Z
    name: promo
    sources: [https://p.example/pricing, https://a.example/post]
    promotion: {until: 2026-11-21, models: [m]}
    prices: {m: {standard: {input: 1, output: 2}}, n: {standard: {input: 3, output: 4}}}
`
	p, ps := Parse("t.yaml", []byte(file))
	cat, cps := New([]*Provider{p})
	if len(ps)+len(cps) > 0 {
		t.Fatalf("problems: %v %v", ps, cps)
	}
	after := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for id, want := range map[string]bool{"m": true, "n": false} {
		m, _ := cat.Resolve(id)
		if q := m.At(after); q.PromotionEnded != want {
			t.Errorf("%s: PromotionEnded = %v, want %v", id, q.PromotionEnded, want)
		}
	}
	if got := cat.PromotionsEnded(after); len(got) != 1 || !strings.Contains(got[0].Msg, "(of m)") {
		t.Errorf("PromotionsEnded = %v, want one naming m", got)
	}
	bad := strings.Replace(file, "models: [m]", "models: [zz]", 1)
	if _, ps := Parse("t.yaml", []byte(bad)); len(ps) != 1 || !strings.Contains(ps[0].Msg, `promotion names model "zz"`) {
		t.Errorf("unknown model in a promotion: %v", ps)
	}
}

package tariffs

import (
	"testing"

	"github.com/shopspring/decimal"
)

// modifiers is a tariff with every billing modifier: 1-hour cache writes,
// tool fees, service tiers by multiplier and by rates of their own, and a
// region multiplier for one model.
const modifiers = `provider: p
currency: USD
timezone: UTC
billing_time: start
sources:
  - {url: https://example.com, checked: 2026-12-01, kind: official}
models:
  - id: m
  - id: n
versions:
  - effective: 2026-01-01T00:00:00Z
    prices:
      m:
        standard: {input: 3.00, cache_read: 0.30, cache_write: 3.75, cache_write_1h: 6.00, output: 15.00}
      n:
        standard: {input: 1.00, output: 4.00}
    tiers:
      m:
        - above: 200000
          prices:
            standard: {input: 6.00, cache_write_1h: 12.00, output: 22.50}
    tools:
      m:
        web_search: {price: 10.00, per: 1000}
        file_search: {price: "0.0025", per: 1}
    service_tiers:
      batch: {multiplier: 0.5}
      priority:
        prices:
          n:
            standard: {input: 2.00, output: 8.00}
    regions:
      us: {multiplier: 1.1, models: [m]}
`

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestModifiers(t *testing.T) {
	p, ps := Parse("t.yaml", []byte(modifiers))
	if p == nil || len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	var m, n *Model
	for _, x := range p.Models {
		switch x.ID {
		case "m":
			m = x
		case "n":
			n = x
		}
	}
	v := p.Versions[0]
	tests := []struct {
		name    string
		model   *Model
		service ServiceTier
		region  string
		prompt  int64
		usage   Usage
		want    string // price; "" when not priced
		miss    Miss
	}{
		{name: "5-minute write", model: m, usage: CacheWrite, want: "3.75"},
		{name: "1-hour write", model: m, usage: CacheWrite1h, want: "6.00"},
		{name: "1-hour write not listed is unpriced, not the 5-minute price", model: n, usage: CacheWrite1h},
		{name: "5-minute write falls back to input", model: n, usage: CacheWrite, want: "1.00"},
		{name: "web search per use", model: m, usage: WebSearch, want: "0.01"},
		{name: "file search per use", model: m, usage: FileSearch, want: "0.0025"},
		{name: "tool without a fee is unpriced", model: n, usage: WebSearch},
		{name: "tool fee in a prompt tier", model: m, prompt: 300000, usage: WebSearch, want: "0.01"},
		{name: "prompt tier 1-hour write", model: m, prompt: 300000, usage: CacheWrite1h, want: "12.00"},
		{name: "batch halves tokens", model: m, service: Batch, usage: Output, want: "7.5"},
		{name: "batch keeps tool fees", model: m, service: Batch, usage: WebSearch, want: "0.01"},
		{name: "batch halves a prompt tier", model: m, service: Batch, prompt: 300000, usage: Input, want: "3"},
		{name: "priority rates of its own", model: n, service: Priority, usage: Output, want: "8.00"},
		{name: "priority not offered: standard, missed", model: m, service: Priority, usage: Output, want: "15.00", miss: MissService},
		{name: "flex not offered: standard, missed", model: n, service: Flex, usage: Input, want: "1.00", miss: MissService},
		{name: "region multiplier", model: m, region: "us", usage: Input, want: "3.3"},
		{name: "region on batch", model: m, service: Batch, region: "us", usage: Output, want: "8.25"},
		{name: "region on the 1-hour write", model: m, region: "us", usage: CacheWrite1h, want: "6.6"},
		{name: "region keeps tool fees", model: m, region: "us", usage: WebSearch, want: "0.01"},
		{name: "region not for this model: missed", model: n, region: "us", usage: Input, want: "1.00", miss: MissRegion},
		{name: "region unknown on batch: batch, missed", model: m, service: Batch, region: "eu", usage: Input, want: "1.5", miss: MissRegion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mp, miss := v.Prices[tt.model].Variant(tt.service, tt.region)
			r := mp.For(0, tt.prompt)
			if miss != tt.miss {
				t.Errorf("miss = %b, want %b", miss, tt.miss)
			}
			if tt.want == "" {
				if r.Priced(tt.usage) {
					t.Errorf("%s is priced at %s, want unpriced", tt.usage, r.Price(tt.usage))
				}
				return
			}
			if !r.Priced(tt.usage) || !r.Price(tt.usage).Equal(d(tt.want)) {
				t.Errorf("%s = %s (priced %v), want %s", tt.usage, r.Price(tt.usage), r.Priced(tt.usage), tt.want)
			}
		})
	}
}

func TestModifierProblems(t *testing.T) {
	version := "versions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: 1, output: 2}}}\n"
	tests := []struct {
		name  string
		extra string // keys of the version
		want  []string
	}{
		{name: "unknown tool", extra: "    tools: {m: {web_serch: {price: 10, per: 1000}}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: tools of "m": unknown tool "web_serch" (want web_search, web_fetch or file_search)`}},
		{name: "tool without per", extra: "    tools: {m: {web_search: {price: 10}}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: m web_search per (the number of uses the price is for, e.g. 1000) is required`}},
		{name: "per not a power of ten", extra: "    tools: {m: {web_search: {price: 10, per: 500}}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: m web_search per "500" is not 1, 10, 100, 1000 or another power of ten`}},
		{name: "unknown key in a fee", extra: "    tools: {m: {web_search: {price: 10, per: 1000, unit: call}}}\n",
			want: []string{`t.yaml:13: unknown key "unit" (want price or per)`}},
		{name: "tools of an unpriced model", extra: "    tools: {x: {web_search: {price: 10, per: 1000}}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: tools for model "x", which this version does not price`}},
		{name: "unknown service tier", extra: "    service_tiers: {bulk: {multiplier: 0.5}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: unknown service tier "bulk" (want batch, flex or priority)`}},
		{name: "service tier with nothing", extra: "    service_tiers: {batch: {note: half}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: service tier batch needs a multiplier or prices`}},
		{name: "unknown key in a service tier", extra: "    service_tiers: {batch: {discount: 0.5}}\n",
			want: []string{`t.yaml:13: unknown key "discount" (want multiplier, models, prices, tiers or note)`}},
		{name: "negative multiplier", extra: "    service_tiers: {batch: {multiplier: -0.5}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: service tier batch multiplier -0.5 is negative`}},
		{name: "region without multiplier", extra: "    regions: {us: {models: [m]}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: region us: multiplier is required`}},
		{name: "region with prices", extra: "    regions: {us: {multiplier: 1.1, prices: {m: {standard: {input: 1, output: 2}}}}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: region us: a region has a multiplier only, not prices or tiers`}},
		{name: "region name", extra: "    regions: {US: {multiplier: 1.1}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: region "US" is not a lowercase name of letters, digits, - and _ (e.g. us, eu)`}},
		{name: "tool in a rate set", extra: "    tiers: {m: [{above: 10, prices: {standard: {input: 1, output: 2, web_search: 10}}}]}\n",
			want: []string{`t.yaml:13: web_search is a tool: price it under the version's tools, not in a rate set`}},
		{name: "model both own and in models", extra: "    service_tiers: {priority: {multiplier: 2, models: [m], prices: {m: {standard: {input: 2, output: 4}}}}}\n",
			want: []string{`t.yaml:13: version 2026-01-01T00:00:00Z: service tier priority: model "m" has prices of its own here and is also in models`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkParseProblems(t, head+version+tt.extra, tt.want)
		})
	}
}

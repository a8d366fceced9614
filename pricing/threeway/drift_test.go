package threeway_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/provider"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestBilledUsage: a usage type billed keeps its name; InTotal is no usage
// type.
func TestBilledUsage(t *testing.T) {
	tests := []struct {
		name   string
		b      threeway.BilledUsage
		str    string
		usage  tariffs.Usage
		isType bool
	}{
		{"cache read", threeway.Billed(tariffs.CacheRead), "cache_read", tariffs.CacheRead, true},
		{"a tool", threeway.Billed(tariffs.WebSearch), "web_search", tariffs.WebSearch, true},
		{"in total", threeway.InTotal, "in total", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok := tt.b.Usage()
			if got := tt.b.String(); got != tt.str || ok != tt.isType || ok && u != tt.usage {
				t.Errorf("String() %q, Usage() %v %v; want %q, %v %v", got, u, ok, tt.str, tt.usage, tt.isType)
			}
		})
	}
}

// driftsOf reads a DeepSeek export and builds its drifts against the
// fixtures' tariffs, without gateway calls.
func driftsOf(t *testing.T, csv string) []threeway.Drift {
	t.Helper()
	x, err := provider.Read(context.Background(), "deepseek.csv", strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	b, err := threeway.New(loadTariffs(t, filepath.Join(fixtures, "tariffs")), pricing.Options{}, provider.ThreeWayRows([]*provider.Export{x}))
	if err != nil {
		t.Fatal(err)
	}
	return b.Build(pricing.Rows{}).Drifts
}

// TestDriftBilledInTotal: a row billed in one amount is compared as a
// whole. Monday 2026-10-12 12:00 UTC is 20:00 in Beijing, off-peak: 3000
// input and 150 output tokens cost 0.00045 + 0.00009 = 0.00054; billed
// 0.00063, a drift of 0.00009, or 0.00063 × 1M / 3150 tokens = 0.2 per 1M
// tokens.
func TestDriftBilledInTotal(t *testing.T) {
	ds := driftsOf(t, `time,model,requests,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens,amount,currency
2026-10-12T12:00:00Z,deepseek-flash,2,0,3000,150,0.00063,USD
`)
	if len(ds) != 1 {
		t.Fatalf("drifts %+v, want one", ds)
	}
	d := ds[0]
	if d.Usage != threeway.InTotal || d.Period != "offpeak" || d.Tokens != 3150 || !d.Official.Equal(dec("0.00054")) ||
		!d.Billed.Equal(dec("0.00063")) || !d.Drift.Equal(dec("0.00009")) || d.Rounding || d.TariffPrice.Valid ||
		!d.BilledPrice.Valid || !d.BilledPrice.Decimal.Equal(dec("0.2")) {
		t.Errorf("drift %+v, want in total, offpeak, 3150 tokens, official 0.00054, billed 0.00063, drift 0.00009, no tariff price, billed price 0.2 per 1M", d)
	}
}

// TestDriftOrder: within one version and period, what was billed in total
// comes first, then each usage type by name. The 12:00 hour is billed in
// total, the 13:00 hour by usage type (both off-peak): 1000 input tokens
// billed 0.00015, 100 output tokens billed 0.00006.
func TestDriftOrder(t *testing.T) {
	ds := driftsOf(t, `time,model,requests,prompt_cache_hit_tokens,prompt_cache_miss_tokens,completion_tokens,cache_miss_amount,output_amount,amount,currency
2026-10-12T12:00:00Z,deepseek-flash,2,0,3000,150,,,0.00054,USD
2026-10-12T13:00:00Z,deepseek-flash,1,0,1000,100,0.00015,0.00006,,USD
`)
	var got []string
	for _, d := range ds {
		got = append(got, d.Usage.String()+" "+d.Billed.String())
	}
	if want := "in total 0.00054, input 0.00015, output 0.00006"; strings.Join(got, ", ") != want {
		t.Errorf("drifts %q, want %q", strings.Join(got, ", "), want)
	}
}

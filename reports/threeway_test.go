package reports

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/tariffs"
)

// sampleThreeWay is one cell whose provider tokens could not be priced
// (no provider_official), with no request counts, billed 0.5 against a
// recorded 0.2: gap 0.3 = recorded_vs_tariff 0.1 + billed_vs_gateway_tokens 0.2.
func sampleThreeWay() *threeway.Reconciliation {
	day := time.Date(2026, 10, 12, 0, 0, 0, 0, time.UTC)
	parts := []threeway.Part{{Kind: threeway.PartRecordedVsTariff, Amount: dec("0.1")}, {Kind: threeway.PartBilledVsGatewayTokens, Amount: dec("0.2")}}
	return &threeway.Reconciliation{
		Rows: pricing.Rows{Read: 1, Priced: 1}, ProviderRows: 2, Keyed: []string{},
		Cells: []threeway.Cell{{Day: day, Provider: "deepseek", Model: "deepseek-flash", Currency: "USD", GatewayCalls: 1,
			GatewayTokens: pricing.TokenCounts{Input: 100}, ProviderTokens: pricing.TokenCounts{Input: 100}, HasUsage: true,
			Recorded: dec("0.2"), Official: dec("0.3"), Billed: dec("0.5"), HasBilled: true,
			Gap: decimal.NewNullDecimal(dec("0.3")), Parts: parts, Note: "the bucket spans more than one rate set"}},
		Providers: []threeway.ProviderTotals{{Provider: "deepseek", Currency: "USD", Cells: 1, GatewayCalls: 1, Recorded: dec("0.2"),
			Official: dec("0.3"), ProviderOfficial: decimal.Zero, Billed: dec("0.5"), HasBilled: true,
			Gap: decimal.NewNullDecimal(dec("0.3")), Parts: parts}},
		Drifts: []threeway.Drift{},
	}
}

func TestThreeWayJSONAndYAML(t *testing.T) {
	tw := sampleThreeWay()
	js := render(t, JSON, func(b *bytes.Buffer, f Format) error { return ThreeWay(b, f, tw) })
	ys := render(t, YAML, func(b *bytes.Buffer, f Format) error { return ThreeWay(b, f, tw) })
	var fromJSON, fromYAML any
	if err := json.Unmarshal([]byte(js), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(ys), &fromYAML); err != nil {
		t.Fatal(err)
	}
	// YAML reads integers as int, JSON as float64: compare through JSON.
	again, _ := json.Marshal(fromYAML)
	var normalized any
	json.Unmarshal(again, &normalized)
	if !reflect.DeepEqual(fromJSON, normalized) {
		t.Errorf("YAML is not the JSON document:\n%s\n%s", js, ys)
	}
	for _, want := range []string{`"provider_official": ""`, `"provider_requests": null`, `"gap": "0.3"`,
		`"kind": "billed_vs_gateway_tokens"`, `"note": "the bucket spans more than one rate set"`} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON lacks %s:\n%s", want, js)
		}
	}
}

func TestThreeWayCSVColumns(t *testing.T) {
	out := render(t, CSV, func(b *bytes.Buffer, f Format) error { return ThreeWay(b, f, sampleThreeWay()) })
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want a header and one cell", len(lines))
	}
	header, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	got := map[string]string{}
	for i, h := range header {
		got[h] = row[i]
	}
	for col, want := range map[string]string{"provider_requests": "", "provider_official": "", "billed": "0.5", "gap": "0.3",
		"recorded_vs_tariff": "0.1", "billed_vs_gateway_tokens": "0.2", "tariff_drift": "0", "currency": "USD"} {
		if got[col] != want {
			t.Errorf("column %s = %q, want %q", col, got[col], want)
		}
	}
	if header[len(header)-1] != "currency" {
		t.Errorf("last column %q, want currency", header[len(header)-1])
	}
}

// TestThreeWayDriftUsage: JSON spells a drift billed in total with an
// empty usage (the contract, docs/provider-usage.md), the table as "(billed
// in total)", and a usage type by its name in both; a tool's uses are
// counted as uses.
func TestThreeWayDriftUsage(t *testing.T) {
	day := time.Date(2026, 10, 12, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		usage     threeway.BilledUsage
		json      string
		tableLine string
	}{
		{"in total", threeway.InTotal, `"usage": ""`, "deepseek deepseek-flash version v1 offpeak (billed in total), 2026-10-12 to 2026-10-12: 3150 tokens"},
		{"a usage type", threeway.Billed(tariffs.CacheRead), `"usage": "cache_read"`, "deepseek deepseek-flash version v1 offpeak cache_read, 2026-10-12 to 2026-10-12: 3150 tokens"},
		{"a tool", threeway.Billed(tariffs.WebSearch), `"usage": "web_search"`, "deepseek deepseek-flash version v1 offpeak web_search, 2026-10-12 to 2026-10-12: 3150 uses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := sampleThreeWay()
			tw.Drifts = []threeway.Drift{{Provider: "deepseek", Model: "deepseek-flash", Version: "v1", Period: "offpeak", Usage: tt.usage,
				First: day, Last: day, Tokens: 3150, Official: dec("0.00054"), Billed: dec("0.00063"), Drift: dec("0.00009")}}
			js := render(t, JSON, func(b *bytes.Buffer, f Format) error { return ThreeWay(b, f, tw) })
			table := render(t, Table, func(b *bytes.Buffer, f Format) error { return ThreeWay(b, f, tw) })
			if !strings.Contains(js, tt.json) {
				t.Errorf("JSON lacks %s:\n%s", tt.json, js)
			}
			if !strings.Contains(table, tt.tableLine) {
				t.Errorf("table lacks %q:\n%s", tt.tableLine, table)
			}
		})
	}
}

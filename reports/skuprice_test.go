package reports

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// peakTariff: a flat first version, then one with weekday peak hours in
// Shanghai, a tier for long prompts and a batch tier at half price;
// holidays priced as Sundays.
const peakTariff = `provider: acme
display_name: ACME
service_name: ACME Inference
currency: USD
timezone: Asia/Shanghai
billing_time: end
sources:
  - {url: https://example.com/old, checked: 2026-10-01, kind: official}
  - {url: https://example.com/pricing, checked: 2026-11-30, kind: official}
models:
  - id: acme-1
calendar:
  holidays_as: sun
  holidays:
    - {date: 2026-10-01, name: National Day}
versions:
  - effective: 2026-01-01T00:00:00Z
    name: flat
    prices:
      acme-1:
        standard: {input: 1.00, output: 4.00}
  - effective: 2026-09-30T16:00:00Z
    name: peak
    default_period: offpeak
    periods:
      - name: peak
        weekdays: [mon, tue, wed, thu, fri]
        windows: ["09:00-12:00", "14:00-18:00"]
    prices:
      acme-1:
        offpeak: {input: 0.50, cache_read: 0.05, output: 2.00, request: 0.001}
        peak: {input: 1.00, cache_read: 0.10, output: 4.00, request: 0.001}
    tiers:
      acme-1:
        - above: 128000
          prices:
            offpeak: {input: 1.00, cache_read: 0.10, output: 4.00}
            peak: {input: 2.00, cache_read: 0.20, output: 8.00}
    service_tiers:
      batch: {multiplier: 0.5}
`

func peakCatalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	p, ps := tariffs.Parse("acme.yaml", []byte(peakTariff))
	if p == nil {
		t.Fatal(ps)
	}
	cat, ps := tariffs.New([]*tariffs.Provider{p})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return cat
}

// TestWriteFOCUSSkuPrice writes the SKU Price dataset of peakTariff and
// checks the rows by SkuPriceId, worked by hand.
func TestWriteFOCUSSkuPrice(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteFOCUSSkuPrice(&buf, peakCatalog(t), FOCUSSheetSafe); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]map[string]string{}
	for _, rec := range records[1:] {
		r := map[string]string{}
		for j, h := range records[0] {
			r[h] = rec[j]
		}
		if rows[r["SkuPriceId"]] != nil {
			t.Errorf("SkuPriceId %s twice", r["SkuPriceId"])
		}
		rows[r["SkuPriceId"]] = r
	}
	// flat: input, cache read and 5-minute write (both at the input
	// price) and output: 4 rows; no request fee or reasoning price listed.
	// peak: per period (2), base and tier (2), standard and batch (2):
	// 8 rate sets; the base ones price input, cache read, cache write (at
	// input), output and request: 4 × 5 = 20 rows; the tier ones no
	// request: 4 × 4 = 16 rows.
	if got, want := len(rows), 4+20+16; got != want {
		t.Errorf("%d rows, want %d", got, want)
	}
	tests := []struct {
		id   string
		want map[string]string
	}{
		{"acme@flat/acme-1/input/standard", map[string]string{"UnitPrice": "1", "SkuPriceEffectiveStart": "2026-01-01T00:00:00Z",
			"SkuPriceEffectiveEnd": "2026-09-30T16:00:00Z", "x_PeriodDefault": "true", "x_PeriodWindows": "", "PricingUnit": "1000000 Tokens",
			"ServiceProviderName": "ACME", "PricingServiceName": "ACME Inference", "PricingCurrency": "USD", "UnitPriceType": "List",
			"ChargeCategory": "Usage", "PricingCurrencyCategory": "Payable", "ContractId": "", "SkuId": "acme-1/input",
			"SkuPriceLastUpdated": "2026-11-30T00:00:00Z", "SkuPriceEligibility": `{"IsGlobalScope":true}`,
			"x_HolidaysAs": "sun", "x_TimeZone": "Asia/Shanghai"}},
		{"acme@flat/acme-1/cache_write/standard", map[string]string{"UnitPrice": "1", "x_UsageType": "cache_write"}},
		{"acme@peak/acme-1/input/peak", map[string]string{"UnitPrice": "1", "SkuPriceEffectiveEnd": "", "x_PeriodDefault": "false",
			"x_PeriodWeekdays": "mon,tue,wed,thu,fri", "x_PeriodWindows": "09:00-12:00;14:00-18:00", "x_PromptTier": "0"}},
		{"acme@peak/acme-1/cache_read/offpeak", map[string]string{"UnitPrice": "0.05", "x_PeriodDefault": "true",
			"x_SkuPriceDetails": `{"x_TariffVersion":"acme@peak","x_PricingPeriod":"offpeak","x_PromptTier":0,"x_ModelDeveloper":"ACME","x_ModelId":"acme-1","x_TokenCacheAction":"Read","x_TokenDirection":"Input"}`}},
		{"acme@peak/acme-1/request/peak", map[string]string{"UnitPrice": "0.001", "PricingUnit": "Requests"}},
		// tier 1 of the peak period: 2.00 input; batch halves it to 1.
		{"acme@peak/acme-1/input/peak/tier1", map[string]string{"UnitPrice": "2", "x_PromptTier": "1", "x_PromptTokensAbove": "128000"}},
		{"acme@peak/acme-1/input/peak/tier1/batch", map[string]string{"UnitPrice": "1", "x_ServiceTier": "batch"}},
		{"acme@peak/acme-1/output/offpeak/batch", map[string]string{"UnitPrice": "1", "x_ServiceTier": "batch"}},
	}
	for _, tt := range tests {
		r := rows[tt.id]
		if r == nil {
			t.Errorf("no row %s", tt.id)
			continue
		}
		for col, v := range tt.want {
			if r[col] != v {
				t.Errorf("%s: %s = %q, want %q", tt.id, col, r[col], v)
			}
		}
	}
	for _, id := range []string{"acme@flat/acme-1/request/standard", "acme@flat/acme-1/reasoning/standard", "acme@peak/acme-1/request/peak/tier1", "acme@peak/acme-1/cache_write_1h/peak"} {
		if rows[id] != nil {
			t.Errorf("row %s for a price the tariff does not list", id)
		}
	}
}

// TestFOCUSVersions writes one priced call in each version: 1.3 adds
// ServiceProviderName and HostProviderName in their alphabetical places
// and the AI keys in SkuPriceDetails; names are the provider's own.
func TestFOCUSVersions(t *testing.T) {
	cat := peakCatalog(t)
	end := time.Date(2026, 10, 12, 2, 0, 0, 0, time.UTC) // Monday 10:00 in Shanghai: peak
	call := ledger.Call{RequestID: "a", Identity: "a", Gateway: ledger.LiteLLM, Start: end.Add(-time.Second), End: end, Model: "acme-1", Key: "k",
		Tokens: ledger.Tokens{Input: 1000, CacheRead: 2000, Output: 100}}
	from := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		version FOCUSVersion
		columns int
		want    map[string]string // of the cache read row
		absent  []string
	}{
		{FOCUS12, len(FOCUSColumns), map[string]string{"ProviderName": "ACME", "PublisherName": "ACME", "InvoiceIssuerName": "ACME",
			"ServiceName": "ACME Inference", "BillingAccountId": "acme", "BillingAccountName": "ACME via the gateway",
			"SkuPriceDetails": `{"x_TariffVersion":"acme@peak","x_PricingPeriod":"peak","x_PromptTier":0}`},
			[]string{"ServiceProviderName", "HostProviderName"}},
		{FOCUS13, len(FOCUSColumns) + 2, map[string]string{"ProviderName": "ACME", "ServiceProviderName": "ACME", "HostProviderName": "ACME",
			"ServiceName":     "ACME Inference",
			"SkuPriceDetails": `{"x_TariffVersion":"acme@peak","x_PricingPeriod":"peak","x_PromptTier":0,"x_ModelDeveloper":"ACME","x_ModelId":"acme-1","x_TokenCacheAction":"Read","x_TokenDirection":"Input"}`}, nil},
		{FOCUS14, len(FOCUSColumns), map[string]string{"ServiceProviderName": "ACME", "HostProviderName": "ACME", "InvoiceIssuerName": "ACME",
			"ServiceName":     "ACME Inference",
			"SkuPriceDetails": `{"x_TariffVersion":"acme@peak","x_PricingPeriod":"peak","x_PromptTier":0,"x_ModelDeveloper":"ACME","x_ModelId":"acme-1","x_TokenCacheAction":"Read","x_TokenDirection":"Input"}`},
			[]string{"ProviderName", "PublisherName"}},
	}
	for _, tt := range tests {
		t.Run(tt.version.String(), func(t *testing.T) {
			e := pricing.New(cat, pricing.Options{Dims: pricing.MonthDims, Since: from, Until: from.AddDate(0, 1, 0)})
			c := call
			e.AddPriced(&c)
			var buf bytes.Buffer
			if err := WriteFOCUS(&buf, e.Charges().All(), from, from.AddDate(0, 1, 0), FOCUSFormat{Version: tt.version}); err != nil {
				t.Fatal(err)
			}
			records, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			header := records[0]
			if len(header) != tt.columns {
				t.Fatalf("%d columns, want %d", len(header), tt.columns)
			}
			for i := 1; i < len(header) && header[i][0] != 'x' && header[i-1][0] != 'x'; i++ {
				if header[i-1] > header[i] {
					t.Errorf("FOCUS columns out of alphabetical order: %s before %s", header[i-1], header[i])
				}
			}
			var got map[string]string
			for _, rec := range records[1:] {
				r := map[string]string{}
				for j, h := range header {
					r[h] = rec[j]
				}
				if r["x_UsageType"] == "cache_read" {
					got = r
				}
			}
			if got == nil {
				t.Fatal("no cache_read row")
			}
			for col, v := range tt.want {
				if got[col] != v {
					t.Errorf("%s = %q, want %q", col, got[col], v)
				}
			}
			for _, col := range tt.absent {
				if _, ok := got[col]; ok {
					t.Errorf("column %s in FOCUS %s", col, tt.version)
				}
			}
		})
	}
}

// TestFOCUSVersionSet: the flag takes the versions the export writes and
// names them on anything else.
func TestFOCUSVersionSet(t *testing.T) {
	tests := []struct {
		in      string
		want    FOCUSVersion
		wantErr bool
	}{
		{in: "1.2", want: FOCUS12},
		{in: "1.3", want: FOCUS13},
		{in: "1.4", want: FOCUS14},
		{in: "1.5", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		var v FOCUSVersion
		err := v.Set(tt.in)
		if (err != nil) != tt.wantErr || (err == nil && v != tt.want) {
			t.Errorf("Set(%q) = %v, %v; want %v, error %v", tt.in, v, err, tt.want, tt.wantErr)
		}
	}
}

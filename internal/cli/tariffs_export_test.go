package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestTariffsExportSkuPrice exports the embedded catalog as a SKU Price
// dataset and checks it against the dataset's requirements in the FOCUS
// 1.5 draft (FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec
// specification/datasets/sku_price/dataset.md@0078d794): its mandatory
// columns are present, those that allow no nulls have none, no two rows
// share ServiceProviderName, SkuPriceId, ContractId, SkuPriceEffectiveStart,
// PricingCurrency and UnitPriceType, and the rows of one SkuPriceId do not
// overlap in time. Then it joins the sample month's FOCUS 1.3 export to it
// as the draft joins the datasets: every Usage row finds its price.
func TestTariffsExportSkuPrice(t *testing.T) {
	dir := t.TempDir()
	skuPath, focusPath := filepath.Join(dir, "sku.csv"), filepath.Join(dir, "focus.csv")
	if code, _, stderr := runCLI(t, "", "tariffs", "export", "--focus-sku-price", "--out", skuPath); code != 0 {
		t.Fatalf("tariffs export: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "report", "--calls", sample, "--month", "2026-10", "--focus", focusPath, "--focus-version", "1.3"); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	sku := readFOCUSDataset(t, skuPath)
	notNull := []string{"ChargeCategory", "PricingCurrency", "PricingCurrencyCategory", "PricingServiceName", "PricingUnit",
		"ServiceProviderName", "SkuId", "SkuPriceCreated", "SkuPriceDescription", "SkuPriceEligibility", "SkuPriceId",
		"SkuPriceLastUpdated", "UnitPrice", "UnitPriceType"}
	mandatory := append([]string{"ContractId", "SkuPriceEffectiveEnd", "SkuPriceEffectiveStart"}, notNull...)
	for _, c := range mandatory {
		if !strings.Contains(","+strings.Join(sku.header, ",")+",", ","+c+",") {
			t.Errorf("mandatory column %s missing", c)
		}
	}
	byID := map[string]map[string]string{}
	seen := map[string]bool{}
	for i, r := range sku.rows {
		for _, c := range notNull {
			if r[c] == "" {
				t.Fatalf("line %d: %s is null", i+2, c)
			}
		}
		key := strings.Join([]string{r["ServiceProviderName"], r["SkuPriceId"], r["ContractId"], r["SkuPriceEffectiveStart"],
			r["PricingCurrency"], r["UnitPriceType"]}, "|")
		if seen[key] {
			t.Fatalf("line %d: two rows of %s", i+2, key)
		}
		seen[key] = true
		// A SkuPriceId names its version, so one id has one row: its
		// effective period cannot overlap another of the same id.
		if byID[r["SkuPriceId"]] != nil {
			t.Fatalf("line %d: SkuPriceId %s has two rows", i+2, r["SkuPriceId"])
		}
		byID[r["SkuPriceId"]] = r
		if end := r["SkuPriceEffectiveEnd"]; end != "" && end <= r["SkuPriceEffectiveStart"] {
			t.Fatalf("line %d: effective end %s not after start %s", i+2, end, r["SkuPriceEffectiveStart"])
		}
	}
	joined, standard := 0, 0
	for i, r := range readFOCUSDataset(t, focusPath).rows {
		if r["ChargeCategory"] != "Usage" {
			continue
		}
		s := byID[r["SkuPriceId"]]
		if s == nil {
			// A service tier the version does not price is charged at the
			// standard rates; its SkuPriceId keeps the tier it was served in.
			s = byID[strings.TrimSuffix(r["SkuPriceId"], "/"+r["x_ServiceTier"])]
			standard++
		}
		if s == nil {
			t.Fatalf("focus line %d: SkuPriceId %s is not in the SKU Price dataset", i+2, r["SkuPriceId"])
		}
		if !decimal.RequireFromString(s["UnitPrice"]).Equal(decimal.RequireFromString(r["ListUnitPrice"])) {
			t.Errorf("focus line %d: %s: ListUnitPrice %s, SKU Price %s", i+2, r["SkuPriceId"], r["ListUnitPrice"], s["UnitPrice"])
		}
		if s["ServiceProviderName"] != r["ServiceProviderName"] || s["PricingCurrency"] != r["BillingCurrency"] {
			t.Errorf("focus line %d: provider %s %s, SKU Price %s %s", i+2, r["ServiceProviderName"], r["BillingCurrency"],
				s["ServiceProviderName"], s["PricingCurrency"])
		}
		// The charge's day overlaps the price's effective period (a day a
		// version changed in starts before it).
		if r["ChargePeriodEnd"] <= s["SkuPriceEffectiveStart"] || (s["SkuPriceEffectiveEnd"] != "" && r["ChargePeriodStart"] >= s["SkuPriceEffectiveEnd"]) {
			t.Errorf("focus line %d: charged %s to %s, price effective %s to %s", i+2, r["ChargePeriodStart"], r["ChargePeriodEnd"],
				s["SkuPriceEffectiveStart"], s["SkuPriceEffectiveEnd"])
		}
		if s["SkuPriceId"] == r["SkuPriceId"] && s["x_SkuPriceDetails"] != r["SkuPriceDetails"] {
			t.Errorf("focus line %d: SkuPriceDetails %s, SKU Price %s", i+2, r["SkuPriceDetails"], s["x_SkuPriceDetails"])
		}
		joined++
	}
	if joined < 10000 || standard > 30 {
		t.Errorf("%d Usage rows joined, %d of them at standard rates: want the sample's 10319, 26", joined, standard)
	}
}

// TestTariffsExportNeedsFormat: export without a format is a usage error.
func TestTariffsExportNeedsFormat(t *testing.T) {
	code, _, stderr := runCLI(t, "", "tariffs", "export")
	if code != exitUsage || !strings.Contains(stderr, "--focus-sku-price") {
		t.Errorf("exit %d, stderr %q; want %d naming --focus-sku-price", code, stderr, exitUsage)
	}
}

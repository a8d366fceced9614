package reports

import (
	"bytes"
	"encoding/csv"
	"iter"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// focusRecords writes the charges of calls priced for September 2026 as
// FOCUS and returns its rows by column name.
func focusRecords(t *testing.T, calls []ledger.Call) []map[string]string {
	t.Helper()
	_, e := september(t, calls)
	return focusRows(t, e.Charges().All())
}

// focusRows writes charges of September 2026 as FOCUS and returns its rows
// by column name.
func focusRows(t *testing.T, charges iter.Seq2[pricing.Charge, error]) []map[string]string {
	t.Helper()
	var buf bytes.Buffer
	from := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	if err := WriteFOCUS(&buf, charges, from, from.AddDate(0, 1, 0), FOCUSFormat{Text: FOCUSSheetSafe}); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, rec := range records[1:] {
		r := map[string]string{}
		for j, h := range records[0] {
			r[h] = rec[j]
		}
		rows = append(rows, r)
	}
	return rows
}

// TestFOCUSAdjustmentRows: calls that are not priced are Adjustment rows
// of no cost, no price and no quantity, whose x_ columns carry their
// calls, tokens and recorded spend.
func TestFOCUSAdjustmentRows(t *testing.T) {
	unknown := flashCall("u", "2026-09-01T02:00:00Z", "ci-bot", "alpha", "u1")
	unknown.Model, unknown.ModelGroup = "=acme-9", "=acme-9"
	unknown.Recorded = ledger.AmountOf(decimal.RequireFromString("0.0123"))
	failed := flashCall("f", "2026-09-01T03:00:00Z", "ci-bot", "alpha", "u1")
	failed.Status, failed.Tokens = ledger.StatusFailure, ledger.Tokens{}
	rows := focusRecords(t, []ledger.Call{unknown, failed, failed})
	// By key: k-f's failed row (its second copy makes no row), then k-u's =acme-9 input and output (1000 and 100 tokens, all its
	// spend on the first; the name made safe for a spreadsheet).
	want := []map[string]string{
		{"x_Outcome": "failed", "x_Model": "flash", "x_Calls": "1", "x_RequestCount": "1", "x_Tokens": "0", "x_RecordedCost": "0.0001",
			"x_CostGap": "-0.0001", "ProviderName": "edgeco", "BillingCurrency": "USD"},
		{"x_Outcome": "unpriced", "x_Model": "'=acme-9", "x_UsageType": "input", "x_Calls": "1", "x_Tokens": "1000", "x_RecordedCost": "0.0123",
			"ProviderName": "(unknown provider)", "BillingCurrency": "USD"},
		{"x_Outcome": "unpriced", "x_UsageType": "output", "x_Calls": "0", "x_Tokens": "100", "x_RecordedCost": "0"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(rows), len(want), rows)
	}
	for i, w := range want {
		r := rows[i]
		if r["ChargeCategory"] != "Adjustment" || r["BilledCost"] != "0" || r["ListCost"] != "0" || r["EffectiveCost"] != "0" ||
			r["ContractedCost"] != "0" || r["ListUnitPrice"] != "" || r["PricingQuantity"] != "" || r["ConsumedQuantity"] != "" || r["SkuId"] != "" {
			t.Errorf("row %d is not an Adjustment of no cost, price or quantity: %v", i+1, r)
		}
		for col, v := range w {
			if r[col] != v {
				t.Errorf("row %d: %s = %q, want %q", i+1, col, r[col], v)
			}
		}
	}
}

// TestFOCUSRows writes one hand-priced call and checks its rows column by column.
func TestFOCUSRows(t *testing.T) {
	c := flashCall("a", "2026-09-01T02:00:00Z", "ci-bot", "alpha", "u1")
	c.Tokens.Input = 100_000
	_, e := september(t, []ledger.Call{c})
	var buf bytes.Buffer
	from := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	if err := WriteFOCUS(&buf, e.Charges().All(), from, from.AddDate(0, 1, 0), FOCUSFormat{Text: FOCUSSheetSafe}); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 3 {
		t.Fatalf("%d records, want a header and two rows (input, output)", len(records))
	}
	// Tuesday 10:00 in Shanghai: peak, 0.30 input and 1.20 output per 1M.
	// Input: 100000 tokens = 0.1 × 1M, × 0.30 = 0.03. Output: 100 tokens =
	// 0.0001 × 1M, × 1.20 = 0.00012. Recorded 0.0001 split by cost share:
	// 0.0001 × 0.03/0.03012 = 0.000099601593|6... → 0.000099601594, and the
	// rest, 0.000000398406, on output.
	want := []map[string]string{
		{"ListCost": "0.03", "ListUnitPrice": "0.3", "PricingQuantity": "0.1", "PricingUnit": "1000000 Tokens",
			"ConsumedQuantity": "100000", "ConsumedUnit": "Tokens", "BilledCost": "0.03", "EffectiveCost": "0.03",
			"SkuId": "flash/input", "SkuPriceId": "edgeco@peak/flash/input/peak", "SkuMeter": "Input Tokens",
			"ChargePeriodStart": "2026-09-01T00:00:00Z", "ChargePeriodEnd": "2026-09-02T00:00:00Z",
			"BillingPeriodStart": "2026-09-01T00:00:00Z", "BillingPeriodEnd": "2026-10-01T00:00:00Z",
			"SubAccountId": "k-a", "SubAccountName": "ci-bot", "SubAccountType": "API Key", "Tags": `{"team":"alpha","user":"u1"}`,
			"BillingCurrency": "USD", "ChargeCategory": "Usage", "ChargeClass": "", "ServiceCategory": "AI and Machine Learning",
			"x_PricingPeriod": "peak", "x_PeakPeriod": "true", "x_RecordedCost": "0.000099601594", "x_CostGap": "0.029900398406",
			"x_RequestCount": "1", "x_ChargeDay": "2026-09-01", "x_Outcome": "priced", "x_Model": "flash", "x_Calls": "1", "x_Tokens": "100000"},
		{"ListCost": "0.00012", "ListUnitPrice": "1.2", "PricingQuantity": "0.0001", "ConsumedQuantity": "100",
			"SkuPriceId": "edgeco@peak/flash/output/peak", "x_UsageType": "output", "x_RecordedCost": "0.000000398406",
			"x_RequestCount": "1", "x_Calls": "0", "x_Tokens": "100"},
	}
	for i, w := range want {
		got := map[string]string{}
		for j, h := range records[0] {
			got[h] = records[i+1][j]
		}
		for col, v := range w {
			if got[col] != v {
				t.Errorf("row %d: %s = %q, want %q", i+1, col, got[col], v)
			}
		}
	}
}

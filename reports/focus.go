package reports

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// FOCUSVersion is the version of the FinOps Open Cost and Usage
// Specification the export follows.
const FOCUSVersion = "1.2"

// FOCUSColumns are the export's columns: FOCUS columns first, in
// alphabetical order, then tokenfare's own, prefixed x_. docs/focus.md
// states what each carries.
var FOCUSColumns = []string{
	"BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency", "BillingPeriodEnd", "BillingPeriodStart",
	"ChargeCategory", "ChargeClass", "ChargeDescription", "ChargeFrequency", "ChargePeriodEnd", "ChargePeriodStart",
	"ConsumedQuantity", "ConsumedUnit", "ContractedCost", "ContractedUnitPrice", "EffectiveCost", "InvoiceId",
	"InvoiceIssuerName", "ListCost", "ListUnitPrice", "PricingCategory", "PricingQuantity", "PricingUnit",
	"ProviderName", "PublisherName", "ServiceCategory", "ServiceName", "ServiceSubcategory", "SkuId", "SkuMeter",
	"SkuPriceDetails", "SkuPriceId", "SubAccountId", "SubAccountName", "SubAccountType", "Tags",
	"x_ChargeDay", "x_TimeZone", "x_TariffVersion", "x_PricingPeriod", "x_PeakPeriod", "x_PromptTier", "x_UsageType",
	"x_RequestCount", "x_RecordedCost", "x_CostGap",
}

// FOCUSMandatory are the columns FOCUS 1.2 requires in every dataset.
var FOCUSMandatory = []string{
	"BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency", "BillingPeriodEnd", "BillingPeriodStart",
	"ChargeCategory", "ChargeClass", "ChargeDescription", "ChargePeriodEnd", "ChargePeriodStart", "ContractedCost",
	"EffectiveCost", "InvoiceIssuerName", "ListCost", "PricingQuantity", "PricingUnit", "ProviderName",
	"PublisherName", "ServiceCategory", "ServiceName",
}

// focusTime is FOCUS's Date/Time format: ISO 8601 extended, UTC.
const focusTime = "2006-01-02T15:04:05Z"

// Units of PricingUnit and ConsumedUnit.
const (
	unitMillionTokens = "1000000 Tokens"
	unitTokens        = "Tokens"
	unitRequests      = "Requests"
)

var meterNames = [tariffs.NumUsage]string{"Input Tokens", "Cache Read Tokens", "Cache Write Tokens", "Output Tokens", "Reasoning Tokens", "Requests"}

// WriteFOCUS writes charges as a FOCUS 1.2 cost and usage dataset in CSV:
// one row per charge, for the billing period [from, until). Every charge
// is at list price, so the list, contracted, billed and effective costs
// are all the official cost; the gateway's recorded spend is x_RecordedCost.
func WriteFOCUS(w io.Writer, charges []pricing.Charge, from, until time.Time) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(FOCUSColumns); err != nil {
		return err
	}
	bps, bpe := from.UTC().Format(focusTime), until.UTC().Format(focusTime)
	for i := range charges {
		row, err := focusRow(&charges[i], bps, bpe)
		if err != nil {
			return err
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func focusRow(c *pricing.Charge, bps, bpe string) ([]string, error) {
	p := c.Model.Provider
	u := c.Usage
	pricingUnit, consumedUnit := unitMillionTokens, unitTokens
	if u == tariffs.Request {
		pricingUnit, consumedUnit = unitRequests, unitRequests
	}
	qty, pq := fmt.Sprint(c.Quantity), pricingQuantity(c)
	versionID := p.Name + "@" + c.Version.Name
	skuID := c.Model.ID + "/" + u.String()
	skuPriceID := versionID + "/" + skuID + "/" + c.Period
	if c.Tier > 0 {
		skuPriceID += fmt.Sprintf("/tier%d", c.Tier)
	}
	details, err := jsonObject(map[string]any{"x_TariffVersion": versionID, "x_PricingPeriod": c.Period, "x_PromptTier": c.Tier})
	if err != nil {
		return nil, err
	}
	tags := map[string]any{}
	if c.Team != "" {
		tags["team"] = c.Team
	}
	if c.User != "" {
		tags["user"] = c.User
	}
	tagText, err := jsonObject(tags)
	if err != nil {
		return nil, err
	}
	cost := c.Cost.String()
	desc := fmt.Sprintf("%s %s, %s period, tariff %s", c.Model.ID, strings.ToLower(meterNames[u]), c.Period, versionID)
	values := map[string]string{
		"BilledCost": cost, "BillingAccountId": p.Name, "BillingAccountName": p.Name + " via the gateway",
		"BillingCurrency": p.Currency, "BillingPeriodEnd": bpe, "BillingPeriodStart": bps,
		"ChargeCategory": "Usage", "ChargeClass": "", "ChargeDescription": desc, "ChargeFrequency": "Usage-Based",
		"ChargePeriodEnd": c.End.UTC().Format(focusTime), "ChargePeriodStart": c.Start.UTC().Format(focusTime),
		"ConsumedQuantity": qty, "ConsumedUnit": consumedUnit, "ContractedCost": cost, "ContractedUnitPrice": c.UnitPrice.String(),
		"EffectiveCost": cost, "InvoiceId": "", "InvoiceIssuerName": p.Name, "ListCost": cost, "ListUnitPrice": c.UnitPrice.String(),
		"PricingCategory": "Standard", "PricingQuantity": pq, "PricingUnit": pricingUnit,
		"ProviderName": p.Name, "PublisherName": p.Name, "ServiceCategory": "AI and Machine Learning",
		"ServiceName": p.Name + " API", "ServiceSubcategory": "Generative AI", "SkuId": skuID, "SkuMeter": meterNames[u],
		"SkuPriceDetails": details, "SkuPriceId": skuPriceID, "SubAccountId": c.Key, "SubAccountName": c.KeyAlias,
		"SubAccountType": "API Key", "Tags": tagText,
		"x_ChargeDay": c.Start.Format(time.DateOnly), "x_TimeZone": c.Start.Location().String(),
		"x_TariffVersion": versionID, "x_PricingPeriod": c.Period, "x_PeakPeriod": fmt.Sprint(c.Peak),
		"x_PromptTier": fmt.Sprint(c.Tier), "x_UsageType": u.String(), "x_RequestCount": fmt.Sprint(c.Calls),
		"x_RecordedCost": c.Recorded.String(), "x_CostGap": c.Cost.Sub(c.Recorded).String(),
	}
	row := make([]string, len(FOCUSColumns))
	for i, col := range FOCUSColumns {
		row[i] = values[col]
	}
	return row, nil
}

// pricingQuantity is the charge's quantity in its pricing unit: tokens in
// millions (exact, a shift of the decimal point), or calls.
func pricingQuantity(c *pricing.Charge) string {
	q := decimal.NewFromInt(c.Quantity)
	if c.Usage == tariffs.Request {
		return q.String()
	}
	return q.Shift(-6).String()
}

// jsonObject writes a FOCUS key-value column; empty when there is nothing.
func jsonObject(m map[string]any) (string, error) {
	if len(m) == 0 {
		return "", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

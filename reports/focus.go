package reports

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"iter"
	"slices"
	"strconv"
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
	"x_RequestCount", "x_RecordedCost", "x_CostGap", "x_ServiceTier", "x_Region",
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

// meterNames are the SkuMeter of each usage type: the 5-minute (or
// unspecified) and 1-hour cache writes are meters of their own, as each
// tool is.
var meterNames = [tariffs.NumUsage]string{
	tariffs.Input: "Input Tokens", tariffs.CacheRead: "Cache Read Tokens", tariffs.CacheWrite: "Cache Write Tokens",
	tariffs.CacheWrite1h: "Cache Write Tokens (1h)", tariffs.Output: "Output Tokens", tariffs.Reasoning: "Reasoning Tokens",
	tariffs.Request: "Requests", tariffs.WebSearch: "Web Searches", tariffs.WebFetch: "Web Fetches", tariffs.FileSearch: "File Searches",
}

// FOCUSText says how the export writes text cells from input.
type FOCUSText int

const (
	// FOCUSSheetSafe writes a text cell that a spreadsheet would read as a
	// formula with a single quote in front (see sheetText): the default,
	// since FOCUS files are opened in spreadsheets too.
	FOCUSSheetSafe FOCUSText = iota
	// FOCUSRaw writes every cell as it is, for FOCUS tools that load the
	// file as data and would keep the quote as part of the name.
	FOCUSRaw
)

// focusTextColumns are the columns whose text comes from input: model and
// provider names, tariff versions and periods, keys, key aliases.
var focusTextColumns = []string{"BillingAccountId", "BillingAccountName", "ChargeDescription", "InvoiceIssuerName",
	"ProviderName", "PublisherName", "ServiceName", "SkuId", "SkuPriceId", "SubAccountId", "SubAccountName",
	"x_TariffVersion", "x_PricingPeriod"}

// WriteFOCUS writes charges as a FOCUS 1.2 cost and usage dataset in CSV:
// one row per charge, for the billing period [from, until). Every charge
// is at list price, so the list, contracted, billed and effective costs
// are all the official cost; the gateway's recorded spend is x_RecordedCost.
// text says whether text cells from input are made safe for spreadsheets.
func WriteFOCUS(w io.Writer, charges iter.Seq[pricing.Charge], from, until time.Time, text FOCUSText) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(FOCUSColumns); err != nil {
		return err
	}
	var texts []int
	for i, c := range FOCUSColumns {
		if slices.Contains(focusTextColumns, c) {
			texts = append(texts, i)
		}
	}
	bps, bpe := from.UTC().Format(focusTime), until.UTC().Format(focusTime)
	for c := range charges {
		row, err := focusRow(&c, bps, bpe)
		if err != nil {
			return err
		}
		if text == FOCUSSheetSafe {
			for _, i := range texts {
				row[i] = sheetText(row[i])
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// focusDetails is SkuPriceDetails: tokenfare's own keys, prefixed x_.
type focusDetails struct {
	TariffVersion string `json:"x_TariffVersion"`
	PricingPeriod string `json:"x_PricingPeriod"`
	PromptTier    int    `json:"x_PromptTier"`
	ServiceTier   string `json:"x_ServiceTier,omitempty"` // when not standard
	Region        string `json:"x_Region,omitempty"`
}

// focusTags are the Tags of a row.
type focusTags struct {
	Team string `json:"team,omitempty"`
	User string `json:"user,omitempty"`
}

// focusRow returns a charge's values in the order of FOCUSColumns.
func focusRow(c *pricing.Charge, bps, bpe string) ([]string, error) {
	p := c.Model.Provider
	u := c.Usage
	pricingUnit, consumedUnit := unitMillionTokens, unitTokens
	if !u.IsToken() {
		pricingUnit, consumedUnit = unitRequests, unitRequests // a call, or one use of a tool
	}
	versionID := p.Name + "@" + c.Version.Name
	skuID := c.Model.ID + "/" + u.String()
	skuPriceID := versionID + "/" + skuID + "/" + c.Period
	if c.Tier > 0 {
		skuPriceID += "/tier" + strconv.Itoa(c.Tier)
	}
	service := ""
	if c.ServiceTier != tariffs.Standard {
		service = c.ServiceTier.String()
		skuPriceID += "/" + service
	}
	if c.Region != "" {
		skuPriceID += "/region-" + c.Region
	}
	details, err := json.Marshal(focusDetails{TariffVersion: versionID, PricingPeriod: c.Period, PromptTier: c.Tier,
		ServiceTier: service, Region: c.Region})
	if err != nil {
		return nil, err
	}
	tags := ""
	if c.Team != "" || c.User != "" {
		b, err := json.Marshal(focusTags{Team: c.Team, User: c.User})
		if err != nil {
			return nil, err
		}
		tags = string(b)
	}
	cost, price := c.Cost.String(), c.UnitPrice.String()
	desc := c.Model.ID + " " + strings.ToLower(meterNames[u]) + ", " + c.Period + " period, tariff " + versionID
	if service != "" {
		desc += ", " + service + " tier"
	}
	if c.Region != "" {
		desc += ", region " + c.Region
	}
	return []string{
		cost, p.Name, p.Name + " via the gateway", p.Currency, bpe, bps, // BilledCost … BillingPeriodStart
		"Usage", "", desc, "Usage-Based", c.End.UTC().Format(focusTime), c.Start.UTC().Format(focusTime), // ChargeCategory … ChargePeriodStart
		strconv.FormatInt(c.Quantity, 10), consumedUnit, cost, price, cost, "", // ConsumedQuantity … InvoiceId
		p.Name, cost, price, "Standard", pricingQuantity(c), pricingUnit, // InvoiceIssuerName … PricingUnit
		p.Name, p.Name, "AI and Machine Learning", p.Name + " API", "Generative AI", skuID, meterNames[u], // ProviderName … SkuMeter
		string(details), skuPriceID, c.Key, c.KeyAlias, "API Key", tags, // SkuPriceDetails … Tags
		c.Start.Format(time.DateOnly), c.Start.Location().String(), versionID, c.Period, strconv.FormatBool(c.Peak), // x_ChargeDay … x_PeakPeriod
		strconv.Itoa(c.Tier), u.String(), strconv.FormatInt(c.Calls, 10), c.Recorded.String(), c.Cost.Sub(c.Recorded).String(), // x_PromptTier … x_CostGap
		c.ServiceTier.String(), c.Region, // x_ServiceTier, x_Region
	}, nil
}

// pricingQuantity is the charge's quantity in its pricing unit: tokens in
// millions (exact, a shift of the decimal point), or calls.
func pricingQuantity(c *pricing.Charge) string {
	q := decimal.NewFromInt(c.Quantity)
	if !c.Usage.IsToken() {
		return q.String()
	}
	return q.Shift(-6).String()
}

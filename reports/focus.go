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
	"x_RequestCount", "x_RecordedCost", "x_CostGap", "x_ServiceTier", "x_Region", "x_Outcome", "x_Model", "x_Calls", "x_Tokens",
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
	"x_TariffVersion", "x_PricingPeriod", "x_Model"}

// WriteFOCUS writes charges as a FOCUS 1.2 cost and usage dataset in CSV:
// one row per charge, for the billing period [from, until). Every priced
// charge is at list price, so the list, contracted, billed and effective
// costs are all the official cost; the gateway's recorded spend is
// x_RecordedCost. A charge of calls not priced is an Adjustment row of no
// cost, no price and no quantity (FOCUS allows them null there only),
// which carries their calls, tokens and recorded spend in x_ columns: so
// the file adds up to the run's calls (x_Calls), tokens (x_Tokens) and
// recorded spend (x_RecordedCost), as reconcile counts them.
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
	if c.Outcome != pricing.Priced || c.NoPrice {
		return focusAdjustmentRow(c, bps, bpe)
	}
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
	tags, err := focusTagsOf(c)
	if err != nil {
		return nil, err
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
		c.Outcome.String(), c.Name, strconv.FormatInt(c.Counted, 10), focusTokens(c), // x_Outcome … x_Tokens
	}, nil
}

// focusTagsOf returns the Tags of a charge's row: null without team and user.
func focusTagsOf(c *pricing.Charge) (string, error) {
	if c.Team == "" && c.User == "" {
		return "", nil
	}
	b, err := json.Marshal(focusTags{Team: c.Team, User: c.User})
	return string(b), err
}

// focusTokens is x_Tokens: the charge's tokens, null on a row of calls or
// tool uses.
func focusTokens(c *pricing.Charge) string {
	if !c.Usage.IsToken() {
		return ""
	}
	return strconv.FormatInt(c.Quantity, 10)
}

// unpricedQuantity is the x_Outcome of a quantity of priced calls that
// their tariff does not price.
const unpricedQuantity = "unpriced_quantity"

// unknownProvider names the provider of a model no tariff knows.
const unknownProvider = "(unknown provider)"

// adjustmentDescriptions say, by outcome, what an Adjustment row holds.
var adjustmentDescriptions = map[pricing.Outcome]string{
	pricing.Unpriced:  "recorded by the gateway, not priced: no tariff in force prices the model",
	pricing.Retired:   "recorded by the gateway, not priced: the tariff in force retired the model",
	pricing.Failed:    "failed calls the gateway recorded spend on, not priced",
	pricing.CacheHit:  "answered from the gateway's response cache, not priced: the provider was not called",
	pricing.Duplicate: "the gateway's duplicate charge: calls it logged twice in one source, counted once, the spend recorded on the second row",
}

// focusAdjustmentRow returns the row of a charge of calls not priced: an
// Adjustment of no official cost, with no price, quantity or SKU (FOCUS
// requires them on Usage rows only), whose calls, tokens and recorded
// spend are in the x_ columns.
func focusAdjustmentRow(c *pricing.Charge, bps, bpe string) ([]string, error) {
	provider, currency := unknownProvider, c.Currency
	if c.Model != nil {
		provider = c.Model.Provider.Name
	}
	if currency == "" {
		currency = "USD" // gateways record spend in US dollars
	}
	tags, err := focusTagsOf(c)
	if err != nil {
		return nil, err
	}
	outcome, what := c.Outcome.String(), adjustmentDescriptions[c.Outcome]
	if c.NoPrice {
		outcome, what = unpricedQuantity, "logged by the gateway on priced calls, not priced: the tariff in force lists no price for them"
	}
	desc := c.Name + " " + strings.ToLower(meterNames[c.Usage]) + ": " + what
	const zero = "0"
	return []string{
		zero, provider, provider + " via the gateway", currency, bpe, bps, // BilledCost … BillingPeriodStart
		"Adjustment", "", desc, "Usage-Based", c.End.UTC().Format(focusTime), c.Start.UTC().Format(focusTime), // ChargeCategory … ChargePeriodStart
		"", "", zero, "", zero, "", // ConsumedQuantity … InvoiceId
		provider, zero, "", "", "", "", // InvoiceIssuerName … PricingUnit
		provider, provider, "AI and Machine Learning", provider + " API", "Generative AI", "", "", // ProviderName … SkuMeter
		"", "", c.Key, c.KeyAlias, "API Key", tags, // SkuPriceDetails … Tags
		c.Start.Format(time.DateOnly), c.Start.Location().String(), "", "", "", // x_ChargeDay … x_PeakPeriod
		"", c.Usage.String(), strconv.FormatInt(c.Calls, 10), c.Recorded.String(), c.Recorded.Neg().String(), // x_PromptTier … x_CostGap
		"", "", // x_ServiceTier, x_Region
		outcome, c.Name, strconv.FormatInt(c.Counted, 10), focusTokens(c), // x_Outcome … x_Tokens
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

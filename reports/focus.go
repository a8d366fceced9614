package reports

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
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

// FOCUSVersion is a version of the FinOps Open Cost and Usage
// Specification the export follows. It is a flag value: Set parses "1.2",
// "1.3" or "1.4".
type FOCUSVersion int

// The versions the export follows.
const (
	// FOCUS12 is FOCUS 1.2, the default.
	FOCUS12 FOCUSVersion = iota
	// FOCUS13 is FOCUS 1.3: ServiceProviderName and HostProviderName beside
	// ProviderName and PublisherName (deprecated in 1.3, still mandatory),
	// and the AI keys of the 1.5 draft in SkuPriceDetails, x_ prefixed.
	FOCUS13
	// FOCUS14 is FOCUS 1.4: 1.3 without ProviderName and PublisherName,
	// which it removes; the AI keys as in 1.3.
	FOCUS14
)

var focusVersionNames = []string{FOCUS12: "1.2", FOCUS13: "1.3", FOCUS14: "1.4"}

// String returns the version as FOCUS numbers it: "1.2".
func (v FOCUSVersion) String() string { return focusVersionNames[v] }

// Set parses a version, for the --focus-version flag.
func (v *FOCUSVersion) Set(s string) error {
	i := slices.Index(focusVersionNames, s)
	if i < 0 {
		return fmt.Errorf("FOCUS version %q is not one of %s", s, strings.Join(focusVersionNames, ", "))
	}
	*v = FOCUSVersion(i)
	return nil
}

// Type names the flag's value in help.
func (v *FOCUSVersion) Type() string { return "version" }

// FOCUSColumns are the export's columns in FOCUS 1.2: FOCUS columns
// first, in alphabetical order, then tokenfare's own, prefixed x_.
// docs/focus.md states what each carries. FOCUSColumnsOf gives another
// version's.
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

// focus13Columns are the columns FOCUS 1.3 adds, each placed before the
// 1.2 column it precedes in alphabetical order.
var focus13Columns = []struct{ name, before string }{
	{"HostProviderName", "InvoiceId"},
	{"ServiceProviderName", "ServiceSubcategory"},
}

// focus14Removed are the columns FOCUS 1.4 removes: deprecated in 1.3,
// replaced by ServiceProviderName and HostProviderName.
var focus14Removed = []string{"ProviderName", "PublisherName"}

// FOCUSColumnsOf returns the export's columns in version v.
func FOCUSColumnsOf(v FOCUSVersion) []string {
	if v == FOCUS12 {
		return FOCUSColumns
	}
	cols := slices.Clone(FOCUSColumns)
	for _, c := range focus13Columns {
		i := slices.Index(cols, c.before)
		cols = slices.Insert(cols, i, c.name)
	}
	if v >= FOCUS14 {
		cols = slices.DeleteFunc(cols, func(c string) bool { return slices.Contains(focus14Removed, c) })
	}
	return cols
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
	"x_TariffVersion", "x_PricingPeriod", "x_Model", "HostProviderName", "ServiceProviderName"}

// FOCUSFormat says how the export is written: the FOCUS version it
// follows and how text cells from input are written.
type FOCUSFormat struct {
	Version FOCUSVersion
	Text    FOCUSText
}

// WriteFOCUS writes charges as a FOCUS cost and usage dataset in CSV, in
// the version f names: one row per charge, for the billing period
// [from, until). Every priced charge is at list price, so the list,
// contracted, billed and effective costs are all the official cost; the
// gateway's recorded spend is x_RecordedCost. A charge of calls not priced
// is an Adjustment row of no cost, no price and no quantity (FOCUS allows
// them null there only), which carries their calls, tokens and recorded
// spend in x_ columns: so the file adds up to the run's calls (x_Calls),
// tokens (x_Tokens) and recorded spend (x_RecordedCost), as reconcile
// counts them. An error charges yield (reading spilled charges back) ends
// the file and is returned.
func WriteFOCUS(w io.Writer, charges iter.Seq2[pricing.Charge, error], from, until time.Time, f FOCUSFormat) error {
	cw := csv.NewWriter(w)
	cols := FOCUSColumnsOf(f.Version)
	if err := cw.Write(cols); err != nil {
		return err
	}
	texts := textColumns(cols, focusTextColumns)
	bps, bpe := from.UTC().Format(focusTime), until.UTC().Format(focusTime)
	for c, err := range charges {
		if err != nil {
			return err
		}
		row, err := focusRow(&c, bps, bpe, f.Version)
		if err != nil {
			return err
		}
		if f.Version != FOCUS12 {
			row = focus13Row(row, cols, focusProviderOf(&c))
		}
		if f.Text == FOCUSSheetSafe {
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

// textColumns returns the indexes in cols of the columns named in text.
func textColumns(cols, text []string) []int {
	var texts []int
	for i, c := range cols {
		if slices.Contains(text, c) {
			texts = append(texts, i)
		}
	}
	return texts
}

// focus13Row returns a 1.2 row with the columns 1.3 adds placed in cols,
// and those a later version removes (1.4: ProviderName, PublisherName)
// left out: ServiceProviderName and HostProviderName are the provider,
// which hosts the models it serves (FOCUS allows the host to equal the
// service provider when no other host is known).
func focus13Row(row, cols []string, provider string) []string {
	out := make([]string, 0, len(cols))
	j := 0
	for _, c := range cols {
		if c == "HostProviderName" || c == "ServiceProviderName" {
			out = append(out, provider)
			continue
		}
		for FOCUSColumns[j] != c { // a column of 1.2 the version removes
			j++
		}
		out = append(out, row[j])
		j++
	}
	return out
}

// focusProviderOf is the provider's name on a charge's row.
func focusProviderOf(c *pricing.Charge) string {
	if c.Model == nil {
		return unknownProvider
	}
	return c.Model.Provider.DisplayName
}

// focusDetails is SkuPriceDetails: tokenfare's own keys, prefixed x_.
type focusDetails struct {
	TariffVersion string `json:"x_TariffVersion"`
	PricingPeriod string `json:"x_PricingPeriod"`
	PromptTier    int    `json:"x_PromptTier"`
	ServiceTier   string `json:"x_ServiceTier,omitempty"` // when not standard
	Region        string `json:"x_Region,omitempty"`
	*focusAIDetails
}

// focusAIDetails are the SKU Price properties the FOCUS 1.5 working draft
// defines for AI usage (ModelDeveloper, ModelId, ModelVersion,
// TokenCacheAction, TokenDirection), written from 1.3 on. No ratified
// version (1.4 included) defines them, so they carry the x_ prefix the
// spec requires of keys it does not define; a version that defines them
// takes them without it. ModelFamily is left out: the tariffs know no
// families.
type focusAIDetails struct {
	ModelDeveloper string `json:"x_ModelDeveloper,omitempty"` // the provider, when it serves its own models
	ModelID        string `json:"x_ModelId"`
	ModelVersion   string `json:"x_ModelVersion,omitempty"`     // the snapshot of the model's one dated id, when it has one
	CacheAction    string `json:"x_TokenCacheAction,omitempty"` // Uncached, Read or Write, on input token types
	TokenDirection string `json:"x_TokenDirection,omitempty"`   // Input or Output, on token usage types
}

// tokenDirections and cacheActions are TokenDirection and
// TokenCacheAction by usage type: empty where they do not apply (output
// tokens have no cache action; requests and tool uses are no tokens).
// Input is "Uncached": tokenfare meters cache reads and writes apart from
// it, so its tokens are neither served from nor placed into a cache.
var (
	tokenDirections = [tariffs.NumUsage]string{tariffs.Input: "Input", tariffs.CacheRead: "Input", tariffs.CacheWrite: "Input",
		tariffs.CacheWrite1h: "Input", tariffs.Output: "Output", tariffs.Reasoning: "Output"}
	cacheActions = [tariffs.NumUsage]string{tariffs.Input: "Uncached", tariffs.CacheRead: "Read", tariffs.CacheWrite: "Write",
		tariffs.CacheWrite1h: "Write"}
)

// skuPriceDetails returns the SkuPriceDetails of a model's price of usage
// u in a version's period, tier, service tier ("" for standard) and
// region, in FOCUS version v.
func skuPriceDetails(m *tariffs.Model, u tariffs.Usage, versionID, period string, tier int, service, region string, v FOCUSVersion) (string, error) {
	d := focusDetails{TariffVersion: versionID, PricingPeriod: period, PromptTier: tier, ServiceTier: service, Region: region}
	if v != FOCUS12 {
		d.focusAIDetails = &focusAIDetails{ModelID: m.ID, ModelVersion: m.Snapshot(), TokenDirection: tokenDirections[u], CacheAction: cacheActions[u]}
		if m.Provider.FirstParty() {
			d.ModelDeveloper = m.Provider.DisplayName
		}
	}
	b, err := json.Marshal(d)
	return string(b), err
}

// focusTags are the Tags of a row.
type focusTags struct {
	Team string `json:"team,omitempty"`
	User string `json:"user,omitempty"`
}

// focusRow returns a charge's values in the order of FOCUSColumns.
func focusRow(c *pricing.Charge, bps, bpe string, v FOCUSVersion) ([]string, error) {
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
	details, err := skuPriceDetails(c.Model, u, versionID, c.Period, c.Tier, service, c.Region, v)
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
		cost, p.Name, p.DisplayName + " via the gateway", p.Currency, bpe, bps, // BilledCost … BillingPeriodStart
		"Usage", "", desc, "Usage-Based", c.End.UTC().Format(focusTime), c.Start.UTC().Format(focusTime), // ChargeCategory … ChargePeriodStart
		strconv.FormatInt(c.Quantity, 10), consumedUnit, cost, price, cost, "", // ConsumedQuantity … InvoiceId
		p.DisplayName, cost, price, "Standard", pricingQuantity(c), pricingUnit, // InvoiceIssuerName … PricingUnit
		p.DisplayName, p.DisplayName, "AI and Machine Learning", p.ServiceName, "Generative AI", skuID, meterNames[u], // ProviderName … SkuMeter
		details, skuPriceID, c.Key, c.KeyAlias, "API Key", tags, // SkuPriceDetails … Tags
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
	pricing.Unpriced: "recorded by the gateway, not priced: no tariff in force prices the model",
	pricing.Retired:  "recorded by the gateway, not priced: the tariff in force retired the model",
	pricing.Failed:   "failed calls the gateway recorded spend on, not priced",
	pricing.CacheHit: "answered from the gateway's response cache, not priced: the provider was not called",
}

// focusAdjustmentRow returns the row of a charge of calls not priced: an
// Adjustment of no official cost, with no price, quantity or SKU (FOCUS
// requires them on Usage rows only), whose calls, tokens and recorded
// spend are in the x_ columns.
func focusAdjustmentRow(c *pricing.Charge, bps, bpe string) ([]string, error) {
	id, provider, service, currency := unknownProvider, unknownProvider, unknownProvider+" API", c.Currency
	if c.Model != nil {
		id, provider, service = c.Model.Provider.Name, c.Model.Provider.DisplayName, c.Model.Provider.ServiceName
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
		zero, id, provider + " via the gateway", currency, bpe, bps, // BilledCost … BillingPeriodStart
		"Adjustment", "", desc, "Usage-Based", c.End.UTC().Format(focusTime), c.Start.UTC().Format(focusTime), // ChargeCategory … ChargePeriodStart
		"", "", zero, "", zero, "", // ConsumedQuantity … InvoiceId
		provider, zero, "", "", "", "", // InvoiceIssuerName … PricingUnit
		provider, provider, "AI and Machine Learning", service, "Generative AI", "", "", // ProviderName … SkuMeter
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

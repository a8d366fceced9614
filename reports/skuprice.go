package reports

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
)

// SkuPriceColumns are the columns of the SKU Price export: the SKU Price
// dataset of the FOCUS 1.5 working draft (FinOps-Open-Cost-and-Usage-Spec/
// FOCUS_Spec specification/datasets/sku_price/dataset.md@0078d794), its
// mandatory columns in alphabetical order, then tokenfare's own, prefixed
// x_: what identifies the price and the time-of-use rule that routes a
// call to it, as the draft asks of rate card routing logic its columns do
// not carry. docs/focus.md states what each holds.
var SkuPriceColumns = []string{
	"ChargeCategory", "ContractId", "PricingCurrency", "PricingCurrencyCategory", "PricingServiceName", "PricingUnit",
	"ServiceProviderName", "SkuId", "SkuPriceCreated", "SkuPriceDescription", "SkuPriceEffectiveEnd",
	"SkuPriceEffectiveStart", "SkuPriceEligibility", "SkuPriceId", "SkuPriceLastUpdated", "UnitPrice", "UnitPriceType",
	"x_Provider", "x_TariffVersion", "x_Model", "x_UsageType", "x_SkuMeter", "x_SkuPriceDetails", "x_PricingPeriod",
	"x_PeriodDefault", "x_PeriodWeekdays", "x_PeriodWindows", "x_TimeZone", "x_HolidaysAs", "x_WorkdaysAs",
	"x_PromptTier", "x_PromptTokensAbove", "x_ServiceTier", "x_Region",
}

// skuPriceTextColumns are the columns whose text comes from tariff files.
var skuPriceTextColumns = []string{"PricingServiceName", "ServiceProviderName", "SkuId", "SkuPriceDescription",
	"SkuPriceId", "x_Provider", "x_TariffVersion", "x_Model", "x_PricingPeriod", "x_Region"}

// skuPriceEligibility is every row's SkuPriceEligibility: a published list
// price applies to everyone.
const skuPriceEligibility = `{"IsGlobalScope":true}`

// WriteFOCUSSkuPrice writes the catalog's prices as a FOCUS SKU Price
// dataset in CSV: one row per provider version, model, usage type,
// period, prompt-size tier, service tier and region the version prices,
// effective from the version's start to the next version's (null for the
// version in force). A row's SkuPriceId is the one the cost and usage
// export gives the charges at that price, so the two join on it. Usage
// types a rate set reaches through its fallback (cache reads at the input
// price) have rows at that price; a request fee and reasoning tokens
// (otherwise output) have rows only where the tariff lists their price. text says whether text cells are made safe for
// spreadsheets.
func WriteFOCUSSkuPrice(w io.Writer, cat *tariffs.Catalog, text FOCUSText) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SkuPriceColumns); err != nil {
		return err
	}
	texts := textColumns(SkuPriceColumns, skuPriceTextColumns)
	for _, p := range cat.Providers {
		updated := lastChecked(p)
		for _, v := range p.Versions {
			for _, m := range p.Models {
				mp := v.Prices[m]
				if mp == nil || v.Retired[m] {
					continue
				}
				for _, row := range skuPriceRows(p, v, m, mp, updated) {
					if text == FOCUSSheetSafe {
						for _, i := range texts {
							row[i] = sheetText(row[i])
						}
					}
					if err := cw.Write(row); err != nil {
						return err
					}
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// skuPrice is one price point: a model's rates of one period in one
// prompt-size tier, service tier and region of a version.
type skuPrice struct {
	p       *tariffs.Provider
	v       *tariffs.Version
	m       *tariffs.Model
	rates   *tariffs.Rates
	period  int
	tier    int   // 0 for the base rates, i for Tiers[i-1]
	above   int64 // the tier's prompt size threshold
	service string
	region  string
}

// skuPriceRows returns the rows of model m in version v: every period of
// every tier of the standard rates and of each variant.
func skuPriceRows(p *tariffs.Provider, v *tariffs.Version, m *tariffs.Model, mp *tariffs.ModelPrices, updated time.Time) [][]string {
	var rows [][]string
	add := func(mp *tariffs.ModelPrices, service, region string) {
		for period := range v.Periods {
			sp := skuPrice{p: p, v: v, m: m, rates: &mp.Periods[period], period: period, service: service, region: region}
			rows = append(rows, sp.rows(updated)...)
			for i := range mp.Tiers {
				sp.rates, sp.tier, sp.above = &mp.Tiers[i].Periods[period], i+1, mp.Tiers[i].Above
				rows = append(rows, sp.rows(updated)...)
			}
		}
	}
	add(mp, "", "")
	for i := range mp.Variants {
		va := &mp.Variants[i]
		service := ""
		if va.Service != tariffs.Standard {
			service = va.Service.String()
		}
		add(va.Prices, service, va.Region)
	}
	return rows
}

// rows returns the rows of the price point: one per usage type it prices.
func (sp *skuPrice) rows(updated time.Time) [][]string {
	var rows [][]string
	for i := range tariffs.NumUsage {
		u := tariffs.Usage(i)
		if !sp.rates.Priced(u) || (apartOnly(u) && !sp.rates.Listed(u)) {
			continue
		}
		rows = append(rows, sp.row(u, updated))
	}
	return rows
}

// apartOnly reports whether usage type u is a charge of its own only where
// the tariff lists its price: a request fee, and reasoning, which is
// otherwise output.
func apartOnly(u tariffs.Usage) bool { return u == tariffs.Request || u == tariffs.Reasoning }

// row returns the row of usage type u at the price point, in the order of
// SkuPriceColumns.
func (sp *skuPrice) row(u tariffs.Usage, updated time.Time) []string {
	p, v := sp.p, sp.v
	versionID := p.Name + "@" + v.Name
	period := v.Periods[sp.period]
	skuID := sp.m.ID + "/" + u.String()
	skuPriceID := versionID + "/" + skuID + "/" + period
	if sp.tier > 0 {
		skuPriceID += "/tier" + strconv.Itoa(sp.tier)
	}
	if sp.service != "" {
		skuPriceID += "/" + sp.service
	}
	if sp.region != "" {
		skuPriceID += "/region-" + sp.region
	}
	unit := unitMillionTokens
	if !u.IsToken() {
		unit = unitRequests
	}
	desc := sp.m.ID + " " + strings.ToLower(meterNames[u]) + ", " + period + " period, tariff " + versionID
	if sp.service != "" {
		desc += ", " + sp.service + " tier"
	}
	if sp.region != "" {
		desc += ", region " + sp.region
	}
	if sp.tier > 0 {
		desc += ", prompts above " + strconv.FormatInt(sp.above, 10) + " tokens"
	}
	end := ""
	if !v.End.IsZero() {
		end = v.End.UTC().Format(focusTime)
	}
	start := v.Effective.UTC().Format(focusTime)
	if updated.IsZero() {
		updated = v.Effective
	}
	// The details of the 1.3 export: the 1.5 draft's AI keys, x_ prefixed.
	details, _ := skuPriceDetails(sp.m, u, versionID, period, sp.tier, sp.service, sp.region, FOCUS13) // marshals strings and ints only
	def, days, windows := periodRule(v, sp.period)
	holidays, workdays := calendarRule(&p.Calendar)
	above := ""
	if sp.tier > 0 {
		above = strconv.FormatInt(sp.above, 10)
	}
	return []string{
		"Usage", "", p.Currency, "Payable", p.ServiceName, unit, // ChargeCategory … PricingUnit
		p.DisplayName, skuID, start, desc, end, // ServiceProviderName … SkuPriceEffectiveEnd
		start, skuPriceEligibility, skuPriceID, updated.UTC().Format(focusTime), sp.rates.Price(u).String(), "List", // SkuPriceEffectiveStart … UnitPriceType
		p.Name, versionID, sp.m.ID, u.String(), meterNames[u], details, period, // x_Provider … x_PricingPeriod
		strconv.FormatBool(def), days, windows, v.Zone.String(), holidays, workdays, // x_PeriodDefault … x_WorkdaysAs
		strconv.Itoa(sp.tier), above, serviceName(sp.service), sp.region, // x_PromptTier … x_Region
	}
}

// serviceName is x_ServiceTier: the service tier, standard when none.
func serviceName(s string) string {
	if s == "" {
		return tariffs.Standard.String()
	}
	return s
}

// periodRule returns when period p of v applies: whether it is the
// default period (in force whenever no other period's windows are), and
// the weekdays ("mon,tue", empty for every day) and local windows
// ("09:00-12:00;14:00-18:00", start inclusive, end exclusive) of a named
// period.
func periodRule(v *tariffs.Version, p int) (def bool, days, windows string) {
	if p == 0 {
		return true, "", ""
	}
	for _, d := range v.Defs {
		if d.Name != v.Periods[p] {
			continue
		}
		var ds, ws []string
		for _, wd := range d.Weekdays {
			ds = append(ds, strings.ToLower(wd.String()[:3]))
		}
		for _, w := range d.Windows {
			ws = append(ws, w.String())
		}
		return false, strings.Join(ds, ","), strings.Join(ws, ";")
	}
	return false, "", ""
}

// calendarRule returns the weekday a provider's holidays and make-up
// workdays are priced as ("sun"), empty when its calendar lists none.
func calendarRule(c *tariffs.Calendar) (holidays, workdays string) {
	if len(c.Holidays) > 0 {
		holidays = strings.ToLower(c.HolidaysAs.String()[:3])
	}
	if len(c.Workdays) > 0 {
		workdays = strings.ToLower(c.WorkdaysAs.String()[:3])
	}
	return holidays, workdays
}

// lastChecked is SkuPriceLastUpdated: the newest date the provider's
// sources were checked on, midnight UTC; the zero time when none parses.
func lastChecked(p *tariffs.Provider) time.Time {
	var last time.Time
	for _, s := range p.Sources {
		if t, err := time.Parse(time.DateOnly, s.Checked); err == nil && t.After(last) {
			last = t
		}
	}
	return last
}

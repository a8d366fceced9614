package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tokenfare/tokenfare/internal/textout"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/tariffs"
)

// ThreeWay writes a three-way reconciliation in format f. CSV has one row
// per cell; the table adds the providers' totals, the missing and unknown
// usage and the tariff drift.
func ThreeWay(w io.Writer, f Format, tw *threeway.Reconciliation) error {
	return writeAs(w, f, "a three-way reconciliation", tw, tableThreeWay, csvThreeWay,
		func(tw *threeway.Reconciliation) any { return newThreeWayDoc(tw) })
}

type threeWayDoc struct {
	Rows         rowsDoc         `json:"rows"`
	ProviderRows int64           `json:"provider_rows"`
	Outside      int64           `json:"provider_rows_outside"`
	KeyedBy      []string        `json:"keyed"`
	Providers    []twProviderDoc `json:"providers"`
	Cells        []twCellDoc     `json:"cells"`
	Drifts       []twDriftDoc    `json:"tariff_drift"`
}

type twProviderDoc struct {
	Provider         string      `json:"provider"`
	Currency         string      `json:"currency"`
	Cells            int         `json:"cells"`
	GatewayCalls     int64       `json:"gateway_calls"`
	ProviderRequests *int64      `json:"provider_requests"`
	MissingCalls     int64       `json:"missing_calls"`
	UnknownCalls     int64       `json:"unknown_calls"`
	Recorded         string      `json:"recorded"`
	Official         string      `json:"official"`
	ProviderOfficial string      `json:"provider_official"`
	Billed           string      `json:"billed"`
	Gap              string      `json:"gap"`
	Parts            []twPartDoc `json:"parts"`
}

type twPartDoc struct {
	Kind   string `json:"kind"`
	Amount string `json:"amount"`
}

type twCellDoc struct {
	Day              string      `json:"day"`
	Provider         string      `json:"provider"`
	Model            string      `json:"model"`
	Key              string      `json:"key,omitempty"`
	Currency         string      `json:"currency"`
	GatewayCalls     int64       `json:"gateway_calls"`
	ProviderRequests *int64      `json:"provider_requests"`
	MissingCalls     int64       `json:"missing_calls"`
	UnknownCalls     int64       `json:"unknown_calls"`
	GatewayTokens    tokensDoc   `json:"gateway_tokens"`
	ProviderTokens   *tokensDoc  `json:"provider_tokens"`
	Missing          tokensDoc   `json:"missing_tokens"`
	Unknown          tokensDoc   `json:"unknown_tokens"`
	Recorded         string      `json:"recorded"`
	Official         string      `json:"official"`
	ProviderOfficial string      `json:"provider_official"`
	Billed           string      `json:"billed"`
	Gap              string      `json:"gap"`
	Parts            []twPartDoc `json:"parts"`
	Note             string      `json:"note,omitempty"`
}

type twDriftDoc struct {
	Provider    string `json:"provider"`
	Model       string `json:"model"`
	Version     string `json:"version"`
	Period      string `json:"period"`
	Usage       string `json:"usage"`
	First       string `json:"first_day"`
	Last        string `json:"last_day"`
	Tokens      int64  `json:"tokens"`
	Official    string `json:"official"`
	Billed      string `json:"billed"`
	Drift       string `json:"drift"`
	TariffPrice string `json:"tariff_price"`
	BilledPrice string `json:"billed_price"`
	Rounding    bool   `json:"rounding"`
}

func nullText(d decimal.NullDecimal) string {
	if !d.Valid {
		return ""
	}
	return d.Decimal.String()
}

func partDocs(parts []threeway.Part) []twPartDoc {
	out := []twPartDoc{}
	for _, p := range parts {
		out = append(out, twPartDoc{Kind: p.Kind.String(), Amount: p.Amount.String()})
	}
	return out
}

func billedText(has bool, d decimal.Decimal) string {
	if !has {
		return ""
	}
	return d.String()
}

func newThreeWayDoc(tw *threeway.Reconciliation) *threeWayDoc {
	doc := &threeWayDoc{Rows: rowsDoc(tw.Rows), ProviderRows: tw.ProviderRows, Outside: tw.ProviderOutside, KeyedBy: append([]string{}, tw.Keyed...),
		Providers: []twProviderDoc{}, Cells: []twCellDoc{}, Drifts: []twDriftDoc{}}
	for _, p := range tw.Providers {
		d := twProviderDoc{Provider: p.Provider, Currency: p.Currency, Cells: p.Cells, GatewayCalls: p.GatewayCalls,
			MissingCalls: p.MissingCalls, UnknownCalls: p.UnknownCalls, Recorded: p.Recorded.String(), Official: p.Official.String(),
			ProviderOfficial: p.ProviderOfficial.String(), Billed: billedText(p.HasBilled, p.Billed), Gap: nullText(p.Gap), Parts: partDocs(p.Parts)}
		if p.HasRequests {
			n := p.ProviderRequests
			d.ProviderRequests = &n
		}
		doc.Providers = append(doc.Providers, d)
	}
	for i := range tw.Cells {
		c := &tw.Cells[i]
		d := twCellDoc{Day: c.Day.Format(time.DateOnly), Provider: c.Provider, Model: c.Model, Key: c.Key, Currency: c.Currency,
			GatewayCalls: c.GatewayCalls, MissingCalls: c.MissingCalls, UnknownCalls: c.UnknownCalls,
			GatewayTokens: newTokensDoc(c.GatewayTokens), Missing: newTokensDoc(c.Missing), Unknown: newTokensDoc(c.Unknown),
			Recorded: c.Recorded.String(), Official: c.Official.String(), ProviderOfficial: nullText(c.ProviderOfficial),
			Billed: billedText(c.HasBilled, c.Billed), Gap: nullText(c.Gap), Parts: partDocs(c.Parts), Note: c.Note}
		if c.HasRequests {
			n := c.ProviderRequests
			d.ProviderRequests = &n
		}
		if c.HasUsage {
			t := newTokensDoc(c.ProviderTokens)
			d.ProviderTokens = &t
		}
		doc.Cells = append(doc.Cells, d)
	}
	for _, x := range tw.Drifts {
		doc.Drifts = append(doc.Drifts, twDriftDoc{Provider: x.Provider, Model: x.Model, Version: x.Version, Period: x.Period,
			Usage: driftUsage(x.Usage), First: x.First.Format(time.DateOnly), Last: x.Last.Format(time.DateOnly), Tokens: x.Tokens,
			Official: x.Official.String(), Billed: x.Billed.String(), Drift: x.Drift.String(),
			TariffPrice: nullText(x.TariffPrice), BilledPrice: nullText(x.BilledPrice), Rounding: x.Rounding})
	}
	return doc
}

// driftUsage is the usage type a drift bills, "" for an amount billed in
// total.
func driftUsage(u threeway.BilledUsage) string {
	if u == threeway.InTotal {
		return ""
	}
	return u.String()
}

// partColumns are the parts in CSV column order.
var partColumns = []threeway.PartKind{threeway.PartRecordedVsTariff, threeway.PartMissingUsage, threeway.PartUnknownUsage,
	threeway.PartTariffDrift, threeway.PartBilledVsGatewayTokens, threeway.PartUnattributed, threeway.PartUnbilled}

func partAmount(parts []threeway.Part, k threeway.PartKind) string {
	for _, p := range parts {
		if p.Kind == k {
			return p.Amount.String()
		}
	}
	return "0"
}

func csvThreeWay(w io.Writer, tw *threeway.Reconciliation) error {
	cw := csv.NewWriter(w)
	header := []string{"day", "provider", "model", "key", "gateway_calls", "provider_requests", "missing_calls", "unknown_calls"}
	for _, side := range []string{"gateway", "provider", "missing", "unknown"} {
		for _, u := range []string{"input", "cache_read", "cache_write", "output"} {
			header = append(header, side+"_"+u)
		}
	}
	header = append(header, "recorded", "official", "provider_official", "billed", "gap")
	for _, k := range partColumns {
		header = append(header, k.String())
	}
	cw.Write(append(header, "note", "currency"))
	for i := range tw.Cells {
		c := &tw.Cells[i]
		req := ""
		if c.HasRequests {
			req = itoa(c.ProviderRequests)
		}
		row := []string{c.Day.Format(time.DateOnly), sheetText(c.Provider), sheetText(c.Model), sheetText(c.Key), itoa(c.GatewayCalls), req, itoa(c.MissingCalls), itoa(c.UnknownCalls)}
		for _, t := range []pricing.TokenCounts{c.GatewayTokens, c.ProviderTokens, c.Missing, c.Unknown} {
			row = append(row, itoa(t.Input), itoa(t.CacheRead), itoa(t.CacheWrite), itoa(t.Output))
		}
		row = append(row, c.Recorded.String(), c.Official.String(), nullText(c.ProviderOfficial), billedText(c.HasBilled, c.Billed), nullText(c.Gap))
		for _, k := range partColumns {
			row = append(row, partAmount(c.Parts, k))
		}
		cw.Write(append(row, sheetText(c.Note), sheetText(c.Currency)))
	}
	cw.Flush()
	return cw.Error()
}

// shortKey shows the start of a hashed key, enough to tell keys apart.
func shortKey(k string) string {
	if len(k) > 12 {
		return k[:12] + "…"
	}
	return orDash(k)
}

func modelText(m string) string {
	if m == "" {
		return "(all models)"
	}
	return tableCell(m)
}

func tableThreeWay(out io.Writer, tw *threeway.Reconciliation) error {
	w := &textout.Writer{W: out}
	r := tw.Rows
	w.Printf("gateway rows read %d: priced %d, unpriced %d, retired %d, failed %d, duplicate %d, rejected %d, outside %d%s\n",
		r.Read, r.Priced, r.Unpriced, r.Retired, r.Failed, r.Duplicate, r.Rejected, r.Outside, cacheHitNote(r.CacheHit))
	w.Printf("provider rows read %d, outside the window %d; aligned by UTC day and model", tw.ProviderRows, tw.ProviderOutside)
	if len(tw.Keyed) > 0 {
		w.Printf(", and by key for %s", strings.Join(tw.Keyed, ", "))
	}
	w.Printf("\n\n")
	for _, p := range tw.Providers {
		w.Printf("%s (%s)\n", orDash(p.Provider), p.Currency)
		w.Printf("  recorded by the gateway          %12s\n  official, the gateway's tokens   %12s\n  official, the provider's tokens  %12s\n",
			money(p.Recorded), money(p.Official), money(p.ProviderOfficial))
		if p.HasBilled {
			w.Printf("  billed by the provider           %12s\n  gap (billed − recorded)          %12s\n", money(p.Billed), money(p.Gap.Decimal))
		} else {
			w.Printf("  billed by the provider           %12s (no cost export)\n", "-")
		}
		for _, x := range p.Parts {
			w.Printf("    %-30s %12s\n", x.Kind, money(x.Amount))
		}
	}
	tw2 := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw2, "\nDAY\tMODEL\tKEY\tCALLS GW\tREQ PROV\tMISSING\tUNKNOWN\tRECORDED\tOFFICIAL\tOFF. PROV\tBILLED\tGAP\t\n")
	for i := range tw.Cells {
		c := &tw.Cells[i]
		req := "-"
		if c.HasRequests {
			req = itoa(c.ProviderRequests)
		}
		billed := "-"
		if c.HasBilled {
			billed = money(c.Billed)
		}
		prov := "-"
		if c.ProviderOfficial.Valid {
			prov = money(c.ProviderOfficial.Decimal)
		}
		gap := "-"
		if c.Gap.Valid {
			gap = money(c.Gap.Decimal)
		}
		fmt.Fprintf(tw2, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Day.Format(time.DateOnly), modelText(c.Model), shortKey(c.Key),
			c.GatewayCalls, req, usageGap(c.MissingCalls, c.Missing), usageGap(c.UnknownCalls, c.Unknown),
			money(c.Recorded), money(c.Official), prov, billed, gap)
	}
	tw2.Flush()
	writeFindings(w, tw)
	return w.Err
}

// usageGap shows calls and tokens of missing or unknown usage, "-" for none.
func usageGap(calls int64, t pricing.TokenCounts) string {
	tokens := t.Total()
	if calls == 0 && tokens == 0 {
		return "-"
	}
	return fmt.Sprintf("%d calls %d tok", calls, tokens)
}

// writeFindings lists the cells with missing or unknown usage and the
// non-zero tariff drift, each naming where to look.
func writeFindings(w *textout.Writer, tw *threeway.Reconciliation) {
	var missing, unknown []string
	for i := range tw.Cells {
		c := &tw.Cells[i]
		at := c.Day.Format(time.DateOnly) + " " + modelText(c.Model)
		if c.Key != "" {
			at += " key " + shortKey(c.Key)
		}
		if s := usageGap(c.MissingCalls, c.Missing); s != "-" {
			missing = append(missing, fmt.Sprintf("  %s: %s the gateway did not log", at, s))
		}
		if s := usageGap(c.UnknownCalls, c.Unknown); s != "-" {
			unknown = append(unknown, fmt.Sprintf("  %s: %s the provider did not count", at, s))
		}
		if c.Note != "" {
			unknown = append(unknown, fmt.Sprintf("  %s: provider tokens not priced: %s", at, c.Note))
		}
	}
	for _, sec := range []struct {
		title string
		lines []string
	}{{"missing (the provider counted more)", missing}, {"unknown (the gateway logged more)", unknown}} {
		if len(sec.lines) > 0 {
			w.Printf("\n%s\n%s\n", sec.title, strings.Join(sec.lines, "\n"))
		}
	}
	header := false
	for _, d := range tw.Drifts {
		if d.Drift.IsZero() || d.Rounding {
			continue
		}
		if !header {
			w.Printf("\ntariff drift (billed − official for the provider's tokens): check these prices\n")
			header = true
		}
		usage := driftUsage(d.Usage)
		if d.Usage == threeway.InTotal {
			usage = "(billed in total)"
		}
		price := ""
		if d.TariffPrice.Valid && d.BilledPrice.Valid {
			price = fmt.Sprintf("; tariff %s, billed %s", d.TariffPrice.Decimal, d.BilledPrice.Decimal)
		}
		unit := "tokens"
		if u, ok := d.Usage.Usage(); ok && !u.IsToken() {
			unit = "uses" // a tool's; requests are calls
			if u == tariffs.Request {
				unit = "calls"
			}
		}
		w.Printf("  %s %s version %s %s %s, %s to %s: %d %s, official %s, billed %s, drift %s%s\n", d.Provider, d.Model,
			orDash(d.Version), orDash(d.Period), usage, d.First.Format(time.DateOnly), d.Last.Format(time.DateOnly),
			d.Tokens, unit, money(d.Official), money(d.Billed), money(d.Drift), price)
	}
}

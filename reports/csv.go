package reports

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// Every CSV keeps every digit of money and names its currency in a
// "currency" column, the last one, so that columns added later do not move
// the others.

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// groupColumns names the dimension columns of a reconciliation: the
// dimensions asked for, and the key alias when any group has one.
func groupColumns(r *pricing.Reconciliation) []string {
	cols := make([]string, 0, len(r.By)+1)
	for _, d := range r.By {
		cols = append(cols, d.String())
	}
	if r.HasKeyAlias() {
		return append(cols, keyAliasColumn)
	}
	return cols
}

// groupCurrency is the currency of a group's priced calls; a group with
// none priced takes the reconciliation's, in which its recorded spend adds
// to the totals.
func groupCurrency(r *pricing.Reconciliation, g *pricing.Group) string {
	if len(g.Currencies) == 0 {
		return currencyText(r.Currencies)
	}
	return currencyText(g.Currencies)
}

// csvReconciliation writes the groups as encoding/csv writes their rows,
// one row at a time into a buffer (csvRow), the numbers appended as
// digits rather than made strings first.
func csvReconciliation(w io.Writer, r *pricing.Reconciliation) error {
	cols := groupColumns(r)
	b := make([]byte, 0, outBlock)
	b = appendCSVRecord(b, append(cols, "calls", "priced_calls", "input", "cache_read", "cache_write", "output", "reasoning",
		"official", "recorded", "gap", "ratio", "cache_write_1h", "web_search", "web_fetch", "file_search", "currency"))
	keys := newCSVKeyColumns(r.By, len(cols) > len(r.By))
	var currency csvTextColumn
	for m, err := range r.GroupsWithMoney() {
		if err != nil {
			return err
		}
		g := m.Group
		row := csvRow{b: b}
		for i := range keys {
			keys[i].write(&row, g)
		}
		t := &g.Tokens
		for _, n := range [...]int64{g.Calls, g.PricedCalls, t.Input, t.CacheRead, t.CacheWrite, t.Output, t.Reasoning} {
			row.number(n)
		}
		row.amount(m.Official)
		row.amount(m.Recorded)
		row.amount(m.Gap)
		row.next()
		row.b = appendGroupRatio(row.b, m)
		for _, n := range [...]int64{t.CacheWrite1h, t.WebSearch, t.WebFetch, t.FileSearch} {
			row.number(n)
		}
		currency.write(&row, groupCurrency(r, g))
		b = append(row.b, '\n')
		if len(b) >= outFlush {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	_, err := w.Write(b)
	return err
}

// csvKeyColumn writes one of the columns of a group's key: a dimension,
// or the key alias when alias is set.
type csvKeyColumn struct {
	dim   pricing.Dim
	alias bool
	time  timeText // a day's or an hour's last text
	// last is the last value written, special set when it was not written
	// as it is (guarded as a formula, or quoted). Groups in order repeat
	// values: one equal to the last is not looked at again.
	last    string
	special bool
}

// newCSVKeyColumns returns the columns of a group's key: by's, then the
// alias when alias is set.
func newCSVKeyColumns(by []pricing.Dim, alias bool) []csvKeyColumn {
	cols := make([]csvKeyColumn, 0, len(by)+1)
	for _, d := range by {
		cols = append(cols, csvKeyColumn{dim: d})
	}
	if alias {
		cols = append(cols, csvKeyColumn{alias: true})
	}
	return cols
}

// write appends the column's field of g.
func (c *csvKeyColumn) write(r *csvRow, g *pricing.Group) {
	var v string
	switch {
	case c.alias:
		v = g.KeyAlias
	case c.dim == pricing.DimDay || c.dim == pricing.DimHour:
		v = c.time.value(&g.Key, c.dim)
	default:
		v = g.Key.Value(c.dim)
	}
	if v != c.last { // the same bytes at another place are the same text
		c.last, c.special = v, !csvPlain(v)
	}
	if c.special {
		r.text(sheetText(v))
		return
	}
	r.next()
	r.b = append(r.b, v...)
}

// csvTextColumn writes a column of text that mostly repeats from one row
// to the next, a group's currency: a value equal to the last is not
// looked at again, where each row's was tested for what needs quotes.
type csvTextColumn struct {
	last   string
	quoted bool // last is quoted
}

// write appends v as the row's next field, quoted when it must be.
func (c *csvTextColumn) write(r *csvRow, v string) {
	if v != c.last {
		c.last, c.quoted = v, csvNeedsQuotes(v)
	}
	if c.quoted {
		r.text(v)
		return
	}
	r.next()
	r.b = append(r.b, v...)
}

func csvBlend(w io.Writer, b *pricing.Blend) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"model", "provider", "calls", "usage", "tokens", "peak_share", "peak_share_used",
		"off_peak", "peak", "blended", "official", "reason", "versions", "tariff_at", "currency"})
	tariffAt := ""
	if !b.TariffAt.IsZero() {
		tariffAt = b.TariffAt.Format(time.RFC3339)
	}
	for _, m := range b.Models {
		versions := strings.Join(m.Versions, " ")
		if len(m.Prices) == 0 {
			cw.Write([]string{sheetText(m.Model), sheetText(m.Provider), itoa(m.Calls), "", "", "", "", "", "", "", "", sheetText(m.Reason), sheetText(versions), tariffAt, sheetText(m.Currency)})
			continue
		}
		for _, p := range m.Prices {
			cw.Write([]string{sheetText(m.Model), sheetText(m.Provider), itoa(m.Calls), p.Usage.String(), itoa(p.Tokens),
				p.PeakShare.StringFixed(pricing.RatioPlaces), ratioText(p.ShareUsed), p.OffPeak.String(), p.Peak.String(),
				p.Blended.String(), p.Official.String(), sheetText(m.Reason), sheetText(versions), tariffAt, sheetText(m.Currency)})
		}
		// What the blend leaves out: its quantity and cost, no price.
		for _, l := range m.LeftOut {
			cw.Write([]string{sheetText(m.Model), sheetText(m.Provider), itoa(m.Calls), l.What, itoa(l.Quantity), "", "", "", "", "",
				l.Official.String(), "left out (" + l.Unit + ")", sheetText(versions), tariffAt, sheetText(m.Currency)})
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvModels(w io.Writer, docs []modelDoc) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"model", "provider", "versions", "status_now", "names", "hosts", "currency"})
	for _, d := range docs {
		cw.Write(append(sheetTexts([]string{d.Model, d.Provider}), strconv.Itoa(d.Versions), d.StatusNow, sheetText(strings.Join(d.Names, " ")), sheetText(strings.Join(d.Hosts, " ")), sheetText(d.Currency)))
	}
	cw.Flush()
	return cw.Error()
}

var callHeader = []string{"request_id", "billed_at", "model", "logged_model", "outcome", "version", "period", "tier", "key",
	"input", "cache_read", "cache_write", "output", "reasoning", "official", "recorded", "gap",
	"cache_write_1h", "web_search", "web_fetch", "file_search", "service_tier", "region", "host", "currency"}

// csvCalls writes one CSV row per call, the header first.
type csvCalls struct {
	w      *csv.Writer
	header bool // written
}

func newCSVCalls(w io.Writer) *csvCalls { return &csvCalls{w: csv.NewWriter(w)} }

func (c *csvCalls) writeHeader() {
	if !c.header {
		c.w.Write(callHeader)
		c.header = true
	}
}

func (c *csvCalls) Write(call *ledger.Call, pc *pricing.PricedCall) error {
	c.writeHeader()
	d := newCallDoc(call, pc)
	c.w.Write([]string{sheetText(d.RequestID), d.BilledAt, sheetText(d.Model), sheetText(d.Logged), sheetText(d.Outcome), sheetText(d.Version),
		sheetText(d.Period), strconv.Itoa(d.Tier), sheetText(d.Key),
		itoa(d.Input), itoa(d.CacheRead), itoa(d.CacheWrite), itoa(d.Output), itoa(d.Reasoning), d.Official, d.Recorded, d.Gap,
		itoa(call.Tokens.CacheWrite1h), itoa(call.Tools[ledger.WebSearch]), itoa(call.Tools[ledger.WebFetch]), itoa(call.Tools[ledger.FileSearch]),
		call.ServiceTier.String(), sheetText(call.Region), sheetText(d.Host), sheetText(d.currency)})
	return c.w.Error()
}

func (c *csvCalls) Flush() error {
	c.writeHeader()
	c.w.Flush()
	return c.w.Error()
}

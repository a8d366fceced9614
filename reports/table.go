package reports

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/shopspring/decimal"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports/textout"
	"github.com/tokenfare/tokenfare/tariffs"
)

// money rounds an amount to DisplayPlaces decimals for reading.
func money(d decimal.Decimal) string { return string(appendFixed(nil, d, DisplayPlaces)) }

// numberCells makes the cells of a group's calls and money, as
// strconv.FormatInt, money and ratioText make them, in one buffer used
// again for every row rather than a string each: the cells are text that
// lasts until the next row.
type numberCells struct{ b []byte }

// of appends to row the cells of g's calls, official cost, recorded
// spend, gap and ratio ("-" when there is none), valid until the next
// call.
func (n *numberCells) of(row []string, g *pricing.Group, m *pricing.GroupMoney) []string {
	b := strconv.AppendInt(n.b[:0], g.Calls, 10)
	var ends [5]int
	ends[0] = len(b)
	for i, a := range [...]ledger.Amount{m.Official, m.Recorded, m.Gap} {
		b = appendAmountFixed(b, a, DisplayPlaces)
		ends[i+1] = len(b)
	}
	b = appendGroupRatio(b, m)
	ends[4] = len(b)
	n.b = b
	start := 0
	for _, end := range ends {
		row = append(row, orDash(unsafe.String(unsafe.SliceData(b[start:end]), end-start)))
		start = end
	}
	return row
}

// cacheHitNote completes a row accounting line with the response-cache
// hits, when there are any.
func cacheHitNote(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", cache hit %d", n)
}

// RowCounts lists a row accounting on one line, as the price command
// reports it on stderr.
func RowCounts(r pricing.Rows) string {
	return fmt.Sprintf("read %d, priced %d, unpriced %d, retired %d, failed %d, duplicate %d, rejected %d, outside %d%s",
		r.Read, r.Priced, r.Unpriced, r.Retired, r.Failed, r.Duplicate, r.Rejected, r.Outside, cacheHitNote(r.CacheHit))
}

// tableCell shows a value read from the logs (a model, a user, a team) on one
// line of a table. One holding a control character (a line break, a tab,
// a terminal escape), a bidi override or bytes that are no UTF-8 is shown
// quoted, Go-style: raw, it would break the columns, drive the reader's
// terminal or show in another order. writeAligned shows its cells so and
// its lines skip textout.Escaping; the rest of a table passes through it,
// for the cells that do not go through here.
func tableCell(s string) string {
	if textout.NeedsEscape(s) {
		return strconv.Quote(s)
	}
	return s
}

// orDash shows an empty cell as "-".
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func tableReconciliation(out io.Writer, r *pricing.Reconciliation) error {
	w := &textout.Writer{W: out}
	t, rows, cur := r.Totals, r.Rows, currencyText(r.Currencies)
	w.Printf("rows      read %d: priced %d, unpriced %d, retired %d, failed %d, duplicate %d, rejected %d, outside %d%s\n",
		rows.Read, rows.Priced, rows.Unpriced, rows.Retired, rows.Failed, rows.Duplicate, rows.Rejected, rows.Outside, cacheHitNote(rows.CacheHit))
	if f := r.Failed; f != nil && rows.Failed > 0 {
		w.Printf("failed    %d: upstream %d, gateway %d, unknown %d (tokenfare failures tells them apart)\n", rows.Failed, f.Upstream, f.Gateway, f.Unknown)
	}
	w.Printf("official  %s %s\nrecorded  %s %s\ngap       %s (official − recorded); recorded/official = %s\n\n",
		money(t.Official), cur, money(t.Recorded), cur, money(t.Gap), orDash(ratioText(t.Ratio)))
	cols := groupColumns(r)
	if w.Err != nil {
		return w.Err
	}
	// writeAligned shows each cell as tableCell does: its lines skip the
	// escaping the rest of the table goes through.
	w.Err = writeAligned(textout.PastEscaping(out), func(yield func([]string) error) error {
		var row []string
		if len(cols) == 0 {
			row = append(row, "") // an empty first column, as the groups have no key
		}
		for _, c := range cols {
			row = append(row, strings.ToUpper(c))
		}
		// The row keeps what it grew to (the header's cells and the
		// numbers' too): every row after is as long and adds no memory.
		row = append(row, "CALLS", "OFFICIAL", "RECORDED", "GAP", "RATIO")
		if err := yield(row); err != nil {
			return err
		}
		var day dayText
		var nums numberCells
		for m, err := range r.GroupsWithMoney() {
			if err != nil {
				return err
			}
			g := m.Group
			row = row[:0]
			if len(cols) == 0 {
				row = append(row, "")
			}
			for j := range cols {
				v := g.KeyAlias
				if j < len(r.By) {
					v = day.value(&g.Key, r.By[j])
				}
				row = append(row, orDash(v))
			}
			row = nums.of(row, g, m)
			if err := yield(row); err != nil {
				return err
			}
		}
		return nil
	})
	tableBilled(w, r.Billed)
	if len(r.Explanations) > 0 {
		w.Printf("\nexplanations (amount = part of the gap)\n")
		xs := append([]pricing.Explanation{}, r.Explanations...)
		sort.SliceStable(xs, func(i, j int) bool { return xs[i].Amount.Abs().GreaterThan(xs[j].Amount.Abs()) })
		// Columns as wide as their longest entry (at least 18 and 20), so a
		// long model name does not push its amount out of line.
		kindW, whatW := 18, 20
		for _, x := range xs {
			kindW = max(kindW, utf8.RuneCountInString(x.Kind.String()))
			whatW = max(whatW, utf8.RuneCountInString(tableCell(explained(x))))
		}
		for _, x := range xs {
			w.Printf("  %-*s %-*s %12s  %s\n", kindW, x.Kind, whatW, tableCell(explained(x)), money(x.Amount), x.Detail)
		}
		w.Printf("  explained %s of a gap of %s\n", money(t.Explained), money(t.Gap))
	}
	tableUnpriced(w, r.Unpriced)
	tableDaily(w, r.Daily)
	return w.Err
}

func tableBlend(out io.Writer, b *pricing.Blend) error {
	w := &textout.Writer{W: out}
	gateway := b.Mode == pricing.ModeGateway
	w.Printf("window    %s to %s (%s)\n", b.From.Format(time.RFC3339), b.Until.Format(time.RFC3339), b.Mode)
	if b.TariffAt.IsZero() {
		w.Printf("tariff    each call at the version in force at its own instant (historical)\n")
	} else {
		w.Printf("tariff    in force at %s, applied to every call of the window\n", b.TariffAt.Format(time.RFC3339))
	}
	if b.PeakShare.Valid {
		w.Printf("peak share of cost at off-peak prices: %s, used for every price that differs between periods\n", ratioText(b.PeakShare))
	}
	r := b.Rows
	w.Printf("rows      read %d: priced %d, outside the window %d, %sother %d\n\n", r.Read, r.Priced, r.Outside, retiredRows(r), r.Read-r.Priced-r.Outside-r.Retired)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	used := ""
	if gateway {
		used = "SHARE USED\t"
	}
	fmt.Fprintf(tw, "MODEL\tUSAGE\tTOKENS\tPEAK SHARE\t%sOFF-PEAK\tPEAK\tBLENDED /1M\tCURRENCY\tVERSIONS\t\n", used)
	for _, m := range b.Models {
		if len(m.Prices) == 0 {
			if gateway {
				used = "-\t"
			}
			fmt.Fprintf(tw, "%s\t-\t-\t-\t%s-\t-\t%s\t%s\t%s\t\n", m.Model, used, m.Reason, m.Currency, strings.Join(m.Versions, ", "))
			continue
		}
		for _, p := range m.Prices {
			if gateway {
				used = orDash(ratioText(p.ShareUsed)) + "\t"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s%s\t%s\t%s\t%s\t%s\t\n", m.Model, p.Usage, p.Tokens, p.PeakShare.StringFixed(pricing.RatioPlaces),
				used, p.OffPeak, p.Peak, p.Blended, m.Currency, strings.Join(m.Versions, ", "))
		}
	}
	tw.Flush()
	if note := perUseNote(b); note != "" {
		w.Printf("%s\n", note)
	}
	for _, m := range b.Models {
		for _, l := range m.LeftOut {
			w.Printf("left out  %s: %s, %d %s, official %s %s\n", m.Model, l.What, l.Quantity, l.Unit, money(l.Official), m.Currency)
		}
		if m.Retired != nil {
			w.Printf("retired   %s: %s\n", m.Model, m.Why())
		}
	}
	return w.Err
}

// retiredRows names the rows counted as retired, when there are any.
func retiredRows(r pricing.Rows) string {
	if r.Retired == 0 {
		return ""
	}
	return fmt.Sprintf("retired %d, ", r.Retired)
}

// perUseNote says which rows of a blend table are not per 1M tokens: tool
// uses are counted and priced per use, requests per call.
func perUseNote(b *pricing.Blend) string {
	var tools []string
	request := false
	for _, m := range b.Models {
		for _, p := range m.Prices {
			switch {
			case p.Usage.IsTool() && !slices.Contains(tools, p.Usage.String()):
				tools = append(tools, p.Usage.String())
			case p.Usage == tariffs.Request:
				request = true
			}
		}
	}
	var parts []string
	if len(tools) > 0 {
		parts = append(parts, strings.Join(tools, ", ")+": TOKENS counts uses and the prices are per use")
	}
	if request {
		parts = append(parts, "request: TOKENS counts calls and the prices are per call")
	}
	if len(parts) == 0 {
		return ""
	}
	return "per use   " + strings.Join(parts, "; ") + " (not per 1M tokens)"
}

func tableModels(out io.Writer, docs []modelDoc) error {
	w := &textout.Writer{W: out}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPROVIDER\tHOSTS\tCURRENCY\tPRICED VERSIONS\tNOW\tNAMES")
	for _, d := range docs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", d.Model, d.Provider, strings.Join(d.Hosts, ", "), d.Currency, d.Versions, d.StatusNow, strings.Join(d.Names, ", "))
	}
	tw.Flush()
	return w.Err
}

// tableCalls writes one line per call in fixed-width columns, so that it
// streams: an aligned table of every call would have to be held in memory.
type tableCalls struct {
	w      *textout.Writer
	header bool // written
}

func newTableCalls(w io.Writer) *tableCalls {
	return &tableCalls{w: &textout.Writer{W: &textout.Escaping{W: w}}}
}

// callLine is the layout of one line of the per-call table.
const callLine = "%-20s  %-24s  %-9s  %-8s  %10s  %10s  %10s  %12s  %12s  %12s  %s\n"

func (t *tableCalls) writeHeader() {
	if !t.header {
		t.w.Printf(callLine, "BILLED AT", "MODEL", "OUTCOME", "PERIOD", "INPUT", "CACHE READ", "OUTPUT", "OFFICIAL", "RECORDED", "GAP", "CURRENCY")
		t.header = true
	}
}

func (t *tableCalls) Write(c *ledger.Call, pc *pricing.PricedCall) error {
	t.writeHeader()
	d := newCallDoc(c, pc)
	t.w.Printf(callLine, pc.At.UTC().Format("2006-01-02T15:04:05Z"), tableCell(d.Model), d.Outcome, orDash(d.Period),
		itoa(d.Input), itoa(d.CacheRead), itoa(d.Output), callMoney(d.official), callMoney(d.recorded), callMoney(d.gap), orDash(d.currency))
	return t.w.Err
}

func (t *tableCalls) Flush() error {
	t.writeHeader()
	return t.w.Err
}

// callPlaces is how many decimals one call's money has in the per-call
// table: a call often costs less than DisplayPlaces can show.
const callPlaces = 6

func callMoney(d decimal.Decimal) string { return d.StringFixed(callPlaces) }

// tableBilled lists what priced calls were billed beyond plain tokens,
// when any: 1-hour writes and tool uses with their cost, calls of a
// service tier or region with theirs, and what of it the tariff does not
// price.
func tableBilled(w *textout.Writer, ms []pricing.Modifier) {
	if len(ms) == 0 {
		return
	}
	w.Printf("\nbilled beyond tokens (official cost of that usage; of those calls for a tier or region)\n")
	for i := range ms {
		m := &ms[i]
		note := ""
		if m.Unpriced > 0 {
			note = fmt.Sprintf("  (%d not priced by the tariff)", m.Unpriced)
		}
		w.Printf("  %-22s %12d %-6s %12s %s%s\n", m.What(), m.Quantity, m.Unit(), money(m.Official), m.Currency, note)
	}
}

// explained names what an explanation is about: its model, or the host no
// tariff prices.
func explained(x pricing.Explanation) string {
	if x.Model == "" && x.Host != "" {
		return "host " + x.Host
	}
	return x.Model
}

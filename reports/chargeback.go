package reports

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tokenfare/tokenfare/reports/jsonout"
	"github.com/tokenfare/tokenfare/reports/textout"

	"github.com/tokenfare/tokenfare/pricing"
)

// Chargeback writes per-consumer accounts in format f.
func Chargeback(w io.Writer, f Format, c *pricing.Chargeback) error {
	switch f {
	case JSON:
		return jsonChargeback(w, c)
	case YAML:
		doc := newChargebackDoc(c)
		for l, err := range c.Lines() {
			if err != nil {
				return err
			}
			doc.Lines = append(doc.Lines, newChargebackLineDoc(c, l, true))
		}
		return writeYAML(w, doc)
	}
	return writeAs(w, f, "a chargeback", c, tableChargeback, csvChargeback, func(*pricing.Chargeback) any { return nil })
}

// jsonChargeback writes c as the indented JSON of its chargebackDoc, byte
// for byte, but writes the lines one at a time as they are read, without
// a document of them all: a chargeback by key and day has a line per key
// and day.
func jsonChargeback(w io.Writer, c *pricing.Chargeback) error {
	head := jsonout.Indent(nil, mustMarshal(newChargebackDoc(c)))
	// The lines' place in the document: an empty list, the last field.
	mark := []byte("\n  \"lines\": []")
	at := bytes.LastIndex(head, mark)
	if at < 0 {
		return errors.New("write a chargeback: no place for its lines")
	}
	lw := newListWriter(w, head, at+len(mark)-1)
	for l, err := range c.Lines() {
		if err != nil {
			return err
		}
		err = lw.add(func(b []byte) []byte {
			line := jsonout.Indent(nil, mustMarshal(newChargebackLineDoc(c, l, true)))
			return append(b, bytes.ReplaceAll(bytes.TrimSuffix(line, []byte("\n")), []byte("\n"), []byte("\n    "))...)
		})
		if err != nil {
			return err
		}
	}
	return lw.close()
}

type chargebackDoc struct {
	From     string              `json:"from"`
	Until    string              `json:"until"`
	Currency string              `json:"currency"`
	Rows     rowsDoc             `json:"rows"`
	By       []string            `json:"by"`
	Gateway  chargebackLineDoc   `json:"gateway"`
	Excluded *chargebackLineDoc  `json:"excluded,omitempty"`
	Unpriced []unpricedDoc       `json:"unpriced,omitempty"`
	Lines    []chargebackLineDoc `json:"lines"`
}

type chargebackLineDoc struct {
	Keys           map[string]string `json:"keys,omitempty"`
	Calls          int64             `json:"calls"`
	Tokens         tokensDoc         `json:"tokens"`
	ToolUses       *toolUsesDoc      `json:"tool_uses,omitempty"`
	CacheHitTokens int64             `json:"cache_hit_tokens,omitempty"`
	Official       string            `json:"official"`
	Recorded       string            `json:"recorded"`
	Difference     string            `json:"difference"`
	PeakShare      string            `json:"peak_share"`
	AtBlended      string            `json:"at_blended"`
	Subsidy        string            `json:"subsidy"`
	ReasoningShare string            `json:"reasoning_share"`
}

func newChargebackDoc(c *pricing.Chargeback) *chargebackDoc {
	doc := &chargebackDoc{From: c.From.Format(time.RFC3339), Until: c.Until.Format(time.RFC3339),
		Currency: currencyText(c.Currencies), Rows: rowsDoc(c.Rows), By: []string{},
		Gateway: newChargebackLineDoc(c, &c.Gateway, false), Unpriced: unpricedDocs(c.Unpriced), Lines: []chargebackLineDoc{}}
	for _, d := range c.By {
		doc.By = append(doc.By, dimName(c, d))
	}
	if c.Excluded != nil {
		x := newChargebackLineDoc(c, c.Excluded, false)
		x.PeakShare, x.AtBlended, x.Subsidy = ratioText(c.Excluded.PeakShare), "", ""
		doc.Excluded = &x
	}
	return doc
}

func newChargebackLineDoc(c *pricing.Chargeback, l *pricing.ChargebackLine, keyed bool) chargebackLineDoc {
	doc := chargebackLineDoc{Calls: l.Calls, Tokens: newTokensDoc(l.Tokens), ToolUses: toolUsesOf(l.Tokens), CacheHitTokens: l.CacheHitTokens,
		Official: l.Official.String(),
		Recorded: l.Recorded.String(), Difference: l.Diff.String(), PeakShare: ratioText(l.PeakShare),
		AtBlended: l.AtBlended.String(), Subsidy: l.Subsidy.String(), ReasoningShare: ratioText(l.ReasoningShare)}
	if keyed {
		doc.Keys = lineKeys(c, l)
	}
	return doc
}

// dimName names a chargeback's dimension: "meta:FIELD" for DimMeta.
func dimName(c *pricing.Chargeback, d pricing.Dim) string {
	if d == pricing.DimMeta {
		return "meta:" + c.MetaField
	}
	return d.String()
}

// lineKeys names a line in each dimension, with its key's alias when known.
func lineKeys(c *pricing.Chargeback, l *pricing.ChargebackLine) map[string]string {
	keys := make(map[string]string, len(c.By)+1)
	for _, d := range c.By {
		keys[dimName(c, d)] = l.Key.Value(d)
	}
	if l.KeyAlias != "" {
		keys[keyAliasColumn] = l.KeyAlias
	}
	return keys
}

// chargebackColumns are the dimension columns, the key alias beside the key.
func chargebackColumns(c *pricing.Chargeback) []string {
	cols := make([]string, 0, len(c.By)+1)
	for _, d := range c.By {
		cols = append(cols, dimName(c, d))
		if d == pricing.DimKey {
			cols = append(cols, keyAliasColumn)
		}
	}
	return cols
}

func csvChargeback(w io.Writer, c *pricing.Chargeback) error {
	cw := csv.NewWriter(w)
	cols := chargebackColumns(c)
	cw.Write(append(cols, "calls", "input", "cache_read", "cache_write", "output", "reasoning", "official", "recorded",
		"difference", "peak_share", "gateway_peak_share", "at_blended", "subsidy", "reasoning_share",
		"cache_write_1h", "web_search", "web_fetch", "file_search", "cache_hit_tokens", "currency"))
	cur, gwPeak := currencyText(c.Currencies), ratioText(c.Gateway.PeakShare)
	var err error
	for l, lerr := range c.Lines() {
		if err = lerr; err != nil {
			break
		}
		keys := lineKeys(c, l)
		row := make([]string, 0, len(cols)+19)
		for _, col := range cols {
			row = append(row, sheetText(keys[col]))
		}
		t := l.Tokens
		row = append(row, itoa(l.Calls), itoa(t.Input), itoa(t.CacheRead), itoa(t.CacheWrite), itoa(t.Output),
			itoa(t.Reasoning), l.Official.String(), l.Recorded.String(), l.Diff.String(), ratioText(l.PeakShare), gwPeak,
			l.AtBlended.String(), l.Subsidy.String(), ratioText(l.ReasoningShare),
			itoa(t.CacheWrite1h), itoa(t.WebSearch), itoa(t.WebFetch), itoa(t.FileSearch), itoa(l.CacheHitTokens), cur)
		if err = cw.Write(row); err != nil {
			break
		}
	}
	cw.Flush()
	return errors.Join(err, cw.Error())
}

func tableChargeback(out io.Writer, c *pricing.Chargeback) error {
	w := &textout.Writer{W: out}
	g, rows, cur := &c.Gateway, c.Rows, currencyText(c.Currencies)
	w.Printf("period    %s to %s\n", c.From.Format(time.RFC3339), c.Until.Format(time.RFC3339))
	w.Printf("rows      read %d: priced %d, unpriced %d, retired %d, failed %d, duplicate %d, rejected %d, outside %d%s\n",
		rows.Read, rows.Priced, rows.Unpriced, rows.Retired, rows.Failed, rows.Duplicate, rows.Rejected, rows.Outside,
		cacheHitNote(rows.CacheHit))
	w.Printf("gateway   official %s %s, recorded %s, peak share %s, reasoning share %s\n",
		money(g.Official), cur, money(g.Recorded), orDash(ratioText(g.PeakShare)), orDash(ratioText(g.ReasoningShare)))
	if x := c.Excluded; x != nil {
		w.Printf("excluded  official %s %s, recorded %s, %d call(s) of the keys left out (--exclude-key)\n",
			money(x.Official), cur, money(x.Recorded), x.Calls)
	}
	w.Printf("\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	var header []string
	for _, d := range c.By {
		header = append(header, strings.ToUpper(dimName(c, d)))
	}
	fmt.Fprintf(tw, "%s\tCALLS\tINPUT\tCACHE_READ\tCACHE_WRITE\tOUTPUT\tREASONING\tOFFICIAL\tRECORDED\tDIFFERENCE\tPEAK_SHARE\tAT_BLENDED\tSUBSIDY\tREASONING_SHARE\t\n",
		strings.Join(header, "\t"))
	for l, err := range c.Lines() {
		if err != nil {
			return err
		}
		vals := make([]string, len(c.By))
		for j, d := range c.By {
			vals[j] = l.Key.Value(d)
			if d == pricing.DimKey && l.KeyAlias != "" {
				vals[j] = l.KeyAlias
			}
			vals[j] = orDash(vals[j])
		}
		t := l.Tokens
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", strings.Join(vals, "\t"), l.Calls,
			t.Input, t.CacheRead, t.CacheWrite, t.Output, t.Reasoning, money(l.Official), money(l.Recorded), money(l.Diff),
			orDash(ratioText(l.PeakShare)), money(l.AtBlended), money(l.Subsidy), orDash(ratioText(l.ReasoningShare)))
	}
	tw.Flush()
	w.Printf("\nSUBSIDY = AT_BLENDED − OFFICIAL: what a line pays for others at the gateway's blended prices (negative: others pay for it).\n")
	tableUnpriced(w, c.Unpriced)
	return w.Err
}

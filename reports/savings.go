package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/reports/textout"
)

// SavingsReport is what the levers would save over a period, with the
// row accounting of the run that read it.
type SavingsReport struct {
	From, Until time.Time
	Rows        pricing.Rows
	Result      *savings.Result
}

// LeverCondition says what a lever assumes of the calls it moves.
func LeverCondition(l savings.Lever) string {
	switch l {
	case savings.Offpeak:
		return "the call waits for the next off-peak instant of its tariff (weekends, holidays and the provider's time zone counted)"
	case savings.Batch:
		return "the call goes through the batch API: results within 24 h"
	case savings.Flex:
		return "the call asks for the flex tier: slower, and may be refused when capacity is short"
	case savings.Host:
		return "the call goes to the cheapest other host listing its model at that instant; a call pinned to a region or data zone stays"
	}
	return ""
}

// delayText names a delay bucket for a person.
var delayText = [savings.NumDelays]string{"under 1 h", "1-3 h", "3-12 h", "12 h or more"}

// Savings writes what the levers would save in format f.
func Savings(w io.Writer, f Format, r *SavingsReport) error {
	return writeAs(w, f, "savings", r, tableSavings, csvSavings, func(r *SavingsReport) any { return newSavingsDoc(r) })
}

type savingsDoc struct {
	From     string           `json:"from"`
	Until    string           `json:"until"`
	Currency string           `json:"currency"`
	Rows     rowsDoc          `json:"rows"`
	By       []string         `json:"by"`
	Levers   []leverDoc       `json:"levers"`
	Total    savingsLineDoc   `json:"total"`
	Lines    []savingsLineDoc `json:"lines"`
}

type leverDoc struct {
	Lever     string `json:"lever"`
	Condition string `json:"condition"`
}

type savingsLineDoc struct {
	Keys        map[string]string       `json:"keys,omitempty"`
	PricedCalls int64                   `json:"priced_calls"`
	Served      string                  `json:"served"`
	Saving      string                  `json:"saving"`
	UnderLevers string                  `json:"under_levers"`
	BestCalls   map[string]int64        `json:"best_calls"`
	Levers      map[string]leverSumsDoc `json:"levers"`
	Hosts       map[string]leverSumsDoc `json:"hosts,omitempty"`
	Outside     outsideDoc              `json:"outside"`
}

type leverSumsDoc struct {
	Calls  int64            `json:"calls"`
	Served string           `json:"served"`
	Under  string           `json:"under"`
	Saving string           `json:"saving"`
	Delays map[string]int64 `json:"delays,omitempty"`
}

type outsideDoc struct {
	Unpriced int64 `json:"unpriced"`
	Failed   int64 `json:"failed"`
	CacheHit int64 `json:"cache_hit"`
}

func newSavingsDoc(r *SavingsReport) *savingsDoc {
	res := r.Result
	doc := &savingsDoc{From: r.From.Format(time.RFC3339), Until: r.Until.Format(time.RFC3339),
		Currency: currencyText(res.Currencies), Rows: rowsDoc(r.Rows), By: []string{},
		Total: newSavingsLineDoc(res, res.Total, false), Lines: []savingsLineDoc{}}
	for _, d := range res.Dims {
		doc.By = append(doc.By, d.String())
	}
	for _, l := range res.Levers {
		doc.Levers = append(doc.Levers, leverDoc{Lever: l.String(), Condition: LeverCondition(l)})
	}
	for _, l := range res.Lines {
		doc.Lines = append(doc.Lines, newSavingsLineDoc(res, l, true))
	}
	return doc
}

func newSavingsLineDoc(res *savings.Result, l *savings.Line, keyed bool) savingsLineDoc {
	doc := savingsLineDoc{PricedCalls: l.Priced, Served: l.Served.String(), Saving: l.Saving().String(),
		UnderLevers: l.Levered.String(), BestCalls: map[string]int64{}, Levers: map[string]leverSumsDoc{},
		Outside: outsideDoc{Unpriced: l.Outside.Unpriced, Failed: l.Outside.Failed, CacheHit: l.Outside.CacheHit}}
	if keyed {
		doc.Keys = savingsKeys(res, l)
	}
	for _, lv := range res.Levers {
		doc.BestCalls[lv.String()] = l.BestBy[lv]
		doc.Levers[lv.String()] = newLeverSumsDoc(&l.Levers[lv], lv == savings.Offpeak)
	}
	for h, s := range l.Hosts {
		if doc.Hosts == nil {
			doc.Hosts = map[string]leverSumsDoc{}
		}
		doc.Hosts[h] = newLeverSumsDoc(s, false)
	}
	return doc
}

func newLeverSumsDoc(s *savings.Sums, delays bool) leverSumsDoc {
	doc := leverSumsDoc{Calls: s.Calls, Served: s.Served.String(), Under: s.Under.String(), Saving: s.Saving().String()}
	if delays {
		doc.Delays = map[string]int64{}
		for d := range savings.NumDelays {
			doc.Delays[savings.Delay(d).String()] = s.Delays[d]
		}
	}
	return doc
}

// savingsKeys names a line in each dimension, with its key's alias.
func savingsKeys(res *savings.Result, l *savings.Line) map[string]string {
	keys := make(map[string]string, len(res.Dims)+1)
	for _, d := range res.Dims {
		keys[d.String()] = l.Key.Value(d)
	}
	if l.KeyAlias != "" {
		keys[keyAliasColumn] = l.KeyAlias
	}
	return keys
}

// savingsColumns are the dimension columns, the key alias beside the key.
func savingsColumns(res *savings.Result) []string {
	var cols []string
	for _, d := range res.Dims {
		cols = append(cols, d.String())
		if d == pricing.DimKey {
			cols = append(cols, keyAliasColumn)
		}
	}
	return cols
}

func csvSavings(w io.Writer, r *SavingsReport) error {
	res := r.Result
	cw := csv.NewWriter(w)
	cols := savingsColumns(res)
	head := append(append([]string{}, cols...), "priced_calls", "served", "saving", "under_levers")
	for _, lv := range res.Levers {
		n := lv.String()
		head = append(head, n+"_calls", n+"_served", n+"_under", n+"_saving", n+"_best_calls")
		if lv == savings.Offpeak {
			for d := range savings.NumDelays {
				head = append(head, "offpeak_"+savings.Delay(d).String())
			}
		}
	}
	cw.Write(append(head, "unpriced", "failed", "cache_hit", "currency"))
	cur := currencyText(res.Currencies)
	for _, l := range res.Lines {
		keys := savingsKeys(res, l)
		row := make([]string, 0, len(head)+4)
		for _, c := range cols {
			row = append(row, sheetText(keys[c]))
		}
		row = append(row, itoa(l.Priced), l.Served.String(), l.Saving().String(), l.Levered.String())
		for _, lv := range res.Levers {
			s := &l.Levers[lv]
			row = append(row, itoa(s.Calls), s.Served.String(), s.Under.String(), s.Saving().String(), itoa(l.BestBy[lv]))
			if lv == savings.Offpeak {
				for _, n := range s.Delays {
					row = append(row, itoa(n))
				}
			}
		}
		cw.Write(append(row, itoa(l.Outside.Unpriced), itoa(l.Outside.Failed), itoa(l.Outside.CacheHit), cur))
	}
	cw.Flush()
	return cw.Error()
}

func tableSavings(out io.Writer, r *SavingsReport) error {
	w := &textout.Writer{W: out}
	res, t, rows := r.Result, r.Result.Total, r.Rows
	cur := currencyText(res.Currencies)
	w.Printf("period    %s to %s\n", r.From.Format(time.RFC3339), r.Until.Format(time.RFC3339))
	w.Printf("rows      read %d: priced %d, unpriced %d, retired %d, failed %d, duplicate %d, rejected %d, outside %d%s\n",
		rows.Read, rows.Priced, rows.Unpriced, rows.Retired, rows.Failed, rows.Duplicate, rows.Rejected, rows.Outside,
		cacheHitNote(rows.CacheHit))
	w.Printf("total     served %s %s, saving %s with each call under its best lever, %s under the levers\n",
		money(t.Served), cur, money(t.Saving()), money(t.Levered))
	w.Printf("outside   %d call(s) under no lever: unpriced %d, failed %d, cache hit %d\n",
		t.Outside.Total(), t.Outside.Unpriced, t.Outside.Failed, t.Outside.CacheHit)
	for _, lv := range res.Levers {
		s := &t.Levers[lv]
		w.Printf("%-9s %d call(s), saving %s of %s alone%s: %s\n", lv, s.Calls, money(s.Saving()), money(s.Served),
			delaysNote(lv, s), LeverCondition(lv))
	}
	w.Printf("\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, savingsHeader(res))
	for _, l := range res.Lines {
		fmt.Fprint(tw, savingsRow(res, l))
	}
	return tw.Flush()
}

// delaysNote is the offpeak lever's delays, "" for the other levers.
func delaysNote(lv savings.Lever, s *savings.Sums) string {
	if lv != savings.Offpeak || s.Calls == 0 {
		return ""
	}
	parts := make([]string, 0, savings.NumDelays)
	for d, n := range s.Delays {
		parts = append(parts, fmt.Sprintf("%s %d", delayText[d], n))
	}
	return " (delay: " + strings.Join(parts, ", ") + ")"
}

func savingsHeader(res *savings.Result) string {
	var cells []string
	for _, d := range res.Dims {
		cells = append(cells, strings.ToUpper(d.String()))
	}
	cells = append(cells, "PRICED", "SERVED")
	for _, lv := range res.Levers {
		cells = append(cells, strings.ToUpper(lv.String()))
	}
	return strings.Join(append(cells, "SAVING", "UNDER_LEVERS", "OUTSIDE", ""), "\t") + "\n"
}

func savingsRow(res *savings.Result, l *savings.Line) string {
	var cells []string
	for _, d := range res.Dims {
		v := l.Key.Value(d)
		if d == pricing.DimKey && l.KeyAlias != "" {
			v = l.KeyAlias
		}
		cells = append(cells, tableCell(orDash(v)))
	}
	cells = append(cells, itoa(l.Priced), money(l.Served))
	for _, lv := range res.Levers {
		cells = append(cells, money(l.Levers[lv].Saving()))
	}
	return strings.Join(append(cells, money(l.Saving()), money(l.Levered), itoa(l.Outside.Total()), ""), "\t") + "\n"
}

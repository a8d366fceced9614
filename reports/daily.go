package reports

import (
	"fmt"
	"io"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/reports/textout"
)

// dailyDoc is a daily table against the spend logs, in JSON.
type dailyDoc struct {
	Source      string           `json:"source"`
	Table       string           `json:"table"`
	From        string           `json:"from,omitempty"`
	Until       string           `json:"until,omitempty"`
	OldestLog   string           `json:"oldest_log,omitempty"`
	Groups      int64            `json:"groups"`
	Matched     int64            `json:"matched"`
	Daily       dailyCountsDoc   `json:"daily"`
	Logged      dailyCountsDoc   `json:"logged"`
	Differences []dailyKindDoc   `json:"differences"`
	Listed      []dailyListedDoc `json:"listed"`
}

// dailyCountsDoc is what one side counts.
type dailyCountsDoc struct {
	Requests         int64  `json:"requests"`
	Successful       int64  `json:"successful"`
	Failed           int64  `json:"failed"`
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	Spend            string `json:"spend"`
}

// dailyKindDoc sums the differences of one kind: the daily table's
// counts less the spend logs'.
type dailyKindDoc struct {
	Kind   string         `json:"kind"`
	Groups int64          `json:"groups"`
	Counts dailyCountsDoc `json:"daily_less_logged"`
	Detail string         `json:"detail"`
}

// dailyListedDoc is one day, key and model whose sides disagree.
type dailyListedDoc struct {
	Day    string         `json:"day"`
	Key    string         `json:"key"`
	Model  string         `json:"model"`
	Kind   string         `json:"kind"`
	Daily  dailyCountsDoc `json:"daily"`
	Logged dailyCountsDoc `json:"logged"`
}

func newDailyCountsDoc(c ledger.DailyCounts) dailyCountsDoc {
	return dailyCountsDoc{Requests: c.Requests, Successful: c.Successful, Failed: c.Failed, PromptTokens: c.Prompt,
		CompletionTokens: c.Completion, Spend: c.Spend.String()}
}

// newDailyDocs returns the documents of daily comparisons; nil for none.
func newDailyDocs(cs []*ledger.DailyComparison) []dailyDoc {
	var out []dailyDoc
	for _, c := range cs {
		d := dailyDoc{Source: c.Source, Table: c.Table, From: c.From, Until: c.Until, Groups: c.Groups, Matched: c.Matched,
			Daily: newDailyCountsDoc(c.Daily), Logged: newDailyCountsDoc(c.Logged), Differences: []dailyKindDoc{}, Listed: []dailyListedDoc{}}
		if !c.OldestLog.IsZero() {
			d.OldestLog = c.OldestLog.Format("2006-01-02T15:04:05.999Z07:00")
		}
		for _, k := range ledger.DailyKinds() {
			if c.Counts[k] > 0 {
				d.Differences = append(d.Differences, dailyKindDoc{Kind: k.String(), Groups: c.Counts[k],
					Counts: newDailyCountsDoc(c.ByKind[k]), Detail: dailyDetail(c, k)})
			}
		}
		for _, x := range c.Listed {
			d.Listed = append(d.Listed, dailyListedDoc{Day: x.Day, Key: x.Key, Model: x.Model, Kind: x.Kind.String(),
				Daily: newDailyCountsDoc(x.Daily), Logged: newDailyCountsDoc(x.Logged)})
		}
		out = append(out, d)
	}
	return out
}

// dailyDetail says in a sentence what the differences of kind k are.
func dailyDetail(c *ledger.DailyComparison, k ledger.DailyKind) string {
	s := c.ByKind[k]
	switch k {
	case ledger.MissingFromSpendLogs:
		return fmt.Sprintf("%s counts %d request(s), %d prompt and %d completion tokens and %s spend the spend logs do not hold, "+
			"in %d day(s) × key × model: counted but not logged", c.Table, s.Requests, s.Prompt, s.Completion, s.Spend, c.Counts[k])
	case ledger.MissingFromDailyTable:
		n := ledger.DailyCounts{}.Sub(s) // the spend logs' excess, as positive counts
		return fmt.Sprintf("the spend logs hold %d request(s), %d prompt and %d completion tokens and %s spend %s does not count, "+
			"in %d day(s) × key × model", n.Requests, n.Prompt, n.Completion, n.Spend, c.Table, c.Counts[k])
	}
	return fmt.Sprintf("%d request(s) and %s spend on days before %s, the oldest the spend logs still hold: "+
		"their rows are past the logs' retention (maximum_spend_logs_retention_period), not lost money",
		s.Requests, s.Spend, c.OldestLog.Format("2006-01-02"))
}

// tableDaily writes the daily comparisons as text, one paragraph each.
func tableDaily(w *textout.Writer, cs []*ledger.DailyComparison) {
	for _, c := range cs {
		span := "every day"
		if c.From != "" || c.Until != "" {
			span = fmt.Sprintf("UTC days %s to %s (exclusive)", orDash(c.From), orDash(c.Until))
		}
		w.Printf("\ndaily table %s of %s against the spend logs, %s: %d day(s) × key × model, %d the same\n",
			c.Table, c.Source, span, c.Groups, c.Matched)
		for _, k := range ledger.DailyKinds() {
			if c.Counts[k] > 0 {
				w.Printf("  %-24s %s\n", k, dailyDetail(c, k))
			}
		}
		for _, x := range c.Listed {
			w.Printf("  %s %s %s (%s): daily %d request(s) %s, logged %d %s\n", x.Day, tableCell(x.Key), tableCell(x.Model), x.Kind,
				x.Daily.Requests, x.Daily.Spend, x.Logged.Requests, x.Logged.Spend)
		}
	}
}

// DailyLines writes the daily comparisons as text, as reconcile's table
// ends with them.
func DailyLines(out io.Writer, cs []*ledger.DailyComparison) error {
	w := &textout.Writer{W: out}
	tableDaily(w, cs)
	return w.Err
}

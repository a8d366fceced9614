package ledger

import (
	"time"

	"github.com/shopspring/decimal"
)

// DailyKind is what a difference between a gateway's daily table and its
// spend logs is.
type DailyKind uint8

// Kinds of difference, by which side counts more.
const (
	// MissingFromSpendLogs: the daily table counts requests, tokens or
	// spend the spend logs do not hold (spend logs switched off, a write
	// that failed, rows deleted).
	MissingFromSpendLogs DailyKind = iota
	// MissingFromDailyTable: the spend logs hold calls the daily table
	// does not count (its update lost, or rows inserted by hand).
	MissingFromDailyTable
	// BeyondRetention: a day before that of the oldest spend-log row: the
	// spend logs' retention deleted its rows, the daily table keeps them.
	// Not money lost. (The oldest row's own day is compared as any other:
	// retention deletes by instant, so part of that day may be gone too.)
	BeyondRetention
	numDailyKinds
)

var dailyKindNames = [numDailyKinds]string{"missing_from_spend_logs", "missing_from_daily_table", "beyond_retention"}

// String returns the kind's name as reports spell it.
func (k DailyKind) String() string { return dailyKindNames[k] }

// DailyKinds lists every kind, in order.
func DailyKinds() []DailyKind {
	return []DailyKind{MissingFromSpendLogs, MissingFromDailyTable, BeyondRetention}
}

// DailyCounts are what one side counts of a UTC day, key and model.
type DailyCounts struct {
	Requests, Successful, Failed int64
	Prompt, Completion           int64 // tokens
	Spend                        decimal.Decimal
}

// Sub returns c less o, field by field.
func (c DailyCounts) Sub(o DailyCounts) DailyCounts {
	return DailyCounts{Requests: c.Requests - o.Requests, Successful: c.Successful - o.Successful, Failed: c.Failed - o.Failed,
		Prompt: c.Prompt - o.Prompt, Completion: c.Completion - o.Completion, Spend: c.Spend.Sub(o.Spend)}
}

// Add adds o to c, field by field.
func (c *DailyCounts) Add(o DailyCounts) {
	c.Requests, c.Successful, c.Failed = c.Requests+o.Requests, c.Successful+o.Successful, c.Failed+o.Failed
	c.Prompt, c.Completion, c.Spend = c.Prompt+o.Prompt, c.Completion+o.Completion, c.Spend.Add(o.Spend)
}

// DailyDifference is one UTC day, key and model whose daily table and
// spend logs disagree.
type DailyDifference struct {
	Day    string // UTC, YYYY-MM-DD
	Key    string // the hashed key, as both tables keep it
	Model  string
	Kind   DailyKind
	Daily  DailyCounts // what the daily table counts
	Logged DailyCounts // what the spend logs hold
}

// MaxDailyListed is how many differences a comparison lists; the others
// are only summed.
const MaxDailyListed = 20

// DailyComparison is a gateway's daily table against its spend logs, per
// UTC day, key and model, over whole UTC days.
type DailyComparison struct {
	Source string // the database, without its password
	Table  string // the daily table compared
	// From and Until are the UTC days compared, [From, Until): From is no
	// earlier than the daily table's first day; Until is empty for every
	// day the tables hold.
	From, Until string
	// OldestLog is the start of the oldest spend-log row the database
	// holds (zero when none): the days before its own are beyond retention.
	OldestLog time.Time
	Groups    int64 // days × keys × models compared
	Matched   int64 // of them, the same on both sides
	// Daily and Logged are each side's totals over the days compared.
	Daily, Logged DailyCounts
	// ByKind sums the differences of each kind (daily less logged) and
	// Counts how many groups of each kind there are.
	ByKind [numDailyKinds]DailyCounts
	Counts [numDailyKinds]int64
	// Listed are the first MaxDailyListed differences, by day, key, model.
	Listed []DailyDifference
}

// Note adds one group compared: a difference when the sides disagree on
// requests or, beyond floating-point noise, on spend.
func (c *DailyComparison) Note(day, key, model string, daily, logged DailyCounts) {
	c.Groups++
	c.Daily.Add(daily)
	c.Logged.Add(logged)
	if daily.Requests == logged.Requests && closeSpend(daily.Spend, logged.Spend) {
		c.Matched++
		return
	}
	d := DailyDifference{Day: day, Key: key, Model: model, Daily: daily, Logged: logged, Kind: MissingFromSpendLogs}
	switch {
	case !c.OldestLog.IsZero() && day < c.OldestLog.UTC().Format(time.DateOnly):
		d.Kind = BeyondRetention
	case daily.Requests < logged.Requests || daily.Requests == logged.Requests && daily.Spend.LessThan(logged.Spend):
		d.Kind = MissingFromDailyTable
	}
	c.ByKind[d.Kind].Add(daily.Sub(logged))
	c.Counts[d.Kind]++
	if len(c.Listed) < MaxDailyListed {
		c.Listed = append(c.Listed, d)
	}
}

// spendNoise is the difference in spend taken as floating-point noise:
// both tables keep doubles, summed in different orders.
var spendNoise = decimal.New(1, -9)

// closeSpend reports whether two spends differ by no more than noise.
func closeSpend(a, b decimal.Decimal) bool { return a.Sub(b).Abs().LessThanOrEqual(spendNoise) }

package pricing

import (
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Reconciliation compares what the gateway recorded with the official cost.
// Money is given as exact decimal strings. Gap is official minus recorded:
// positive when the gateway recorded too little. Ratio is recorded/official.
type Reconciliation struct {
	Rows         Rows          `json:"rows"`
	Currency     string        `json:"currency"`
	Totals       Totals        `json:"totals"`
	By           []string      `json:"by"`
	Groups       []Group       `json:"groups"`
	Explanations []Explanation `json:"explanations"`
}

// Totals are the sums over every call read.
type Totals struct {
	Calls     int64  `json:"calls"`
	Official  string `json:"official"`
	Recorded  string `json:"recorded"`
	Gap       string `json:"gap"`
	Ratio     string `json:"ratio"`
	Explained string `json:"explained"` // the part of the gap the explanations account for
}

// Group is one row of the reconciliation by the dimensions asked for.
type Group struct {
	Keys        map[string]string `json:"keys"`
	Calls       int64             `json:"calls"`
	PricedCalls int64             `json:"priced_calls"`
	Tokens      TokenCounts       `json:"tokens"`
	Official    string            `json:"official"`
	Recorded    string            `json:"recorded"`
	Gap         string            `json:"gap"`
	Ratio       string            `json:"ratio"`

	official, recorded decimal.Decimal
	keyAlias           string
}

// TokenCounts are token totals by usage type; Output includes Reasoning.
type TokenCounts struct {
	Input      int64 `json:"input"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Output     int64 `json:"output"`
	Reasoning  int64 `json:"reasoning"`
}

func (t *TokenCounts) add(q *Quantities) {
	t.Input += q[tariffs.Input]
	t.CacheRead += q[tariffs.CacheRead]
	t.CacheWrite += q[tariffs.CacheWrite]
	t.Output += q[tariffs.Output] + q[tariffs.Reasoning]
	t.Reasoning += q[tariffs.Reasoning]
}

// Reconcile builds the reconciliation of everything the engine priced,
// grouped by the engine's dimensions.
func (e *Engine) Reconcile() *Reconciliation {
	r := &Reconciliation{Rows: e.rows, By: []string{}, Groups: []Group{}}
	for _, d := range e.opts.Dims {
		r.By = append(r.By, d.String())
	}
	groups := map[string]*Group{}
	official, recorded := decimal.Zero, decimal.Zero
	currencies := map[string]bool{}
	var calls int64
	for _, b := range e.sortedBuckets() {
		o := b.Official()
		official, recorded = official.Add(o), recorded.Add(b.Recorded())
		calls += b.Calls
		if b.Model != nil && b.k.outcome == Priced {
			currencies[b.Model.Provider.Currency] = true
		}
		keys := e.groupKeys(b)
		id := joinKeys(keys)
		g := groups[id]
		if g == nil {
			g = &Group{Keys: keys, official: decimal.Zero, recorded: decimal.Zero}
			groups[id] = g
		}
		g.Calls += b.Calls
		if b.k.outcome == Priced {
			g.PricedCalls += b.Calls
		}
		g.Tokens.add(&b.Qty)
		g.official, g.recorded = g.official.Add(o), g.recorded.Add(b.Recorded())
		g.keyAlias = firstAlias(g.keyAlias, b.KeyAlias)
	}
	for _, g := range groups {
		if g.keyAlias != "" {
			g.Keys["key_alias"] = g.keyAlias
		}
		g.Official, g.Recorded = g.official.String(), g.recorded.String()
		g.Gap, g.Ratio = g.official.Sub(g.recorded).String(), ratioString(g.recorded, g.official)
		r.Groups = append(r.Groups, *g)
	}
	sort.Slice(r.Groups, func(i, j int) bool { return joinKeys(r.Groups[i].Keys) < joinKeys(r.Groups[j].Keys) })
	r.Currency = currencyOf(currencies)
	r.Explanations = e.explain()
	explained := decimal.Zero
	for _, x := range r.Explanations {
		if x.Kind != KindUnexplained {
			explained = explained.Add(decimal.RequireFromString(x.Amount))
		}
	}
	r.Totals = Totals{Calls: calls, Official: official.String(), Recorded: recorded.String(),
		Gap: official.Sub(recorded).String(), Ratio: ratioString(recorded, official), Explained: explained.String()}
	return r
}

func currencyOf(set map[string]bool) string {
	var list []string
	for c := range set {
		list = append(list, c)
	}
	sort.Strings(list)
	return strings.Join(list, "+")
}

// groupKeys names the bucket's group in each dimension asked for.
func (e *Engine) groupKeys(b *Bucket) map[string]string {
	keys := map[string]string{}
	for _, d := range e.opts.Dims {
		var v string
		switch d {
		case DimModel:
			v = b.k.name()
		case DimGroup:
			v = b.k.group
		case DimKey:
			v = b.k.key
		case DimTeam:
			v = b.k.team
		case DimUser:
			v = b.k.user
		case DimDay:
			v = time.Unix(b.k.slot, 0).In(e.zone).Format(time.DateOnly)
		case DimHour:
			v = time.Unix(b.k.slot, 0).In(e.zone).Format("2006-01-02T15:04Z07:00")
		case DimPeriod:
			v = b.PeriodName()
			if b.k.outcome != Priced {
				v = "(" + b.k.outcome.String() + ")"
			}
		case DimVersion:
			if b.k.version != nil {
				v = b.k.version.Name
			}
		}
		keys[d.String()] = v
	}
	return keys
}

func joinKeys(keys map[string]string) string {
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var sb strings.Builder
	for _, k := range names {
		sb.WriteString(k + "=" + keys[k] + "\x00")
	}
	return sb.String()
}

// sortedBuckets returns the buckets in a fixed order, so that output and
// sums do not depend on map order.
func (e *Engine) sortedBuckets() []*Bucket {
	bs := e.Buckets()
	sort.Slice(bs, func(i, j int) bool { return bucketLess(&bs[i].k, &bs[j].k) })
	return bs
}

func bucketLess(a, b *bucketKey) bool {
	if an, bn := a.name(), b.name(); an != bn {
		return an < bn
	}
	av, bv := versionTime(a.version), versionTime(b.version)
	switch {
	case av != bv:
		return av < bv
	case a.period != b.period:
		return a.period < b.period
	case a.tier != b.tier:
		return a.tier < b.tier
	case a.outcome != b.outcome:
		return a.outcome < b.outcome
	case a.zero != b.zero:
		return !a.zero
	case a.noSpend != b.noSpend:
		return !a.noSpend
	case a.group != b.group:
		return a.group < b.group
	case a.key != b.key:
		return a.key < b.key
	case a.team != b.team:
		return a.team < b.team
	case a.user != b.user:
		return a.user < b.user
	}
	return a.slot < b.slot
}

func versionTime(v *tariffs.Version) int64 {
	if v == nil {
		return -1 << 63
	}
	return v.Effective.UnixNano()
}

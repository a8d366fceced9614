package metrics

import (
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

var (
	descBudget = prometheus.NewDesc("tokenfare_budget",
		"Monthly budget of a team, key or tag (the budgets file).", []string{"kind", "name", "currency"}, nil)
	descBudgetSpent = prometheus.NewDesc("tokenfare_budget_spent",
		"Official cost this UTC month of the budget's team, key or tag.", []string{"kind", "name", "currency"}, nil)
	descBudgetRemaining = prometheus.NewDesc("tokenfare_budget_remaining",
		"Budget less the official cost this UTC month.", []string{"kind", "name", "currency"}, nil)
	descBudgetForecast = prometheus.NewDesc("tokenfare_budget_forecast",
		"Month-end forecast: this month's official cost at the month's pace so far (spent × month length / time elapsed).",
		[]string{"kind", "name", "currency"}, nil)
)

// budgetMonth is this month's official cost by team, by key (its hash
// and alias) and by set of request tags, the targets a budget names:
// summed exactly in integers (add), then made decimals once (done).
type budgetMonth struct {
	team map[string]decimal.Decimal
	key  map[keyNames]decimal.Decimal
	tags map[string]decimal.Decimal // by ledger.Call.Tags

	sums map[budgetKey]*pricing.ExactSum
}

// keyNames are the two names a key budget may give a key by.
type keyNames struct{ hash, alias string }

// budgetKey is what a call's cost counts in: its team, key and tags.
type budgetKey struct {
	team string
	key  keyNames
	tags string
}

func newBudgetMonth() *budgetMonth {
	return &budgetMonth{team: map[string]decimal.Decimal{}, key: map[keyNames]decimal.Decimal{}, tags: map[string]decimal.Decimal{},
		sums: map[budgetKey]*pricing.ExactSum{}}
}

func (b *budgetMonth) add(team string, key keyNames, tags string, official ledger.Amount) {
	b.sum(team, key, tags).Add(official)
}

func (b *budgetMonth) merge(team string, key keyNames, tags string, official *pricing.ExactSum) {
	b.sum(team, key, tags).Merge(official)
}

func (b *budgetMonth) sum(team string, key keyNames, tags string) *pricing.ExactSum {
	k := budgetKey{team, key, tags}
	s := b.sums[k]
	if s == nil {
		s = &pricing.ExactSum{}
		b.sums[k] = s
	}
	return s
}

// done makes the sums decimals by team, key and tags.
func (b *budgetMonth) done() *budgetMonth {
	for k, s := range b.sums {
		v := s.Value()
		b.team[k.team] = b.team[k.team].Add(v)
		b.key[k.key] = b.key[k.key].Add(v)
		b.tags[k.tags] = b.tags[k.tags].Add(v)
	}
	b.sums = map[budgetKey]*pricing.ExactSum{}
	return b
}

// keySpent is the month's official cost of the keys of that hash or
// alias, as the workbook's Budget sheet takes them.
func (b *budgetMonth) keySpent(name string) decimal.Decimal {
	spent := decimal.Zero
	for k, v := range b.key {
		if k.hash == name || (k.alias != "" && k.alias == name) {
			spent = spent.Add(v)
		}
	}
	return spent
}

// tagSpent is tag's share of the month's official cost, split as the
// workbook's By tag and chargeback --by tag split it: the cost of the
// calls of each set of tags evenly among its tags, to pricing.TagPlaces
// decimals, the first tag of the set taking what is left.
func (b *budgetMonth) tagSpent(tag string) decimal.Decimal {
	spent := decimal.Zero
	for set, v := range b.tags {
		tags := ledger.SplitTags(set)
		i := slices.Index(tags, tag)
		if i < 0 {
			continue
		}
		n := decimal.NewFromInt(int64(len(tags)))
		part := v.Div(n).Truncate(pricing.TagPlaces)
		if i == 0 {
			part = v.Sub(part.Mul(n.Sub(decimal.NewFromInt(1))))
		}
		spent = spent.Add(part)
	}
	return spent
}

// budgetLine is one budget set against the month.
type budgetLine struct {
	kind, name, currency                 string
	monthly, spent, remaining, projected decimal.Decimal
}

// budgetLines sets each team, key and tag budget of plan against the
// month to now.
func budgetLines(plan *pricing.BudgetPlan, m *budgetMonth, now time.Time) []budgetLine {
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	length, elapsed := start.AddDate(0, 1, 0).Sub(start), now.Sub(start)
	var out []budgetLine
	for _, b := range plan.Budgets {
		var spent decimal.Decimal
		switch b.Kind {
		case pricing.BudgetTeam:
			spent = m.team[b.Name]
		case pricing.BudgetKey:
			spent = m.keySpent(b.Name)
		case pricing.BudgetTag:
			spent = m.tagSpent(b.Name)
		}
		l := budgetLine{kind: b.Kind.String(), name: b.Name, currency: plan.Currency, monthly: b.Monthly, spent: spent,
			remaining: b.Monthly.Sub(spent), projected: spent}
		if elapsed > 0 && elapsed < length {
			l.projected = spent.Mul(decimal.NewFromInt(int64(length))).DivRound(decimal.NewFromInt(int64(elapsed)), pricing.ProjectionPlaces)
		}
		out = append(out, l)
	}
	return out
}

func collectBudgets(out sender, lines []budgetLine) {
	for _, l := range lines {
		for _, m := range []struct {
			d *prometheus.Desc
			v decimal.Decimal
		}{{descBudget, l.monthly}, {descBudgetSpent, l.spent}, {descBudgetRemaining, l.remaining}, {descBudgetForecast, l.projected}} {
			out.send(m.d, prometheus.GaugeValue, m.v.InexactFloat64(), l.kind, l.name, l.currency)
		}
	}
}

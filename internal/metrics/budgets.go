package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/pricing"
)

var (
	descBudget = prometheus.NewDesc("tokenfare_budget",
		"Monthly budget of a team or key (the budgets file).", []string{"kind", "name", "currency"}, nil)
	descBudgetSpent = prometheus.NewDesc("tokenfare_budget_spent",
		"Official cost this UTC month of the budget's team or key.", []string{"kind", "name", "currency"}, nil)
	descBudgetRemaining = prometheus.NewDesc("tokenfare_budget_remaining",
		"Budget less the official cost this UTC month.", []string{"kind", "name", "currency"}, nil)
	descBudgetForecast = prometheus.NewDesc("tokenfare_budget_forecast",
		"Month-end forecast: this month's official cost at the month's pace so far (spent × month length / time elapsed).",
		[]string{"kind", "name", "currency"}, nil)
)

// budgetMonth is this month's official cost by team and by key alias, the
// targets a budget names.
type budgetMonth struct {
	team, key map[string]decimal.Decimal
}

func (b *budgetMonth) add(team, key string, official decimal.Decimal) {
	b.team[team] = b.team[team].Add(official)
	b.key[key] = b.key[key].Add(official)
}

// budgetLine is one budget set against the month.
type budgetLine struct {
	kind, name, currency                 string
	monthly, spent, remaining, projected decimal.Decimal
}

// budgetLines sets each team and key budget of plan against the month to
// now. A tag budget is left out: the state keeps no tags.
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
			spent = m.key[b.Name]
		default:
			continue
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

func collectBudgets(ch chan<- prometheus.Metric, lines []budgetLine) {
	for _, l := range lines {
		for _, m := range []struct {
			d *prometheus.Desc
			v decimal.Decimal
		}{{descBudget, l.monthly}, {descBudgetSpent, l.spent}, {descBudgetRemaining, l.remaining}, {descBudgetForecast, l.projected}} {
			ch <- prometheus.MustNewConstMetric(m.d, prometheus.GaugeValue, m.v.InexactFloat64(), l.kind, l.name, l.currency)
		}
	}
}

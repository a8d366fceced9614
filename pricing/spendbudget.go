package pricing

import (
	"github.com/shopspring/decimal"
)

// BudgetKind says what a budget is set for.
type BudgetKind uint8

// What a budget can be set for.
const (
	BudgetTeam BudgetKind = iota // a team, as the calls name it
	BudgetKey                    // an API key, by its alias or its SHA-256 hash
	BudgetTag                    // a request tag (Month.ByTag)
)

var budgetKindNames = [...]string{"team", "key", "tag"}

// String returns "team", "key" or "tag", as a budgets file spells them.
func (k BudgetKind) String() string { return budgetKindNames[k] }

// Budget is a monthly amount set for one team, key or tag, in the
// currency of the tariffs that price its calls.
type Budget struct {
	Kind    BudgetKind
	Name    string          // the team, the key's alias or hash, the tag
	Monthly decimal.Decimal // positive
	Source  string          // file:line of the budget, for messages
}

// BudgetPlan is a budgets file: its budgets in file order, and the
// currency they are in when the file names one.
type BudgetPlan struct {
	Currency string // "" when the file names none: the calls' currency
	Budgets  []Budget
}

// BudgetLine is one budget against the month's spend. Actual is the
// official cost of the budget's calls, Remaining what is left of the
// budget (negative once spent beyond it), Used the share spent; Projected
// the month-end official cost at the pace of the days so far (Month.Days):
// Actual × days of the month ÷ days covered, equal to Actual for a whole
// month.
type BudgetLine struct {
	Budget
	Currency      string // of the budget's calls; the plan's or the month's when it has none
	Calls         int64
	Actual        decimal.Decimal
	Recorded      decimal.Decimal // what the gateway recorded for the same calls
	Remaining     decimal.Decimal
	Used          decimal.NullDecimal // Actual ÷ Monthly, RatioPlaces
	Projected     decimal.Decimal     // rounded to ProjectionPlaces
	ProjectedUsed decimal.NullDecimal // Projected ÷ Monthly
	// MixedCurrencies: the budget's calls are priced in more than one
	// currency, so Actual adds amounts that cannot be compared with it.
	MixedCurrencies bool
	// OtherCurrency: the plan names a currency and the budget's calls are
	// priced in another one.
	OtherCurrency bool
}

// ProjectionPlaces is the decimals a projection is rounded to: it is an
// estimate, not an amount billed.
const ProjectionPlaces = 6

// Budgets sets each budget of plan against the month: a team's against
// the month's By team group of that name, a key's against every By key
// group of that hash or alias, a tag's against its ByTag group (the month
// must have been priced grouped by tags). A budget whose team, key or tag
// has no call in the month has an Actual of zero.
func (m *Month) Budgets(plan *BudgetPlan) []BudgetLine {
	month, covered := m.Days()
	out := make([]BudgetLine, 0, len(plan.Budgets))
	for _, b := range plan.Budgets {
		l := BudgetLine{Budget: b, Actual: decimal.Zero, Recorded: decimal.Zero}
		curs := map[string]bool{}
		for _, g := range m.budgetGroups(b) {
			l.Calls += g.Calls
			l.Actual, l.Recorded = l.Actual.Add(g.Official), l.Recorded.Add(g.Recorded)
			for _, c := range g.Currencies {
				curs[c] = true
			}
		}
		l.Currency = plan.Currency
		if cs := sortedSet(curs); len(cs) == 1 {
			l.Currency = cs[0]
		} else if len(cs) > 1 {
			l.MixedCurrencies = true
		}
		l.OtherCurrency = plan.Currency != "" && len(curs) > 0 && !curs[plan.Currency]
		if l.Currency == "" && len(m.Reconciliation.Currencies) == 1 {
			l.Currency = m.Reconciliation.Currencies[0]
		}
		l.Remaining = b.Monthly.Sub(l.Actual)
		l.Used = ratio(l.Actual, b.Monthly)
		l.Projected = l.Actual
		if covered > 0 && covered < month {
			l.Projected = l.Actual.Mul(decimal.NewFromInt(int64(month))).DivRound(decimal.NewFromInt(int64(covered)), ProjectionPlaces)
		}
		l.ProjectedUsed = ratio(l.Projected, b.Monthly)
		out = append(out, l)
	}
	return out
}

// HasTags reports whether a budget of the plan is set for a tag: the
// month must then be priced grouped by tags too (DimTag).
func (p *BudgetPlan) HasTags() bool {
	for _, b := range p.Budgets {
		if b.Kind == BudgetTag {
			return true
		}
	}
	return false
}

// budgetGroups returns the month's groups a budget is set against.
func (m *Month) budgetGroups(b Budget) []Group {
	var out []Group
	switch b.Kind {
	case BudgetTeam:
		for _, g := range m.ByTeam {
			if g.Key.Team == b.Name {
				out = append(out, g)
			}
		}
	case BudgetKey:
		for _, g := range m.ByKey {
			if g.Key.Key == b.Name || (g.KeyAlias != "" && g.KeyAlias == b.Name) {
				out = append(out, g)
			}
		}
	case BudgetTag:
		for _, g := range m.ByTag {
			if g.Key.Tag == b.Name {
				out = append(out, g)
			}
		}
	}
	return out
}

package run

import (
	"context"
	"slices"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/ledger/dedup"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/pricing/threeway"
	"github.com/tokenfare/tokenfare/tariffs"
)

// Month is a report's month, built by a run beside its engine: the month
// (pricing.MonthBuilder, with the blend of the providers whose tariff
// changed in its blend window), the three-way rows against a provider's
// usage, the budgets and an earlier month to compare with. NewMonth
// prepares it, Input.Month hands it to Run, and Result.Month holds what
// it built.
type Month struct {
	cat     *tariffs.Catalog
	builder *pricing.MonthBuilder
	opts    pricing.Options // the month's engine's, without the caller's spill settings
	three   *threeway.Builder
	plan    *pricing.BudgetPlan
	// from and until bound the month compared with; zero: none.
	from, until time.Time
}

// MonthResult is what a run built of its Month.
type MonthResult struct {
	Month    *pricing.Month
	ThreeWay *threeway.Reconciliation // nil without the provider's rows
	Budgets  []pricing.BudgetLine     // nil without a plan
	Change   *pricing.MonthChange     // nil without a month to compare with
}

// NewMonth prepares the month of month (its Since, Until, Zone and
// Billing) at cat: with its budgets when plan is not nil (kept apart by
// tag when it has tag budgets), and the three-way reconciliation with the
// provider's usage rows when there are any, which fails when a bill's
// currency is not its tariff's.
func NewMonth(cat *tariffs.Catalog, month pricing.Options, plan *pricing.BudgetPlan, provider []threeway.Row) (*Month, error) {
	b := pricing.NewMonthBuilder(cat, month)
	m := &Month{cat: cat, builder: b, opts: b.Options(), plan: plan}
	if plan != nil && plan.HasTags() {
		// Budgets by tag: the month's sums are kept apart by tags too.
		m.opts.Dims = append(slices.Clone(m.opts.Dims), pricing.DimTag)
	}
	if len(provider) > 0 {
		var err error
		if m.three, err = threeway.New(cat, m.opts, provider); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Options returns the options of the month's engine: the month's, grouped
// by pricing.MonthDims (and tags for budgets by tag). A run of the month
// takes them, with its spill settings added.
func (m *Month) Options() pricing.Options { return m.opts }

// Compare asks for the month [from, until) compared with the month.
func (m *Month) Compare(from, until time.Time) { m.from, m.until = from, until }

// Observes reports whether the month watches the calls read: a run reads
// rows for it, where its sources keep them.
func (m *Month) Observes() bool {
	return m.builder.NeedsCalls() || m.three != nil || !m.from.IsZero()
}

// monthRun is a Month during a run: the engine of the month compared with,
// fed the calls the run's engine found outside its month, with a
// duplicate set of its own (the run's engine does not look outside its
// month for them).
type monthRun struct {
	m        *Month
	prev     *pricing.Engine
	prevOpts pricing.Options // prev's
	seen     *dedup.Set
}

// start readies the month for a run and returns the observers it adds.
func (m *Month) start() (*monthRun, []pricing.Observer) {
	mr := &monthRun{m: m}
	var obs []pricing.Observer
	if m.builder.NeedsCalls() {
		obs = append(obs, m.builder)
	}
	if m.three != nil {
		// The same pass over the calls feeds the three-way reconciliation.
		obs = append(obs, m.three)
	}
	if !m.from.IsZero() {
		mr.seen = dedup.New(dedup.Options{})
		mr.prevOpts = pricing.Options{Billing: m.opts.Billing, Since: m.from, Until: m.until, Zone: m.opts.Zone, Seen: mr.seen,
			Dims: []pricing.Dim{pricing.DimModel, pricing.DimTeam}}
		mr.prev = pricing.New(m.cat, mr.prevOpts)
		obs = append(obs, mr)
	}
	return mr, obs
}

// Observe prices into the compared month's engine every call outside the
// month; an error of its duplicate set stops the run.
func (mr *monthRun) Observe(c *ledger.Call, pc *pricing.PricedCall) error {
	if pc.Outcome == pricing.Outside {
		mr.prev.AddPriced(c)
	}
	return mr.prev.Err()
}

func (mr *monthRun) close() {
	if mr.seen != nil {
		mr.seen.Close()
	}
}

// fill adds the sums of summers that keep no rows, which no observer saw,
// to the engines the month's observers feed: the blend's and the compared
// month's.
func (mr *monthRun) fill(ctx context.Context, dbs []ledger.Summer) error {
	err := mr.m.builder.Fill(func(e *pricing.Engine, opts pricing.Options) error { return fillFrom(ctx, e, opts, mr.m.cat, dbs) })
	if err == nil && mr.prev != nil {
		err = fillFrom(ctx, mr.prev, mr.prevOpts, mr.m.cat, dbs)
	}
	return err
}

// build builds the month from e, the run's engine.
func (mr *monthRun) build(e *pricing.Engine) (*MonthResult, error) {
	m := mr.m
	month, err := m.builder.Build(e)
	if err != nil {
		return nil, err
	}
	out := &MonthResult{Month: month}
	if m.three != nil {
		out.ThreeWay = m.three.Build(e.Rows())
	}
	if m.plan != nil {
		out.Budgets = month.Budgets(m.plan)
	}
	if mr.prev != nil {
		out.Change = month.CompareMonths(mr.prev, m.from, m.until)
	}
	return out, nil
}

// fillFrom adds the sums of dbs to e, an engine of opts outside the run's.
func fillFrom(ctx context.Context, e *pricing.Engine, opts pricing.Options, cat *tariffs.Catalog, dbs []ledger.Summer) error {
	billing, _ := pricing.CommonBilling(cat, opts.Billing)
	for _, db := range dbs {
		if _, err := db.Sum(ctx, sumOptions(cat, opts, billing), engineSink{e}); err != nil {
			return err
		}
	}
	return nil
}

// engineSink adds a summer's groups to an engine.
type engineSink struct{ e *pricing.Engine }

func (s engineSink) Add(g *ledger.Summed) error { return s.e.AddGroup(g) }

func (s engineSink) Rejected(rows int64) {
	for range rows {
		s.e.Reject()
	}
}

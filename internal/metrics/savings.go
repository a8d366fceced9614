package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/pricing/savings"
	"github.com/tokenfare/tokenfare/tariffs"
)

var descSaving = prometheus.NewDesc("tokenfare_month_saving",
	"Official cost the calls of the UTC month to date would save under each lever alone: offpeak, batch, flex or host "+
		"(tokenfare savings, docs/savings.md), at the tariffs loaded, in the tariffs' currency; made again once a 15-minute slot.",
	[]string{"lever"}, nil)

// monthSaving is the month's saving per lever as made at.
type monthSaving struct {
	at      driftAt // the slot and catalog it was made for (config unused)
	byLever map[savings.Lever]decimal.Decimal
}

// saving returns the month's saving per lever (Options.MonthSaving),
// made again once a slot or for a new catalog; nil without it.
func (c *Collector) saving(cat *tariffs.Catalog, now time.Time) (map[savings.Lever]decimal.Decimal, error) {
	if c.opts.MonthSaving == nil {
		return nil, nil
	}
	at := driftAt{slot: now.Truncate(state.Grain), cat: cat}
	if c.monthSaving != nil && c.monthSaving.at == at {
		return c.monthSaving.byLever, nil
	}
	by, err := c.opts.MonthSaving(cat, now)
	if err != nil {
		return nil, err
	}
	c.monthSaving = &monthSaving{at: at, byLever: by}
	return by, nil
}

// collectSaving sends the month's saving per lever.
func collectSaving(out sender, by map[savings.Lever]decimal.Decimal) {
	for l, d := range by {
		out.send(descSaving, prometheus.GaugeValue, d.InexactFloat64(), l.String())
	}
}

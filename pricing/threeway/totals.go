package threeway

import (
	"sort"

	"github.com/shopspring/decimal"
)

// ProviderTotals sum the cells of one provider.
type ProviderTotals struct {
	Provider         string
	Currency         string
	Cells            int
	GatewayCalls     int64
	ProviderRequests int64
	HasRequests      bool
	MissingCalls     int64
	UnknownCalls     int64
	Recorded         decimal.Decimal
	Official         decimal.Decimal
	ProviderOfficial decimal.Decimal // over the cells whose provider tokens were priced
	Billed           decimal.Decimal
	HasBilled        bool
	Gap              decimal.NullDecimal
	Parts            []Part
}

// add adds one cell of the provider.
func (t *ProviderTotals) add(c *Cell) {
	if t.Currency == "" {
		t.Currency = c.Currency
	}
	t.Cells++
	t.GatewayCalls += c.GatewayCalls
	t.ProviderRequests += c.ProviderRequests
	t.HasRequests = t.HasRequests || c.HasRequests
	t.MissingCalls += c.MissingCalls
	t.UnknownCalls += c.UnknownCalls
	t.Recorded, t.Official, t.Billed = t.Recorded.Add(c.Recorded), t.Official.Add(c.Official), t.Billed.Add(c.Billed)
	if c.ProviderOfficial.Valid {
		t.ProviderOfficial = t.ProviderOfficial.Add(c.ProviderOfficial.Decimal)
	}
	t.Parts = mergeParts(t.Parts, c.Parts)
}

// totalsByProvider sums the cells of each provider; parts add up by kind.
func totalsByProvider(cells []Cell) []ProviderTotals {
	byName := map[string]*ProviderTotals{}
	var names []string
	for i := range cells {
		c := &cells[i]
		t := byName[c.Provider]
		if t == nil {
			t = &ProviderTotals{Provider: c.Provider, Recorded: decimal.Zero, Official: decimal.Zero,
				ProviderOfficial: decimal.Zero, Billed: decimal.Zero, HasBilled: c.HasBilled}
			byName[c.Provider] = t
			names = append(names, c.Provider)
		}
		t.add(c)
	}
	sort.Strings(names)
	out := make([]ProviderTotals, 0, len(names))
	for _, n := range names {
		t := byName[n]
		if t.HasBilled {
			t.Gap = decimal.NewNullDecimal(t.Billed.Sub(t.Recorded))
		}
		out = append(out, *t)
	}
	return out
}

package pricing

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestGroupsSortedByTheirValues checks that a reconciliation's groups come
// in the order of their values' texts, dimension by dimension in the order
// of the dimensions' names, each group once, by day in a zone that changes
// its clocks, by hour, by period (outcomes in parentheses) and by key.
func TestGroupsSortedByTheirValues(t *testing.T) {
	cat := testCatalog(t)
	calls := randomCalls(rand.New(rand.NewPCG(21, 23)), 5000)
	for _, tc := range []struct {
		name string
		dims []Dim
	}{
		{name: "model, key, day", dims: []Dim{DimModel, DimKey, DimDay}},
		{name: "hour, model", dims: []Dim{DimHour, DimModel}},
		{name: "period, version, key", dims: []Dim{DimPeriod, DimVersion, DimKey}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(cat, Options{Dims: tc.dims, Zone: zone(t, "America/New_York")})
			for i := range calls {
				e.AddPriced(&calls[i])
			}
			gs := e.Reconcile().Groups
			dims := slices.Clone(tc.dims)
			slices.SortFunc(dims, func(a, b Dim) int { return strings.Compare(a.String(), b.String()) })
			text := func(g *Group) []string {
				var out []string
				for _, d := range dims {
					out = append(out, g.Key.Value(d))
				}
				return out
			}
			if len(gs) < 20 {
				t.Fatalf("%d groups: the test checks too little", len(gs))
			}
			for i := 1; i < len(gs); i++ {
				if a, b := text(&gs[i-1]), text(&gs[i]); slices.Compare(a, b) >= 0 {
					t.Fatalf("group %d %q is not before group %d %q", i-1, a, i, b)
				}
			}
		})
	}
}

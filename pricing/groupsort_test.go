package pricing

import (
	"fmt"
	"math/bits"
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
			gs := e.Reconcile().groups
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

// TestSortedGroupsEqualGroupsByMap checks the groups made from buckets
// sorted by their values' numbers against groups gathered in a map by
// their whole key and then sorted by their texts: the same groups, in the
// same order, with the same sums to the last digit.
func TestSortedGroupsEqualGroupsByMap(t *testing.T) {
	cat := testCatalog(t)
	calls := randomCalls(rand.New(rand.NewPCG(5, 8)), 4000)
	for _, tc := range []struct {
		name string
		dims []Dim
	}{
		{name: "none", dims: nil},
		{name: "model", dims: []Dim{DimModel}},
		{name: "model, key, day", dims: []Dim{DimModel, DimKey, DimDay}},
		{name: "key, hour, period", dims: []Dim{DimKey, DimHour, DimPeriod}},
		{name: "version, user, team", dims: []Dim{DimVersion, DimUser, DimTeam}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(cat, Options{Dims: tc.dims, Zone: zone(t, "America/New_York")})
			for i := range calls {
				e.AddPriced(&calls[i])
			}
			got := e.reconcileGroups().groups
			want := e.groupsBy(e.groupKeyOf).groups
			dims := slices.Clone(tc.dims)
			slices.SortFunc(dims, func(a, b Dim) int { return strings.Compare(a.String(), b.String()) })
			slices.SortFunc(want, func(a, b Group) int {
				for _, d := range dims {
					if c := strings.Compare(a.Key.Value(d), b.Key.Value(d)); c != 0 {
						return c
					}
				}
				return 0
			})
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%d groups, want %d (and some)", len(got), len(want))
			}
			for i := range got {
				g, w := &got[i], &want[i]
				if g.Key != w.Key || g.KeyAlias != w.KeyAlias || g.Calls != w.Calls || g.PricedCalls != w.PricedCalls ||
					g.Tokens != w.Tokens || g.TimedTokens != w.TimedTokens || g.PeakTokens != w.PeakTokens ||
					g.CacheHitTokens != w.CacheHitTokens || !slices.Equal(g.Currencies, w.Currencies) {
					t.Fatalf("group %d: %+v, want %+v", i, *g, *w)
				}
				if g.Official.String() != w.Official.String() || g.Recorded.String() != w.Recorded.String() ||
					g.Gap.String() != w.Gap.String() || g.Ratio.Valid != w.Ratio.Valid || g.Ratio.Decimal.String() != w.Ratio.Decimal.String() {
					t.Fatalf("group %d money: official %s recorded %s gap %s ratio %v, want %s %s %s %v",
						i, g.Official, g.Recorded, g.Gap, g.Ratio, w.Official, w.Recorded, w.Gap, w.Ratio)
				}
			}
		})
	}
}

// TestRadixSortIsASort checks radixSort against slices.Sort on words of
// every width up to 64 bits, lists shorter and longer than the digit's
// table, words with the same digit everywhere, and repeated words.
func TestRadixSortIsASort(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	for _, size := range []int{0, 1, 5, 2047, 2048, 5000, 40000} {
		for _, n := range []int{1, 11, 12, 23, 33, 40, 63, 64} {
			words := make([]uint64, size)
			for i := range words {
				words[i] = rng.Uint64() >> (64 - n)
				if i%3 == 0 {
					words[i] &^= 1<<min(n, 22) - 1<<11 // a middle digit the same in many
				}
				if i%5 == 0 && i > 0 {
					words[i] = words[i-1]
				}
			}
			want := slices.Clone(words)
			slices.Sort(want)
			radixSort(words, 0, n)
			if !slices.Equal(words, want) {
				t.Fatalf("%d words of %d bits: not sorted as slices.Sort sorts them", size, n)
			}
		}
	}
}

// TestRadixSortFromAPlace checks that radixSort of words in the order of
// their low bits (a bucket's place, below its packed numbers), passing
// over those bits, sorts them as a sort of every bit does.
func TestRadixSortFromAPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 7))
	for _, size := range []int{5, 2048, 5000, 40000} {
		for _, high := range []int{1, 5, 11, 19, 30} {
			place := bits.Len(uint(size))
			words := make([]uint64, size)
			for i := range words {
				words[i] = (rng.Uint64()>>(64-high))<<place | uint64(i)
			}
			want := slices.Clone(words)
			slices.Sort(want)
			radixSort(words, place, place+high)
			if !slices.Equal(words, want) {
				t.Fatalf("%d words of %d bits above %d of places: not sorted as slices.Sort sorts them", size, high, place)
			}
		}
	}
}

// TestTextPlacesAreTheTextsOrder checks textPlaces against a sort of
// every text, as texts are numbered between its calls (a few or many, or
// none), and when the values are started again.
func TestTextPlacesAreTheTextsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 12))
	var p textPlaces
	values := &texts{}
	for step := range 60 {
		if step == 30 {
			values = values.emptied()
		}
		for range rng.IntN([]int{1, 5, 300}[step%3]) {
			values.id(fmt.Sprintf("%0*x", rng.IntN(6)+1, rng.IntN(5000)))
		}
		place := p.of(values)
		n := max(len(values.list), 1)
		if len(place) != n {
			t.Fatalf("step %d: %d places for %d texts", step, len(place), n)
		}
		byPlace := make([]string, n)
		for x := range n {
			byPlace[place[x]] = values.of(text(x))
		}
		if !slices.IsSorted(byPlace) {
			t.Fatalf("step %d: the texts by their places are not in byte order", step)
		}
	}
}

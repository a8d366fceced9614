package dedup

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTable(t *testing.T) {
	tests := []struct {
		name string
		add  []uint64
		want []uint64 // sorted distinct
	}{
		{name: "empty", want: []uint64{}},
		{name: "zero is a fingerprint", add: []uint64{0, 0, 5}, want: []uint64{0, 5}},
		{name: "repeats", add: []uint64{7, 7, 3, 7, 3}, want: []uint64{3, 7}},
		{name: "grows past the first table", add: seq(1, 100), want: seq(1, 100)},
		{name: "colliding homes", add: []uint64{1 << 60, 2 << 60, 3 << 60, 1 << 60}, want: []uint64{1 << 60, 2 << 60, 3 << 60}},
		{name: "largest values", add: []uint64{^uint64(0), ^uint64(0) - 1, 0}, want: []uint64{0, ^uint64(0) - 1, ^uint64(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := newTable(minSlots)
			seen := map[uint64]bool{}
			for _, fp := range tt.add {
				if tab.full() {
					tab.resize(2 * len(tab.slots))
				}
				if got, want := tab.add(fp), !seen[fp]; got != want {
					t.Errorf("add(%d) = %v, want %v", fp, got, want)
				}
				seen[fp] = true
			}
			for _, fp := range tt.want {
				if !tab.has(fp) {
					t.Errorf("has(%d) = false, want true", fp)
				}
			}
			if tab.has(424242) {
				t.Errorf("has(424242) = true, want false")
			}
			if tab.n*4 > len(tab.slots)*3 {
				t.Errorf("load %d/%d exceeds 3/4", tab.n, len(tab.slots))
			}
			if got := tab.drain(); !slices.Equal(got, tt.want) {
				t.Errorf("drain() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSlotsFor(t *testing.T) {
	tests := []struct{ n, want int }{{0, 16}, {12, 16}, {13, 32}, {24, 32}, {25, 64}, {768, 1024}, {769, 2048}}
	for _, tt := range tests {
		if got := slotsFor(tt.n); got != tt.want {
			t.Errorf("slotsFor(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

func seq(from, to uint64) []uint64 {
	var s []uint64
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

// TestDrainSorted fills tables up to the load limit and checks that drain
// returns every entry once, in order: with homes spread evenly, with homes
// crowded at the end of the table (runs wrap round to the start), and with
// homes all in one slot.
func TestDrainSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	kinds := []struct {
		name string
		fp   func() uint64
	}{
		{"spread", rng.Uint64},
		{"crowded at the end", func() uint64 { return ^uint64(0) - rng.Uint64N(1<<58) }},
		{"one home", func() uint64 { return rng.Uint64N(1 << 20) }},
	}
	for _, kind := range kinds {
		for _, slots := range []int{minSlots, 64, 1024, 1 << 14} {
			tab := newTable(slots)
			var want []uint64
			for !tab.full() {
				fp := kind.fp()
				if len(want) == 5 {
					fp = 0 // kept in a flag, not a slot
				}
				if tab.add(fp) {
					want = append(want, fp)
				}
			}
			slices.Sort(want)
			if got := tab.drain(); !slices.Equal(got, want) {
				t.Fatalf("%s, %d slots: drain returned %d entries, not the %d added in order", kind.name, slots, len(got), len(want))
			}
		}
	}
}

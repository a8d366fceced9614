package pricing

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestMonthBuilder builds months of the test catalog's old-model, whose
// tariff changes from "nightly" to "flat" at 2025-09-05T16:00Z. Call a
// (off-peak under nightly, input 0.135) and call b (under flat: input
// 0.56, output 1.68) are both in September's blend window, so that month
// needs the calls: at the tariff in force at its end both are at flat,
// blended input 0.56 and output 1.68, where each at its own version would
// give (1000 × 0.135 + 1000 × 0.56) / 2000 = 0.3475 for input. December's
// window (2025-11-03 to 2025-12-01) holds no change: its own sums serve.
func TestMonthBuilder(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		name        string
		since       string
		until       string
		calls       []string // ends of the old-model calls, 1000 input and 100 output tokens each
		needsCalls  bool
		input, outp string
	}{
		{name: "a tariff change in the window", since: "2025-09-01T00:00:00Z", until: "2025-10-01T00:00:00Z",
			calls: []string{"2025-09-04T20:00:05Z", "2025-09-10T10:00:05Z"}, needsCalls: true, input: "0.56", outp: "1.68"},
		{name: "no change in the window", since: "2025-12-01T00:00:00Z", until: "2026-01-01T00:00:00Z",
			calls: []string{"2025-12-10T10:00:05Z", "2025-12-11T10:00:05Z"}, input: "0.56", outp: "1.68"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewMonthBuilder(cat, Options{Since: at(tt.since), Until: at(tt.until), Zone: time.UTC})
			if b.NeedsCalls() != tt.needsCalls {
				t.Fatalf("NeedsCalls = %v, want %v", b.NeedsCalls(), tt.needsCalls)
			}
			e := New(cat, b.Options())
			for i, end := range tt.calls {
				c := call(string(rune('a'+i)), "old-model", end, 1000, 0, 100)
				pc := e.AddPriced(&c)
				if pc.Outcome != Priced {
					t.Fatalf("call %s: %v, want priced", end, pc.Outcome)
				}
				if err := b.Observe(&c, &pc); err != nil {
					t.Fatal(err)
				}
			}
			m, err := b.Build(e)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]decimal.Decimal{}
			for _, bm := range m.Blend.Models {
				if bm.Model != "old" {
					continue
				}
				for _, p := range bm.Prices {
					got[p.Usage.String()] = p.Blended
				}
			}
			if !got["input"].Equal(decimal.RequireFromString(tt.input)) || !got["output"].Equal(decimal.RequireFromString(tt.outp)) {
				t.Errorf("blended %v, want input %s and output %s", got, tt.input, tt.outp)
			}
		})
	}
}

// TestMonthBuilderWithoutCalls checks that a month whose window holds a
// change cannot be built from the month's sums alone: the blend would
// price its calls each at its own version.
func TestMonthBuilderWithoutCalls(t *testing.T) {
	cat := testCatalog(t)
	opts := Options{Since: at("2025-09-01T00:00:00Z"), Until: at("2025-10-01T00:00:00Z"), Zone: time.UTC, Dims: MonthDims}
	if _, err := MonthOf(New(cat, opts), opts.Since, opts.Until, nil); err == nil {
		t.Fatal("MonthOf without the blend engine: no error")
	}
}

// TestMonthDays: the days a month's calls cover, and whether it is partial.
func TestMonthDays(t *testing.T) {
	from, until := at("2026-10-01T00:00:00Z"), at("2026-11-01T00:00:00Z")
	tests := []struct {
		name    string
		last    string
		partial bool
		covered int
	}{
		{"no call", "", false, 31},
		{"first morning", "2026-10-01T10:00:00Z", true, 1},
		{"tenth", "2026-10-10T23:59:59Z", true, 10},
		{"the eve of the last day", "2026-10-30T23:59:59Z", true, 30},
		{"the last day", "2026-10-31T00:00:00Z", false, 31},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &Month{From: from, Until: until, Zone: from.Location()}
			if tc.last != "" {
				m.Span = Span{First: from, Last: at(tc.last)}
			}
			month, covered := m.Days()
			if m.Partial() != tc.partial || month != 31 || covered != tc.covered {
				t.Errorf("partial %v, days %d of %d; want %v, %d of 31", m.Partial(), covered, month, tc.partial, tc.covered)
			}
		})
	}
}

package metrics

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestAnomalySlot(t *testing.T) {
	now := time.Date(2026, 11, 25, 14, 20, 0, 0, time.UTC) // a Wednesday
	tests := []struct {
		name string
		slot string
		want int
	}{
		{name: "today, before now", slot: "2026-11-25T14:00:00Z", want: 0},
		{name: "today, the slot of now", slot: "2026-11-25T14:15:00Z", want: 0},
		{name: "today, after now", slot: "2026-11-25T14:30:00Z", want: -1},
		{name: "a week before, same time", slot: "2026-11-18T14:15:00Z", want: 1},
		{name: "a week before, later in the day", slot: "2026-11-18T15:00:00Z", want: -1},
		{name: "four weeks before", slot: "2026-10-28T00:00:00Z", want: 4},
		{name: "five weeks before", slot: "2026-10-21T00:00:00Z", want: -1},
		{name: "another weekday", slot: "2026-11-24T09:00:00Z", want: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slot, _ := time.Parse(time.RFC3339, tt.slot)
			if got := anomalySlot(slot, now); got != tt.want {
				t.Errorf("anomalySlot(%s) = %d, want %d", tt.slot, got, tt.want)
			}
		})
	}
}

// TestAnomaly: worked by hand. Today 30 against 10, 12, 8, 14: median 11,
// deviations 1, 1, 3, 3 (median 2, × 1.4826 = 2.9652); ratio 30 / 11 =
// 2.727273, score 19 / 2.9652 = 6.407662.
func TestAnomaly(t *testing.T) {
	d := decimal.RequireFromString
	tests := []struct {
		name          string
		w             weeks
		ratio, score  string
		okRatio, okSc bool
	}{
		{name: "a spike", w: weeks{d("30"), d("10"), d("12"), d("8"), d("14")}, ratio: "2.727273", score: "6.407662", okRatio: true, okSc: true},
		{name: "steady: no deviation", w: weeks{d("5"), d("5"), d("5"), d("5"), d("5")}, ratio: "1", okRatio: true},
		{name: "no baseline", w: weeks{d("5"), d("0"), d("0"), d("0"), d("0")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ratio, score, okR, okS := tt.w.anomaly()
			if okR != tt.okRatio || okS != tt.okSc {
				t.Fatalf("ok %v %v, want %v %v", okR, okS, tt.okRatio, tt.okSc)
			}
			if okR && !ratio.Equal(d(tt.ratio)) {
				t.Errorf("ratio %s, want %s", ratio, tt.ratio)
			}
			if okS && !score.Equal(d(tt.score)) {
				t.Errorf("score %s, want %s", score, tt.score)
			}
		})
	}
}

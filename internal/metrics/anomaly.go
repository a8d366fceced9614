package metrics

import (
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
)

// BaselineWeeks is how many past same weekdays the anomaly baseline holds.
const BaselineWeeks = 4

var (
	descAnomalyRatio = prometheus.NewDesc("tokenfare_anomaly_ratio",
		"Today's official cost so far (UTC) over the median of the same weekday's cost to the same time of day in the 4 weeks before; absent while that median is 0.",
		[]string{"model", "key"}, nil)
	descAnomalyScore = prometheus.NewDesc("tokenfare_anomaly_score",
		"(today - median) / (1.4826 × median absolute deviation) of the same baseline: a robust z-score; absent while the deviation is 0.",
		[]string{"model", "key"}, nil)
)

// anomalyKey is one series of the anomaly signal.
type anomalyKey struct{ model, key string }

// weeks are a series' official cost today so far ([0]) and on the same
// weekday 1 to BaselineWeeks weeks before, to the same time of day.
type weeks [BaselineWeeks + 1]decimal.Decimal

// anomalySlot returns which week a slot counts in (0 today, i weeks
// before), or -1: a slot of the same weekday as now, within the weeks
// held, before now's time of day.
func anomalySlot(slot, now time.Time) int {
	today := now.Truncate(24 * time.Hour)
	day := slot.Truncate(24 * time.Hour)
	if slot.Sub(day) >= now.Sub(today) || day.After(today) {
		return -1
	}
	ago := int(today.Sub(day) / (24 * time.Hour))
	if ago%7 != 0 || ago/7 > BaselineWeeks {
		return -1
	}
	return ago / 7
}

// anomaly returns the ratio of today to the baseline's median, and the
// robust z-score (today − median) / (1.4826 × MAD); ok false when the
// median, or the deviation, is zero.
func (w *weeks) anomaly() (ratio, score decimal.Decimal, okRatio, okScore bool) {
	base := append([]decimal.Decimal(nil), w[1:]...)
	med := median(base)
	dev := make([]decimal.Decimal, len(base))
	for i, b := range base {
		dev[i] = b.Sub(med).Abs()
	}
	mad := median(dev).Mul(decimal.RequireFromString("1.4826"))
	if !med.IsZero() {
		ratio, okRatio = w[0].DivRound(med, 6), true
	}
	if !mad.IsZero() {
		score, okScore = w[0].Sub(med).DivRound(mad, 6), true
	}
	return ratio, score, okRatio, okScore
}

// median is the middle value (the mean of the two middle ones for an even
// count) of ds, which it sorts.
func median(ds []decimal.Decimal) decimal.Decimal {
	sort.Slice(ds, func(i, j int) bool { return ds[i].LessThan(ds[j]) })
	n := len(ds)
	if n%2 == 1 {
		return ds[n/2]
	}
	return ds[n/2-1].Add(ds[n/2]).Div(decimal.NewFromInt(2))
}

func collectAnomalies(out sender, as map[anomalyKey]*weeks) {
	for k, w := range as {
		ratio, score, okR, okS := w.anomaly()
		if okR {
			out.send(descAnomalyRatio, prometheus.GaugeValue, ratio.InexactFloat64(), k.model, k.key)
		}
		if okS {
			out.send(descAnomalyScore, prometheus.GaugeValue, score.InexactFloat64(), k.model, k.key)
		}
	}
}

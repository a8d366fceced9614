package main

import (
	"time"
	_ "time/tzdata" // Asia/Shanghai must resolve on machines without zoneinfo
)

// beijing is the zone whose working hours shape the traffic.
var beijing = mustZone("Asia/Shanghai")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// holidays2026 are the PRC statutory holidays of 2026 (State Council notice):
// quiet days whatever their weekday.
var holidays2026 = dateSet(
	"2026-01-01", "2026-01-02", "2026-01-03",
	"2026-02-15", "2026-02-16", "2026-02-17", "2026-02-18", "2026-02-19",
	"2026-02-20", "2026-02-21", "2026-02-22", "2026-02-23",
	"2026-04-04", "2026-04-05", "2026-04-06",
	"2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04", "2026-05-05",
	"2026-06-19", "2026-06-20", "2026-06-21",
	"2026-09-25", "2026-09-26", "2026-09-27",
	"2026-10-01", "2026-10-02", "2026-10-03", "2026-10-04", "2026-10-05",
	"2026-10-06", "2026-10-07",
)

// makeupWorkdays2026 are the weekend days of 2026 declared working days.
var makeupWorkdays2026 = dateSet(
	"2026-01-04", "2026-02-14", "2026-02-28", "2026-05-09", "2026-09-20", "2026-10-10",
)

func dateSet(days ...string) map[string]bool {
	m := make(map[string]bool, len(days))
	for _, d := range days {
		m[d] = true
	}
	return m
}

// workingDay reports whether the Beijing calendar day of t is a working day.
func workingDay(t time.Time) bool {
	day := t.Format(time.DateOnly)
	switch {
	case holidays2026[day]:
		return false
	case makeupWorkdays2026[day]:
		return true
	}
	wd := t.Weekday()
	return wd != time.Saturday && wd != time.Sunday
}

// workdayHour is the relative traffic of each Beijing hour on a working day,
// in permille of the busiest hour: quiet nights, a morning ramp, a lunch dip
// and an evening tail.
var workdayHour = [24]int64{
	120, 90, 70, 60, 60, 80, 120, 250, 550, 950, 1000, 980,
	600, 700, 1000, 990, 960, 850, 550, 420, 380, 330, 250, 170,
}

// restdayHour is the same for weekends and holidays: a flat, light day.
var restdayHour = [24]int64{
	60, 50, 40, 35, 35, 35, 45, 60, 90, 130, 160, 170,
	160, 160, 170, 170, 160, 150, 140, 140, 130, 120, 100, 80,
}

// hourWeight returns the relative traffic of the hour starting at t.
func hourWeight(t time.Time) int64 {
	local := t.In(beijing)
	if workingDay(local) {
		return workdayHour[local.Hour()]
	}
	return restdayHour[local.Hour()]
}

// slotCounts spreads rows over the hours from start, in proportion to their
// weights. Counts are exact integers and sum to rows: each hour gets the
// difference of the rounded-down cumulative shares, so no float is involved.
func slotCounts(start time.Time, hours, rows int) []int {
	weights := make([]int64, hours)
	var total int64
	for h := range weights {
		weights[h] = hourWeight(start.Add(time.Duration(h) * time.Hour))
		total += weights[h]
	}
	counts := make([]int, hours)
	var cum, prev int64
	for h, w := range weights {
		cum += w
		upto := mulDiv(int64(rows), cum, total)
		counts[h] = int(upto - prev)
		prev = upto
	}
	return counts
}

// mulDiv returns a*b/c rounded down for non-negative values, without
// overflow for any row count and weight total the generator uses.
func mulDiv(a, b, c int64) int64 {
	q, r := a/c, a%c
	return q*b + r*b/c
}

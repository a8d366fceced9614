package tariffs

import "fmt"

// Window is a local time range of a day in minutes, start inclusive, end
// exclusive. End <= Start means the window crosses midnight: on a day it
// covers [Start, 24:00) and [00:00, End). "00:00-24:00" is the whole day.
type Window struct {
	Start, End int // minutes since local midnight; End may be 1440
}

// ParseWindow reads "HH:MM-HH:MM".
func ParseWindow(s string) (Window, error) {
	if len(s) != len("HH:MM-HH:MM") || s[2] != ':' || s[5] != '-' || s[8] != ':' {
		return Window{}, fmt.Errorf("window %q is not HH:MM-HH:MM", s)
	}
	var f [4]int
	for i, at := range [4]int{0, 3, 6, 9} {
		a, b := s[at], s[at+1]
		if a < '0' || a > '9' || b < '0' || b > '9' {
			return Window{}, fmt.Errorf("window %q is not HH:MM-HH:MM", s)
		}
		f[i] = int(a-'0')*10 + int(b-'0')
	}
	if f[0] > 23 || f[1] > 59 || f[2] > 24 || f[3] > 59 || (f[2] == 24 && f[3] != 0) {
		return Window{}, fmt.Errorf("window %q has a time out of range", s)
	}
	w := Window{Start: f[0]*60 + f[1], End: f[2]*60 + f[3]}
	if w.Start == w.End {
		return Window{}, fmt.Errorf("window %q starts where it ends (write 00:00-24:00 for the whole day)", s)
	}
	return w, nil
}

// String formats w as "HH:MM-HH:MM".
func (w Window) String() string {
	return fmt.Sprintf("%02d:%02d-%02d:%02d", w.Start/60, w.Start%60, w.End/60, w.End%60)
}

// minutes calls fn for each minute of a day the window covers.
func (w Window) minutes(fn func(int)) {
	if w.End > w.Start {
		for m := w.Start; m < w.End; m++ {
			fn(m)
		}
		return
	}
	for m := w.Start; m < 24*60; m++ {
		fn(m)
	}
	for m := 0; m < w.End; m++ {
		fn(m)
	}
}

// segment is a run of a day, in seconds since local midnight, in one period.
type segment struct {
	start, end int32
	period     uint8
}

// dayPlan splits a whole day into segments, in order.
type dayPlan []segment

// find returns the segment holding second sec of the day.
func (p dayPlan) find(sec int32) segment {
	for _, s := range p {
		if sec < s.end {
			return s
		}
	}
	return p[len(p)-1]
}

// planOf compresses a per-minute period map into segments.
func planOf(byMinute *[24 * 60]uint8) dayPlan {
	var plan dayPlan
	start := 0
	for m := 1; m <= 24*60; m++ {
		if m == 24*60 || byMinute[m] != byMinute[start] {
			plan = append(plan, segment{start: int32(start * 60), end: int32(m * 60), period: byMinute[start]})
			start = m
		}
	}
	return plan
}

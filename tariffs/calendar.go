package tariffs

import (
	"fmt"
	"time"
)

// Date is a calendar date as yyyymmdd, on a tariff's local calendar.
type Date int32

// DateOf returns the date of y, m, d.
func DateOf(y int, m time.Month, d int) Date { return Date(y*10000 + int(m)*100 + d) }

// ParseDate reads a YYYY-MM-DD date.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return 0, fmt.Errorf("date %q is not YYYY-MM-DD", s)
	}
	return DateOf(t.Date()), nil
}

// String formats d as YYYY-MM-DD.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d/10000, d/100%100, d%100)
}

// Year returns d's year.
func (d Date) Year() int { return int(d / 10000) }

// Midnight returns the instant d begins in loc.
func (d Date) Midnight(loc *time.Location) time.Time {
	return time.Date(d.Year(), time.Month(d/100%100), int(d%100), 0, 0, 0, 0, loc)
}

// Calendar holds a provider's holidays and make-up workdays. On a holiday
// the rules of weekday HolidaysAs apply; on a make-up workday those of
// WorkdaysAs. Every other day follows its own weekday.
type Calendar struct {
	HolidaysAs time.Weekday
	WorkdaysAs time.Weekday
	Holidays   map[Date]string // date → name
	Workdays   map[Date]string
	// FirstYear and LastYear bound the years the calendar covers: from the
	// first year with a listed date (or a provisional year) to the last.
	// Both are zero for a calendar that lists nothing.
	FirstYear, LastYear int
	// Provisional are years whose arrangement is not final: only their
	// listed dates are certain, any other day may yet become a holiday or
	// a make-up workday.
	Provisional map[int]bool
	Line        int // the line of the calendar in its file; 0 without one
}

// CalendarNotice is how long before a calendar stops being certain
// CalendarEnds starts to warn: long enough to publish the next year's
// dates before calls are priced without them.
const CalendarNotice = 60 * 24 * time.Hour

// CalendarEnds returns a warning for each provider of the catalog whose
// calendar stops being certain (its last year ends, or a provisional year
// begins) within notice after now, or did so before now, while a version
// in force at now or later has periods that a holiday or make-up workday
// would change.
func (c *Catalog) CalendarEnds(now time.Time, notice time.Duration) Problems {
	var out Problems
	for _, p := range c.Providers {
		cal := &p.Calendar
		final := cal.FinalUntil()
		if final == 0 || !p.calendarMatters(now) {
			continue
		}
		at := final.Midnight(p.Zone)
		if at.Sub(now) > notice {
			continue
		}
		days := int(at.Sub(now).Hours() / 24)
		when := fmt.Sprintf("in %d day(s)", days)
		if !at.After(now) {
			when = fmt.Sprintf("%d day(s) ago", -days)
		}
		msg := fmt.Sprintf("calendar: the last year it covers, %d, ends on %s (%s): calls after it are priced as ordinary days until the holidays and make-up workdays of %d are added",
			cal.LastYear, DateOf(cal.LastYear, time.December, 31), when, cal.LastYear+1)
		if y := final.Year(); cal.Provisional[y] {
			msg = fmt.Sprintf("calendar: %d is provisional from %s (%s): only its listed days are certain, until its holidays and make-up workdays are published and added",
				y, final, when)
		}
		out = append(out, Problem{File: p.File, Line: max(cal.Line, p.Line), Msg: msg, Warning: true})
	}
	return out
}

// calendarMatters reports whether a version in force at t or later has
// periods that a holiday or make-up workday would change.
func (p *Provider) calendarMatters(t time.Time) bool {
	for _, v := range p.Versions {
		if !v.End.IsZero() && !v.End.After(t) {
			continue
		}
		for _, m := range v.dayMatters {
			if m {
				return true
			}
		}
	}
	return false
}

// Coverage says whether a calendar knows what kind of day a date is.
type Coverage uint8

// Coverages of a date.
const (
	// Covered: the date lies in a year the calendar covers in full, or is
	// listed (a calendar that lists nothing covers every date).
	Covered Coverage = iota
	// Provisional: the date lies in a provisional year and is not listed.
	Provisional
	// Uncovered: the date lies outside the years the calendar covers.
	Uncovered
)

var coverageNames = [...]string{"covered", "provisional", "uncovered"}

// String returns "covered", "provisional" or "uncovered".
func (c Coverage) String() string { return coverageNames[c] }

// CoverageOf says whether the calendar knows what kind of day d is.
func (c *Calendar) CoverageOf(d Date) Coverage {
	y := d.Year()
	switch {
	case c.LastYear == 0:
		return Covered
	case y < c.FirstYear || y > c.LastYear:
		return Uncovered
	case !c.Provisional[y] || c.Kind(d) != "":
		return Covered
	}
	return Provisional
}

// cover extends the years the calendar covers to year y.
func (c *Calendar) cover(y int) {
	if c.LastYear == 0 {
		c.FirstYear, c.LastYear = y, y
		return
	}
	c.FirstYear, c.LastYear = min(c.FirstYear, y), max(c.LastYear, y)
}

// FinalUntil returns the first date the calendar does not cover for
// certain: the first day of its first provisional year, else the day
// after its last year; zero for a calendar that lists nothing.
func (c *Calendar) FinalUntil() Date {
	if c.LastYear == 0 {
		return 0
	}
	for y := c.FirstYear; y <= c.LastYear; y++ {
		if c.Provisional[y] {
			return DateOf(y, time.January, 1)
		}
	}
	return DateOf(c.LastYear+1, time.January, 1)
}

// DayAs returns the weekday whose rules apply on date d, which falls on wd.
func (c *Calendar) DayAs(d Date, wd time.Weekday) time.Weekday {
	if len(c.Holidays) != 0 {
		if _, ok := c.Holidays[d]; ok {
			return c.HolidaysAs
		}
	}
	if len(c.Workdays) != 0 {
		if _, ok := c.Workdays[d]; ok {
			return c.WorkdaysAs
		}
	}
	return wd
}

// Day is an instant's local day under a version: what decides its periods.
type Day struct {
	Local time.Time    // the instant on the version's local clock
	Kind  string       // "holiday", "workday" (make-up) or "" for an ordinary day
	Name  string       // the calendar's name of the holiday or workday
	As    time.Weekday // the weekday whose periods apply
}

// DayOf returns the local day of instant t under version v: its local
// time, and the holiday or make-up workday that decides which weekday's
// periods apply, as At judges it.
func (v *Version) DayOf(t time.Time) Day {
	lt := t.In(v.Zone)
	d := DateOf(lt.Date())
	day := Day{Local: lt, Kind: v.calendar.Kind(d), As: v.calendar.DayAs(d, lt.Weekday())}
	switch day.Kind {
	case "holiday":
		day.Name = v.calendar.Holidays[d]
	case "workday":
		day.Name = v.calendar.Workdays[d]
	}
	return day
}

// Kind names what kind of day d is: "holiday", "workday" (make-up) or "".
func (c *Calendar) Kind(d Date) string {
	if _, ok := c.Holidays[d]; ok {
		return "holiday"
	}
	if _, ok := c.Workdays[d]; ok {
		return "workday"
	}
	return ""
}

var weekdayNames = map[string]time.Weekday{
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
}

// ParseWeekday reads a weekday written as its three-letter English name.
func ParseWeekday(s string) (time.Weekday, error) {
	if len(s) >= 3 {
		if wd, ok := weekdayNames[lower(s[:3])]; ok && (len(s) == 3 || lower(s) == lower(wd.String())) {
			return wd, nil
		}
	}
	return 0, fmt.Errorf("weekday %q is not one of mon, tue, wed, thu, fri, sat, sun", s)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

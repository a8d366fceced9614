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

// Calendar holds a provider's holidays and make-up workdays. On a holiday
// the rules of weekday HolidaysAs apply; on a make-up workday those of
// WorkdaysAs. Every other day follows its own weekday.
type Calendar struct {
	HolidaysAs time.Weekday
	WorkdaysAs time.Weekday
	Holidays   map[Date]string // date → name
	Workdays   map[Date]string
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

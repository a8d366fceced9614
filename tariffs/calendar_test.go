package tariffs

import (
	"strings"
	"testing"
	"time"
)

// TestDayOf checks the local day an instant falls on, judged on the
// version's clock (Asia/Shanghai, UTC+8, for edgeco's peak version), and
// the calendar entry that decides its periods.
func TestDayOf(t *testing.T) {
	m := loadTestdata(t).Model("flash")
	tests := []struct {
		name  string
		at    string
		local string // on the version's clock
		kind  string
		day   string // the calendar's name
		as    time.Weekday
	}{
		{"an ordinary Monday", "2026-10-12T02:00:00Z", "2026-10-12T10:00:00+08:00", "", "", time.Monday},
		{"a holiday on a Thursday", "2026-10-01T02:00:00Z", "2026-10-01T10:00:00+08:00", "holiday", "National Day", time.Sunday},
		{"a make-up workday on a Saturday", "2026-10-10T02:00:00Z", "2026-10-10T10:00:00+08:00", "workday", "make-up workday (Saturday)", time.Monday},
		// 16:00 UTC on Friday the 9th is midnight of Saturday the 10th in Beijing.
		{"the local date decides, not the UTC one", "2026-10-09T16:00:00Z", "2026-10-10T00:00:00+08:00", "workday", "make-up workday (Saturday)", time.Monday},
		{"the last instant before the holiday", "2026-09-30T15:59:59Z", "2026-09-30T23:59:59+08:00", "", "", time.Wednesday},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := mustTime(t, tt.at)
			q := m.At(at)
			if q.Version == nil || q.Version.Name != "peak" {
				t.Fatalf("version in force at %s is %v, want peak", tt.at, q.Version)
			}
			d := q.Version.DayOf(at)
			if got := d.Local.Format(time.RFC3339); got != tt.local || d.Kind != tt.kind || d.Name != tt.day || d.As != tt.as {
				t.Errorf("DayOf = %s %q %q as %s; want %s %q %q as %s", got, d.Kind, d.Name, d.As, tt.local, tt.kind, tt.day, tt.as)
			}
		})
	}
}

// provisionalTariff has peak hours on weekdays, holidays and make-up
// workdays on Sunday's rules, a final 2026 and a provisional 2027 that
// lists one holiday.
const provisionalTariff = `provider: cal
currency: USD
timezone: Asia/Shanghai
billing_time: end
sources:
  - {url: https://cal.example/, kind: official, checked: 2026-11-30}
models:
  - id: cal-model
calendar:
  holidays_as: sun
  workdays_as: sun
  provisional: [2027]
  holidays:
    - {date: 2026-10-01, name: National Day}
    - {date: 2027-01-01, name: New Year's Day}
  workdays:
    - {date: 2026-10-10, name: make-up workday}
versions:
  - effective: 2025-01-01T00:00:00Z
    default_period: offpeak
    periods:
      - {name: peak, weekdays: [mon, tue, wed, thu, fri], windows: ["09:00-18:00"]}
    prices: {cal-model: {offpeak: {input: 1, output: 2}, peak: {input: 2, output: 4}}}
`

// TestCoverage checks which local days a calendar knows: those of its
// final years, and the listed days of a provisional one; and that only a
// day whose periods a holiday or make-up workday would change is reported.
func TestCoverage(t *testing.T) {
	p, ps := Parse("cal.yaml", []byte(provisionalTariff))
	if p == nil {
		t.Fatal(ps)
	}
	if p.Calendar.FirstYear != 2026 || p.Calendar.LastYear != 2027 || p.Calendar.FinalUntil() != DateOf(2027, 1, 1) {
		t.Fatalf("calendar covers %d to %d, final until %s; want 2026 to 2027, final until 2027-01-01",
			p.Calendar.FirstYear, p.Calendar.LastYear, p.Calendar.FinalUntil())
	}
	m := p.Models[0]
	tests := []struct {
		name   string
		at     string // 11:00 in Beijing on each day
		period string
		want   Coverage
	}{
		{"a weekday of the final year", "2026-10-12T03:00:00Z", "peak", Covered},
		{"a holiday of the final year", "2026-10-01T03:00:00Z", "offpeak", Covered},
		{"a listed day of the provisional year", "2027-01-01T03:00:00Z", "offpeak", Covered},
		{"an unlisted weekday of the provisional year", "2027-01-04T03:00:00Z", "peak", Provisional},
		{"a Saturday of the provisional year: no listing could change it", "2027-01-02T03:00:00Z", "offpeak", Covered},
		{"a weekday past the calendar's years", "2028-01-04T03:00:00Z", "peak", Uncovered},
		{"a weekday before the calendar's years", "2025-12-31T03:00:00Z", "peak", Uncovered},
		{"a Sunday past the calendar's years", "2028-01-02T03:00:00Z", "offpeak", Covered},
		// 16:00 UTC on 2026-12-31 is midnight of 2027-01-01 in Beijing.
		{"the local date decides the year", "2026-12-31T16:00:00Z", "offpeak", Covered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := m.At(mustTime(t, tt.at))
			if q.PeriodName() != tt.period || q.Day != tt.want {
				t.Errorf("At(%s) = %s, %s; want %s, %s", tt.at, q.PeriodName(), q.Day, tt.period, tt.want)
			}
		})
	}
}

// TestDeepSeekCalendar checks the embedded DeepSeek calendar on the days
// that decide it, at 11:00 Beijing (peak hours on a working weekday).
func TestDeepSeekCalendar(t *testing.T) {
	cat, ps := Load("")
	if cat == nil {
		t.Fatal(ps)
	}
	m := cat.Model("deepseek-flash")
	tests := []struct {
		name   string
		at     string
		period string
		kind   string
		want   Coverage
	}{
		{"New Year's Day 2027 is a holiday by law", "2027-01-01T03:00:00Z", "offpeak", "holiday", Covered},
		{"Spring Festival Eve 2027 (lunar date)", "2027-02-05T03:00:00Z", "offpeak", "holiday", Covered},
		{"Mid-Autumn Festival 2027 (lunar date)", "2027-09-15T03:00:00Z", "offpeak", "holiday", Covered},
		{"a make-up Saturday of 2026 follows weekend rules", "2026-10-10T03:00:00Z", "offpeak", "workday", Covered},
		{"a make-up Sunday of 2026 follows weekend rules", "2026-09-20T03:00:00Z", "offpeak", "workday", Covered},
		{"an ordinary weekday of 2026", "2026-12-01T03:00:00Z", "peak", "", Covered},
		{"a 2027 weekday the notice may yet make a day off", "2027-02-09T03:00:00Z", "peak", "", Provisional},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := mustTime(t, tt.at)
			q := m.At(at)
			if q.Version == nil {
				t.Fatalf("no version at %s", tt.at)
			}
			if d := q.Version.DayOf(at); q.PeriodName() != tt.period || d.Kind != tt.kind || q.Day != tt.want {
				t.Errorf("At(%s) = %s, %q, %s; want %s, %q, %s", tt.at, q.PeriodName(), d.Kind, q.Day, tt.period, tt.kind, tt.want)
			}
		})
	}
}

// TestCalendarEnds checks when validation warns that a calendar stops
// being certain: 60 days ahead of its last year's end, or of a provisional
// year's start, and only while a version in force depends on it.
func TestCalendarEnds(t *testing.T) {
	final := strings.Replace(provisionalTariff, "  provisional: [2027]\n", "", 1)
	flat := strings.Replace(final, `    periods:
      - {name: peak, weekdays: [mon, tue, wed, thu, fri], windows: ["09:00-18:00"]}
    prices: {cal-model: {offpeak: {input: 1, output: 2}, peak: {input: 2, output: 4}}}`, "    prices: {cal-model: {offpeak: {input: 1, output: 2}}}", 1)
	tests := []struct {
		name string
		file string
		now  string
		want string // the warning, "-" for none
	}{
		{"provisional year 61 days ahead", provisionalTariff, "2026-10-31T15:59:00Z", "-"},
		// 2027-01-01 00:00 Beijing is 2026-12-31T16:00:00Z, 60 days after 2026-11-01T16:00:00Z.
		{"provisional year 60 days ahead", provisionalTariff, "2026-11-01T16:00:00Z",
			"cal.yaml:9: warning: calendar: 2027 is provisional from 2027-01-01 (in 60 day(s)): only its listed days are certain, until its holidays and make-up workdays are published and added"},
		{"final calendar ending in 30 days", final, "2027-12-01T16:00:00Z",
			"cal.yaml:9: warning: calendar: the last year it covers, 2027, ends on 2027-12-31 (in 30 day(s)): calls after it are priced as ordinary days until the holidays and make-up workdays of 2028 are added"},
		{"final calendar ended", final, "2028-02-01T00:00:00Z",
			"cal.yaml:9: warning: calendar: the last year it covers, 2027, ends on 2027-12-31 (31 day(s) ago): calls after it are priced as ordinary days until the holidays and make-up workdays of 2028 are added"},
		{"a flat tariff needs no calendar", flat, "2027-12-01T16:00:00Z", "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ps := Parse("cal.yaml", []byte(tt.file))
			if p == nil {
				t.Fatal(ps)
			}
			cat, ps := New([]*Provider{p})
			if cat == nil {
				t.Fatal(ps)
			}
			got := "-"
			if ws := cat.CalendarEnds(mustTime(t, tt.now), CalendarNotice); len(ws) > 0 {
				got = ws.Error()
			}
			if got != tt.want {
				t.Errorf("CalendarEnds(%s) =\n%s\nwant\n%s", tt.now, got, tt.want)
			}
		})
	}
}

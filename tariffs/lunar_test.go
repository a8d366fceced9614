package tariffs

import (
	"math"
	"testing"
	"time"
)

// The lunar holidays of a Chinese calendar year are derived here from the
// new moons and the sun's longitude, computed with the algorithms of
// Meeus, Astronomical Algorithms, 2nd ed. (chapter 49, new moons, with its
// main periodic terms; chapter 25, the sun's apparent longitude to about
// 0.01 degree), on Beijing's clock. A lunar month begins on the Beijing
// day of its new moon; the month holding the winter solstice is the
// eleventh; a month holding no principal solar term (a multiple of 30
// degrees) would be a leap month.

const j2000 = 2451545.0

// newMoon returns the Julian ephemeris day of lunation k (k = 0 near
// 2000-01-06).
func newMoon(k float64) float64 {
	rad := math.Pi / 180
	t := k / 1236.85
	jde := 2451550.09766 + 29.530588861*k + 0.00015437*t*t - 0.000000150*t*t*t
	e := 1 - 0.002516*t - 0.0000074*t*t
	m := (2.5534 + 29.10535670*k) * rad
	mp := (201.5643 + 385.81693528*k + 0.0107582*t*t) * rad
	f := (160.7108 + 390.67050284*k - 0.0016118*t*t) * rad
	om := (124.7746 - 1.56375588*k) * rad
	return jde - 0.40720*math.Sin(mp) + 0.17241*e*math.Sin(m) + 0.01608*math.Sin(2*mp) +
		0.01039*math.Sin(2*f) + 0.00739*e*math.Sin(mp-m) - 0.00514*e*math.Sin(mp+m) +
		0.00208*e*e*math.Sin(2*m) - 0.00111*math.Sin(mp-2*f) - 0.00057*math.Sin(mp+2*f) +
		0.00056*e*math.Sin(2*mp+m) - 0.00042*math.Sin(3*mp) + 0.00042*e*math.Sin(m+2*f) +
		0.00038*e*math.Sin(m-2*f) - 0.00024*e*math.Sin(2*mp-m) - 0.00017*math.Sin(om)
}

// sunLongitude returns the sun's apparent longitude in degrees at jde.
func sunLongitude(jde float64) float64 {
	rad := math.Pi / 180
	t := (jde - j2000) / 36525
	l0 := 280.46646 + 36000.76983*t + 0.0003032*t*t
	m := (357.52911 + 35999.05029*t - 0.0001537*t*t) * rad
	c := (1.914602-0.004817*t)*math.Sin(m) + (0.019993-0.000101*t)*math.Sin(2*m) + 0.000289*math.Sin(3*m)
	return math.Mod(l0+c-0.00569-0.00478*math.Sin((125.04-1934.136*t)*rad)+720, 360)
}

// beijingDate returns the Beijing calendar date of jde (ΔT taken as 69 s).
func beijingDate(jde float64) Date {
	t := time.Date(2000, 1, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration((jde - j2000 - 69.0/86400) * 24 * float64(time.Hour)))
	return DateOf(t.In(time.FixedZone("CST", 8*3600)).Date())
}

// solarTerm returns the jde, near jde0, at which the sun reaches lon.
func solarTerm(lon, jde0 float64) float64 {
	j := jde0
	for range 20 {
		j += math.Mod(lon-sunLongitude(j)+540, 360) - 180
	}
	return j
}

// lunarMonths returns the first days of the lunar months from the one
// holding the winter solstice before year y on: index 0 is the eleventh
// month, 2 the first month of year y when no leap month falls between.
func lunarMonths(t *testing.T, y int) []Date {
	solstice := solarTerm(270, 2451545.0+float64(y-2001)*365.2422+356)
	k := math.Floor((solstice - 2451550.09766) / 29.530588861)
	for newMoon(k+1) <= solstice {
		k++
	}
	var out []Date
	for n := range 11 {
		i := float64(n)
		out = append(out, beijingDate(newMoon(k+i)))
		// Each month from the eleventh to the eighth holds a principal term.
		if n > 0 {
			start, end := newMoon(k+i), newMoon(k+i+1)
			lon := math.Ceil(sunLongitude(start)/30) * 30
			// Days decide, not instants: a term on the day of the next new
			// moon belongs to the next month.
			if term := solarTerm(math.Mod(lon, 360), start+15); beijingDate(term) >= beijingDate(end) {
				t.Fatalf("month starting %s holds no principal solar term: a leap month", out[len(out)-1])
			}
		}
	}
	return out
}

func addDays(d Date, n int) Date {
	return DateOf(d.Midnight(time.UTC).AddDate(0, 0, n).Date())
}

// TestLunarHolidays derives the statutory lunar holidays and Qingming of
// 2026 (checked against the State Council's 2026 notice) and of 2027
// (checked against the embedded DeepSeek calendar, whose 2027 notice is
// pending).
func TestLunarHolidays(t *testing.T) {
	cat, ps := Load("")
	if cat == nil {
		t.Fatal(ps)
	}
	cal := &cat.Model("deepseek-flash").Provider.Calendar
	tests := []struct {
		year                                 int
		eve, dragonBoat, midAutumn, qingming string
	}{
		{2026, "2026-02-16", "2026-06-19", "2026-09-25", "2026-04-05"},
		{2027, "2027-02-05", "2027-06-09", "2027-09-15", "2027-04-05"},
	}
	for _, tt := range tests {
		months := lunarMonths(t, tt.year)
		first := months[2]
		got := []Date{addDays(first, -1), addDays(months[6], 4), addDays(months[9], 14),
			beijingDate(solarTerm(15, 2451545.0+float64(tt.year-2000)*365.2422+95))}
		for i, w := range []string{tt.eve, tt.dragonBoat, tt.midAutumn, tt.qingming} {
			want, _ := ParseDate(w)
			if got[i] != want {
				t.Errorf("%d: holiday %d computed as %s, want %s", tt.year, i, got[i], want)
			}
			if _, listed := cal.Holidays[want]; !listed {
				t.Errorf("the DeepSeek calendar does not list %s as a holiday", want)
			}
		}
	}
}

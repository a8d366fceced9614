package litellm

import (
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tokenfare/tokenfare/tariffs"
)

func TestOffPeakFromTariff(t *testing.T) {
	cat := testCatalog(t)
	o, dear, err := OffPeakFromTariff(cat.Model("deepseek-flash"), time.Date(2026, 9, 28, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	// Peak is 09:00-12:00 and 14:00-18:00 in Beijing (UTC+8) on weekdays,
	// i.e. 01:00-04:00 and 06:00-10:00 UTC; the rest of a Beijing weekday
	// is off-peak: 00:00-01:00, 04:00-06:00 and 10:00-24:00 UTC. Weekends
	// and holidays (Sunday's rules) are off-peak all day; the make-up
	// workday 2026-10-10 has Monday's hours.
	weekday := []string{"00:00-01:00", "04:00-06:00", "10:00-00:00"}
	want := []struct {
		hours    []string
		weekdays string
		dates    string
	}{
		{weekday, "mon tue wed thu fri", ""},
		{[]string{"00:00-00:00"}, "sat sun", ""},
		{[]string{"00:00-00:00"}, "", "2026-10-01 2026-10-02 2027-01-01"},
		{weekday, "", "2026-10-10"},
	}
	if len(o.Rules) != len(want) {
		t.Fatalf("%d rules, want %d: %v", len(o.Rules), len(want), o.Lines())
	}
	for i, w := range want {
		r := o.Rules[i]
		var wds []string
		for _, wd := range r.Weekdays {
			wds = append(wds, weekdayName(wd))
		}
		if got := strings.Join(hoursText(r.Hours), " "); got != strings.Join(w.hours, " ") {
			t.Errorf("rule %d hours %s, want %s", i, got, strings.Join(w.hours, " "))
		}
		if strings.Join(wds, " ") != w.weekdays || strings.Join(r.Dates, " ") != w.dates {
			t.Errorf("rule %d: weekdays %v dates %v, want %q %q", i, wds, r.Dates, w.weekdays, w.dates)
		}
	}
	if o.Zone != "Asia/Shanghai" || o.Rates.Price(0).String() != "0.15" || dear.Price(0).String() != "0.3" {
		t.Errorf("zone %s, off-peak input %s, peak input %s; want Asia/Shanghai, 0.15, 0.3", o.Zone, o.Rates.Price(0), dear.Price(0))
	}
	if _, _, err := OffPeakFromTariff(cat.Model("gpt-4o"), testAt); err == nil {
		t.Error("a block for a flat-priced model: no error")
	}
}

func TestOffPeakDiff(t *testing.T) {
	cat := testCatalog(t)
	at := time.Date(2026, 9, 28, 0, 0, 0, 0, time.UTC)
	want, _, err := OffPeakFromTariff(cat.Model("deepseek-flash"), at)
	if err != nil {
		t.Fatal(err)
	}
	exact := strings.Join(want.Lines(), "\n")
	tests := []struct {
		name, block, diff string
	}{
		{"the block as written from the tariff", exact, ""},
		{"ISO weekday numbers and one list of windows", `weekday_timezone: Asia/Shanghai
windows:
  - {hours_utc: ["10:00-01:00", "04:00-06:00"], weekdays: [1, 2, 3, 4, 5]}
  - {hours_utc: "00:00-00:00", weekdays: [Saturday, 7]}
  - {hours_utc: "00:00-00:00", override_dates: ["2026-10-01", "2026-10-02", "2027-01-01"]}
  - {hours_utc: ["00:00-01:00", "04:00-06:00", "10:00-00:00"], override_dates: ["2026-10-10"]}`, ""},
		{"peak hour missing", strings.Replace(exact, `"04:00-06:00"`, `"03:00-06:00"`, 1), "on mon at 03:00 UTC the block says off-peak, the tariff peak"},
		{"zone", strings.Replace(exact, "Asia/Shanghai", "UTC", 1), `weekday_timezone "UTC", want "Asia/Shanghai"`},
		{"holiday missing", strings.Replace(exact, `"2026-10-02", `, "", 1), "on 2026-10-02 at 01:00 UTC the block says peak, the tariff off-peak"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tc.block), &doc); err != nil {
				t.Fatal(err)
			}
			got, problems := ReadOffPeak(doc.Content[0])
			if len(problems) > 0 {
				t.Fatalf("problems: %v", problems)
			}
			if d := got.Diff(want); d != tc.diff {
				t.Errorf("Diff = %q, want %q", d, tc.diff)
			}
		})
	}
}

// TestOffPeakEmbedded2027 builds the block from the embedded DeepSeek
// tariff on 2026-12-01: it carries the 2027 holidays the calendar knows
// (the statutory days), and check warns that the calendar is certain only
// until the end of 2026.
func TestOffPeakEmbedded2027(t *testing.T) {
	cat, ps := tariffs.Load("")
	if cat == nil {
		t.Fatal(ps)
	}
	m := cat.Model("deepseek-flash")
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	o, _, err := OffPeakFromTariff(m, at)
	if err != nil {
		t.Fatal(err)
	}
	var in2027 []string
	for _, d := range o.dates() {
		if strings.HasPrefix(d, "2027-") {
			in2027 = append(in2027, d)
		}
	}
	want := "2027-01-01 2027-02-05 2027-02-06 2027-02-07 2027-02-08 2027-04-05 2027-05-01 2027-05-02 2027-06-09 2027-09-15 2027-10-01 2027-10-02 2027-10-03"
	if got := strings.Join(in2027, " "); got != want {
		t.Errorf("2027 override dates:\n%s\nwant\n%s", got, want)
	}
	msg := datesRunOut(o, m, at)
	if !strings.HasPrefix(msg, "the tariff's holiday calendar is certain only until 2026-12-31 (2027 is provisional)") {
		t.Errorf("datesRunOut = %q", msg)
	}
}

// TestDatesRunOut checks when a block's holidays run out: its last
// override date or its tariff's calendar, within 60 days of --at.
func TestDatesRunOut(t *testing.T) {
	cat := testCatalog(t) // the calendar lists 2026-10-01 to 2027-01-01: final to the end of 2027
	m := cat.Model("deepseek-flash")
	block := func(dates ...string) *OffPeak { return &OffPeak{Rules: []OffPeakRule{{Dates: dates}}} }
	tests := []struct {
		name string
		o    *OffPeak
		at   time.Time
		want string // the start of the message; "" for none
	}{
		// The last date 2027-01-01 runs out at 2027-01-02 00:00 Beijing,
		// 2027-01-01T16:00:00Z: 61 days after 2026-11-01T16:00:00Z.
		{"last date 61 days ahead", block("2027-01-01"), time.Date(2026, 11, 1, 15, 59, 0, 0, time.UTC), ""},
		{"last date 60 days ahead", block("2027-01-01"), time.Date(2026, 11, 2, 16, 0, 0, 0, time.UTC), "the block's override_dates run out on 2027-01-01"},
		{"last date passed", block("2026-10-10"), time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), "the block's override_dates run out on 2026-10-10"},
		{"the tariff's calendar ends first", block("2028-05-01"), time.Date(2027, 12, 1, 0, 0, 0, 0, time.UTC), "the tariff's holiday calendar is certain only until 2027-12-31"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := datesRunOut(tt.o, m, tt.at)
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Errorf("datesRunOut = %q, want %q...", got, tt.want)
			}
		})
	}
}

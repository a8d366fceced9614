package litellm

import (
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
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

func TestDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	new := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\n"
	// Seven equal lines between the changes: more than twice the context,
	// so two hunks, as GNU diff -u makes them.
	want := `--- x
+++ y
@@ -1,7 +1,7 @@
 a
 b
 c
-d
+D
 e
 f
 g
@@ -9,3 +9,4 @@
 i
 j
 k
+l
`
	if got := Diff("x", "y", []byte(old), []byte(new)); got != want {
		t.Errorf("Diff:\n%s\nwant:\n%s", got, want)
	}
	if got := Diff("x", "y", []byte(old), []byte(old)); got != "" {
		t.Errorf("Diff of equal texts: %q", got)
	}
}

package tariffs

import (
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

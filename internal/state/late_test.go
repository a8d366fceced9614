package state

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/pricing"
)

// TestLate: a call logged after the next refresh has read on past it by
// more than the lookback (Overlap) is counted, not lost: read for the
// first time within the day the state keeps identities for, it is priced
// in its own slot and counted as late (however late in a file's bytes
// past its mark: never read before); the state then gives what one full
// run gives. A call older than a day in a source read again from its
// start is counted as outside.
func TestLate(t *testing.T) {
	cat := embedded(t)
	rows := billedCalls(600)
	first := rows[:400]
	last := first[len(first)-1]
	lastStart, err := time.Parse(time.RFC3339, strings.Split(last, ",")[1])
	if err != nil {
		t.Fatal(err)
	}
	call := func(id string, start time.Time) string {
		return id + "," + start.Format(time.RFC3339) + "," + start.Add(10*time.Second).Format(time.RFC3339) +
			",k1,alias-1,team-1,u-1,gpt-4o,gpt,,success,0.5,10000,0,0,0,2000,0,0,standard,\n"
	}
	tests := []struct {
		name              string
		late              time.Duration
		marks             bool // the file read past its mark, as serve reads --calls
		wantLate, outside int64
	}{
		{name: "three hours late", late: 3 * time.Hour, wantLate: 1},
		{name: "twenty hours late", late: 20 * time.Hour, wantLate: 1},
		{name: "two days late: outside", late: 48 * time.Hour, outside: 1},
		{name: "two days late, past a file's mark", late: 48 * time.Hour, marks: true, wantLate: 1},
		{name: "a month late, past a file's mark", late: 30 * 24 * time.Hour, marks: true, wantLate: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "calls.csv")
			s, err := Open(filepath.Join(dir, "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			feed := wholeFileFeed(log)
			if tt.marks {
				feed = Feed{Name: log, Files: func() ([]string, error) { return []string{log}, nil }}
			}
			refresh := func(rows []string) Source {
				writeCanonical(t, log, rows)
				src, err := refresh(s, cat, pricing.Options{}, []Feed{feed})
				if err != nil {
					t.Fatal(err)
				}
				return src[0]
			}
			before := refresh(first)
			all := append(append([]string{}, rows...), call("late", lastStart.Add(-tt.late)))
			src := refresh(all)
			if src.Late != tt.wantLate {
				t.Errorf("late calls %d, want %d", src.Late, tt.wantLate)
			}
			// The second refresh read every row again, the first batch's as
			// outside (counted before), the rest by outcome; past a file's
			// mark it read only the new rows.
			want := int64(len(first)) + tt.outside
			if tt.marks {
				want = 0
			}
			if got := src.Rows.Outside - before.Rows.Outside; got != want {
				t.Errorf("outside in the second refresh %d, want %d", got, want)
			}
			full := filepath.Join(dir, "full.csv")
			kept := all
			if tt.outside > 0 {
				kept = rows // the call older than a day is not in the state's sums
			}
			writeCanonical(t, full, kept)
			opts := pricing.Options{Dims: []pricing.Dim{pricing.DimModel, pricing.DimDay}}
			if got, want := rendered(t, filled(t, s, cat, opts)), rendered(t, fullEngine(t, cat, opts, full)); got != want {
				t.Errorf("the state gives\n%.1500s\nthe full run\n%.1500s", firstDiff(got, want), firstDiff(want, got))
			}
		})
	}
}

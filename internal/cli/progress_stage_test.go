package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/run"
)

// stagedProgress is a database's progress read at each tick: its stage
// and sums as listed.
type stagedProgress struct {
	stages []run.Stage
	sums   []int64
	i      int
}

func (s *stagedProgress) Stage() run.Stage { return s.stages[s.i] }

func (s *stagedProgress) Rows() int64 { n := s.sums[s.i]; s.i++; return n }

func (s *stagedProgress) Bytes() (int64, int64, bool) { return 0, -1, false }

// TestProgressPushDownLine: while a database sums its calls the progress
// line says so with the time elapsed, then counts the sums priced; on a
// terminal only, as every progress line.
func TestProgressPushDownLine(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		want     string
	}{
		// Readings 1, 2 and 63 s in.
		{name: "terminal", terminal: true, want: "\rdb: summing in the database, 0:01\033[K" +
			"\rdb: summing in the database, 0:02\033[K" +
			"\rdb: pricing the database's sums, 1200 sums, 1:03\033[K" + "\r\033[K"},
		{name: "not a terminal", terminal: false, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			tick := make(chan time.Time)
			clock := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
			steps := []time.Duration{0, time.Second, time.Second, 61 * time.Second}
			n := 0
			a := &app{stderr: &errb,
				now:      func() time.Time { clock = clock.Add(steps[n]); n++; return clock },
				terminal: func() bool { return tt.terminal },
				tick:     func() (<-chan time.Time, func()) { return tick, func() {} }}
			p := &stagedProgress{stages: []run.Stage{run.StageSumming, run.StageSumming, run.StagePricing}, sums: []int64{0, 0, 1200}}
			stop := a.drawProgress("db", p)
			if tt.terminal {
				for range 3 {
					tick <- time.Time{}
				}
			}
			stop()
			if got := errb.String(); got != tt.want {
				t.Errorf("stderr:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

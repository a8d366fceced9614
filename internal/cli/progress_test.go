package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/secret"
	"github.com/tokenfare/tokenfare/reports/textout"
)

// TestProgressLine works each figure by hand: the rate is rows over the
// seconds elapsed, the time left the elapsed time scaled by the bytes left
// over the bytes read.
func TestProgressLine(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name       string
		rows       int64
		read, size int64
		elapsed    time.Duration
		want       string
	}{
		// 1,200,000 rows / 12 s = 100,000 rows/s; 48 of 96 MiB is 50 %,
		// so the other half takes another 12 s.
		{name: "file half read", rows: 1200000, read: 48 * mib, size: 96 * mib, elapsed: 12 * time.Second,
			want: "spend.csv: 1200000 rows, 100000 rows/s, 48.0 of 96.0 MiB (50%), 0:12 left"},
		// 1 MiB of 1 GiB in 10 s: 1023 MiB left at 1 MiB per 10 s is
		// 10,230 s, 2 h 50 min 30 s; 1/1024 is 0 % whole.
		{name: "hours left", rows: 5000, read: mib, size: 1024 * mib, elapsed: 10 * time.Second,
			want: "spend.csv: 5000 rows, 500 rows/s, 0.0 of 1.0 GiB (0%), 2:50:30 left"},
		// 1,536 bytes are 1.5 KiB; no size, no share nor time left.
		{name: "stdin of unknown size", rows: 30, read: 1536, size: -1, elapsed: 2 * time.Second,
			want: "spend.csv: 30 rows, 15 rows/s, 1.5 KiB read"},
		{name: "database tells no bytes", rows: 7, read: -1, size: -1, elapsed: time.Second,
			want: "spend.csv: 7 rows, 7 rows/s"},
		// A file that grew past the size it had when opened counts as read whole.
		{name: "file grown while read", rows: 10, read: 900, size: 800, elapsed: time.Second,
			want: "spend.csv: 10 rows, 10 rows/s, 800.0 of 800.0 B (100%), 0:00 left"},
		{name: "nothing read yet", rows: 0, read: 0, size: 800, elapsed: 0,
			want: "spend.csv: 0 rows, 0.0 of 800.0 B (0%)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := progressLine("spend.csv", tt.rows, tt.read, tt.size, tt.elapsed); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// fakeProgress hands out one reading per call, in order; before its
// second reading it calls during, if set.
type fakeProgress struct {
	rows, read []int64
	size       int64
	r, b       int
	during     func()
}

func (f *fakeProgress) Rows() int64 { f.r++; return f.rows[f.r-1] }

func (f *fakeProgress) Bytes() (int64, int64, bool) {
	if f.b++; f.b == 2 && f.during != nil {
		f.during()
	}
	return f.read[f.b-1], f.size, true
}

// TestProgressRedrawsOneLineAndClearsIt ticks on a terminal, the clock a
// second further at each reading: the line is redrawn in place (carriage
// return, line cleared after it), its name escaped and its secrets masked
// as on all of stderr; a warning written meanwhile clears it first and the
// next tick draws it below; it is cleared once the read is done.
func TestProgressRedrawsOneLineAndClearsIt(t *testing.T) {
	var errb bytes.Buffer
	tick := make(chan time.Time)
	stopped := false
	clock := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	a := &app{stderr: &textout.Escaping{W: &secret.Writer{W: &errb}}, // as runContext wraps it
		now:      func() time.Time { clock = clock.Add(time.Second); return clock },
		terminal: func() bool { return true },
		tick:     func() (<-chan time.Time, func()) { return tick, func() { stopped = true } }}
	const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
	name := "logs/" + key + "/\x1b]0;owned\x07.csv"
	p := &fakeProgress{rows: []int64{1000, 3000, 4000}, read: []int64{250, 750, 1000}, size: 1000}
	stop := a.drawProgress(name, p)
	// A warning comes while the first line is up (written as the second is
	// worked out, so that the order is fixed).
	p.during = func() { fmt.Fprintln(a.stderr, "rejected: \x1b[31mred") }
	for range 3 {
		tick <- time.Time{}
	}
	stop()
	fmt.Fprintln(a.stderr, "after")
	// Readings 1, 2 and 3 s in: 1000 rows/s, a quarter read, 1 s × 750/250
	// = 3 s left; 3000 rows / 2 s, three quarters, 2 s × 250/750 ≈ 0.67 s;
	// 4000 rows / 3 s ≈ 1333, all read, nothing left.
	esc := strings.Replace(textout.Escape(name), key, secret.Mask, 1)
	want := "\r" + esc + ": 1000 rows, 1000 rows/s, 250.0 of 1000.0 B (25%), 0:03 left\033[K" +
		"\r\033[K" + "rejected: \\x1b[31mred\n" +
		"\r" + esc + ": 3000 rows, 1500 rows/s, 750.0 of 1000.0 B (75%), 0:01 left\033[K" +
		"\r" + esc + ": 4000 rows, 1333 rows/s, 1000.0 of 1000.0 B (100%), 0:00 left\033[K" +
		"\r\033[K" + "after\n"
	if got := errb.String(); got != want {
		t.Errorf("stderr:\n got %q\nwant %q", got, want)
	}
	if strings.Contains(errb.String(), "\x1b]") {
		t.Errorf("the file name's escape reached the terminal: %q", errb.String())
	}
	if strings.Contains(errb.String(), key) {
		t.Errorf("the key in the file name was not masked: %q", errb.String())
	}
	if !stopped {
		t.Error("the ticker was not stopped")
	}
}

// TestProgressOnlyOnATerminal runs reconcile through the command tree: the
// progress line starts (its ticker is asked for) once per source on a
// terminal, never when stderr is not one or under --quiet, and nothing of
// it reaches stderr.
func TestProgressOnlyOnATerminal(t *testing.T) {
	tests := []struct {
		name      string
		terminal  bool
		args      []string
		wantTicks int
	}{
		{name: "terminal", terminal: true, wantTicks: 1},
		{name: "terminal under --quiet", terminal: true, args: []string{"--quiet"}, wantTicks: 0},
		{name: "not a terminal", terminal: false, wantTicks: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			tickers := 0
			a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
				now:      func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) },
				terminal: func() bool { return tt.terminal },
				tick: func() (<-chan time.Time, func()) {
					tickers++
					return make(chan time.Time), func() {}
				}}
			args := append([]string{"reconcile", "--calls", "../../testdata/sample/spendlogs-2026-10.csv"}, tt.args...)
			if code := runContext(t.Context(), a, args); code != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
			}
			if tickers != tt.wantTicks {
				t.Errorf("progress started %d time(s), want %d", tickers, tt.wantTicks)
			}
			if strings.ContainsAny(errb.String(), "\r\x1b") {
				t.Errorf("stderr holds terminal controls: %q", errb.String())
			}
		})
	}
}

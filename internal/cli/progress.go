package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/reports/textout"
)

// progressEvery is how often the progress line is redrawn.
const progressEvery = time.Second

// progress draws, on stderr, one line saying how far the read of source
// name has got, redrawn at each tick, when stderr is a terminal and
// --quiet is not given. The returned function stops it and clears the
// line; once it returns, nothing more is written.
func (a *app) progress(name string, p *run.Progress) func() { return a.drawProgress(name, p) }

// readProgress is how far a read has got: *run.Progress.
type readProgress interface {
	Rows() int64
	Bytes() (read, size int64, ok bool)
}

// drawProgress is progress, for any readProgress. While the line is up,
// a.stderr clears it before each message, so a warning written meanwhile
// (a rejected row) stands on a line of its own; the next tick draws the
// line again below it.
func (a *app) drawProgress(name string, p readProgress) func() {
	if a.quiet || !a.stderrIsTerminal() {
		return func() {}
	}
	tick, stopTick := a.ticker()
	// The line writes its own controls, so it goes under the escaping
	// writer (still masking secrets), with a name that has none.
	raw, name := a.stderr, textout.Escape(name)
	if e, ok := raw.(*textout.Escaping); ok {
		raw = e.W
	}
	l := &statusLine{w: raw}
	saved := a.stderr
	a.stderr = &clearingWriter{l: l, w: saved}
	start := a.now()
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		defer stopTick()
		for {
			select {
			case <-done:
				l.clear()
				return
			case <-tick:
				if st, ok := p.(staged); ok && st.Stage() != run.StageRows {
					l.draw(stageLine(name, st.Stage(), p.Rows(), a.now().Sub(start)))
					continue
				}
				read, size, ok := p.Bytes()
				if !ok {
					read, size = -1, -1
				}
				l.draw(progressLine(name, p.Rows(), read, size, a.now().Sub(start)))
			}
		}
	}()
	return func() { close(done); <-ended; a.stderr = saved }
}

// statusLine is a line kept at the bottom of a terminal and redrawn in
// place.
type statusLine struct {
	mu    sync.Mutex
	w     io.Writer
	drawn bool
}

// draw replaces the line with s.
func (l *statusLine) draw(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprint(l.w, "\r"+s+"\033[K")
	l.drawn = true
}

// clear erases the line, if it is drawn.
func (l *statusLine) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
}

func (l *statusLine) clearLocked() {
	if l.drawn {
		fmt.Fprint(l.w, "\r\033[K")
		l.drawn = false
	}
}

// clearingWriter writes to w after clearing the status line.
type clearingWriter struct {
	l *statusLine
	w io.Writer
}

func (c *clearingWriter) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	c.l.clearLocked()
	return c.w.Write(p)
}

// Unwrap returns the writer under c, for isTerminal.
func (c *clearingWriter) Unwrap() io.Writer { return c.w }

// stderrIsTerminal reports whether stderr is a terminal; tests set
// app.terminal instead.
func (a *app) stderrIsTerminal() bool {
	if a.terminal != nil {
		return a.terminal()
	}
	return isTerminal(a.stderr)
}

// ticker returns the progress line's ticks and a function that stops
// them; tests set app.tick instead.
func (a *app) ticker() (<-chan time.Time, func()) {
	if a.tick != nil {
		return a.tick()
	}
	t := time.NewTicker(progressEvery)
	return t.C, t.Stop
}

// progressLine says how far a read has got after elapsed: rows read and
// their rate, then bytes read when read >= 0, out of size with the share
// and the time left when size > 0 (estimated from the bytes' rate so far).
//
//	spend.csv: 1200000 rows, 100000 rows/s, 48.0 of 96.0 MiB (50%), 0:12 left
func progressLine(name string, rows, read, size int64, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d rows", name, rows)
	if s := elapsed.Seconds(); s > 0 {
		fmt.Fprintf(&b, ", %.0f rows/s", float64(rows)/s)
	}
	switch {
	case read < 0:
	case size <= 0:
		unit, div := byteUnit(read)
		fmt.Fprintf(&b, ", %.1f %s read", float64(read)/div, unit)
	default:
		unit, div := byteUnit(size)
		read = min(read, size) // a file that grew while read
		fmt.Fprintf(&b, ", %.1f of %.1f %s (%d%%)", float64(read)/div, float64(size)/div, unit, read*100/size)
		if read > 0 && elapsed > 0 {
			left := time.Duration(float64(elapsed) * float64(size-read) / float64(read))
			fmt.Fprintf(&b, ", %s left", clock(left))
		}
	}
	return b.String()
}

// staged is a readProgress that may be at a stage other than reading
// rows: a database summing its own calls (*run.Progress).
type staged interface{ Stage() run.Stage }

// stageLine says what a database summing its calls is at after elapsed,
// and how many of its sums are priced once they come back:
//
//	postgres://db/litellm: summing in the database, 0:42
//	postgres://db/litellm: pricing the database's sums, 12000 sums, 0:44
func stageLine(name string, stage run.Stage, sums int64, elapsed time.Duration) string {
	if stage == run.StagePricing {
		return fmt.Sprintf("%s: %s, %d sums, %s", name, stage, sums, clock(elapsed))
	}
	return fmt.Sprintf("%s: %s, %s", name, stage, clock(elapsed))
}

// byteUnit is the binary unit that suits n bytes, and its size.
func byteUnit(n int64) (string, float64) {
	switch {
	case n >= 1<<30:
		return "GiB", 1 << 30
	case n >= 1<<20:
		return "MiB", 1 << 20
	case n >= 1<<10:
		return "KiB", 1 << 10
	}
	return "B", 1
}

// clock writes d, rounded to the second, as m:ss, or h:mm:ss from an hour.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

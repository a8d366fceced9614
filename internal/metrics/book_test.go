package metrics

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/budgets"
	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// snapshotText is every figure of a snapshot but the configured prices',
// one line each, in order.
func snapshotText(s *Snapshot) string {
	var lines []string
	for l, m := range s.Cost {
		lines = append(lines, fmt.Sprintf("cost %v %s %s", l, m.official, m.recorded))
	}
	for w, m := range s.Gap {
		lines = append(lines, fmt.Sprintf("gap %s %s %s", w, m.official, m.recorded))
	}
	for model, m := range s.Peak {
		lines = append(lines, fmt.Sprintf("peak %s %s %s", model, m.official, m.recorded))
	}
	for k, w := range s.Anomaly {
		lines = append(lines, fmt.Sprintf("anomaly %v %v", k, *w))
	}
	for o, n := range s.Calls {
		lines = append(lines, fmt.Sprintf("calls %s %d", o, n))
	}
	for _, b := range s.Budgets {
		lines = append(lines, fmt.Sprintf("budget %s %s %s %s %s", b.kind, b.name, b.spent, b.remaining, b.projected))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestWatchedBook: serve's figures kept up to date from what each
// refresh commits (Watch) are, after each of three batches and at nows
// moving on (the slots of October folded past the horizon, then a now
// before it), the figures of the whole state priced again, line by line;
// the book is priced again in full only for a new catalog or an earlier
// now.
func TestWatchedBook(t *testing.T) {
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	sample := taggedSample(t)
	f, err := os.Open(sample)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	header, rows := rows[0], rows[1:]
	start := slices.Index(header, "startTime")
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][start] < rows[j][start] })
	log := filepath.Join(t.TempDir(), "spendlogs.csv")
	write := func(n int) {
		t.Helper()
		writeCSV(t, log, append([][]string{header}, rows[:n]...))
	}
	s, err := state.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan, err := budgets.Parse("budgets.yaml", []byte("budgets:\n  - team: search\n    monthly: 1500\n  - tag: project-atlas\n    monthly: 80\n"))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{TopKeys: 3, Budgets: plan}
	watched := New(opts)
	watched.Watch(s)
	feed := state.Feed{Name: log, Files: func() ([]string, error) { return []string{log}, nil }}
	steps := []struct {
		rows int // rows of the log so far
		now  time.Time
	}{
		{len(rows) / 3, time.Date(2026, 10, 12, 9, 7, 0, 0, time.UTC)},
		{2 * len(rows) / 3, time.Date(2026, 10, 22, 14, 0, 0, 0, time.UTC)},
		{len(rows), time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC)},
		{len(rows), time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)}, // October past the horizon: folded
		{len(rows), time.Date(2026, 10, 29, 8, 0, 0, 0, time.UTC)}, // before it: priced again
	}
	var rebuilt int
	for i, st := range steps {
		write(st.rows)
		if _, err := run.Refresh(context.Background(), s, cat, pricing.Options{}, []state.Feed{feed}, false); err != nil {
			t.Fatal(err)
		}
		before := watched.book
		if err := watched.Update(s, cat, st.now, nil); err != nil {
			t.Fatal(err)
		}
		if watched.book != before {
			rebuilt++
		}
		// Every slot priced again, none folded.
		full := newBook(cat)
		if err := s.Each(full.add); err != nil {
			t.Fatal(err)
		}
		snap, err := full.snapshot(s, st.now, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, want := snapshotText(watched.snap), snapshotText(snap)
		if got != want {
			t.Errorf("step %d (%d rows, now %s): kept up to date\n%s\nall priced again\n%s", i, st.rows, st.now, got, want)
		}
		if i == 0 && !strings.Contains(want, "anomaly") {
			t.Errorf("step 0 has no anomaly series to compare:\n%s", want)
		}
		if i == 3 && len(watched.book.old) == 0 {
			t.Errorf("step 3: nothing folded")
		}
	}
	// The first Update, and the now before the horizon.
	if rebuilt != 2 {
		t.Errorf("the book was priced in full %d times, want 2", rebuilt)
	}
	if len(watched.book.slots) == 0 || len(watched.book.old) != 0 {
		t.Errorf("at the last now: %d slots, %d folded; want slots and none folded", len(watched.book.slots), len(watched.book.old))
	}
}

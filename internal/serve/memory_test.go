package serve

import (
	"testing"

	"github.com/tokenfare/tokenfare/internal/state"
)

// TestMemoryReturnedAfterALargeRefresh: serve gives memory back after a
// refresh that read a million rows or more, whichever sources read them,
// and not after the small refreshes of a running serve.
func TestMemoryReturnedAfterALargeRefresh(t *testing.T) {
	freed := 0
	m := newMemoryReturn()
	m.free = func() { freed++ }
	src := func(name string, read int64) state.Source {
		s := state.Source{Name: name}
		s.Rows.Read = read
		return s
	}
	steps := []struct {
		name    string
		sources []state.Source
		freed   int
	}{
		{"the first sync", []state.Source{src("db", 5_000_000)}, 1},
		{"a refresh of a few rows", []state.Source{src("db", 5_000_010)}, 1},
		{"a refresh that failed before reading", nil, 1},
		{"two sources, together past the mark", []state.Source{src("db", 5_600_010), src("file", 400_000)}, 2},
		{"two sources, together short of it", []state.Source{src("db", 6_000_000), src("file", 999_999)}, 2},
		{"the next one past it", []state.Source{src("db", 6_999_999), src("file", 1_000_000)}, 3},
	}
	for _, s := range steps {
		m.after(s.sources)
		if freed != s.freed {
			t.Fatalf("%s: memory given back %d times, want %d", s.name, freed, s.freed)
		}
	}
}

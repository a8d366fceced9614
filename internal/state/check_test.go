package state_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// sampleState writes a state of the sample month to a new file and
// returns its path.
func sampleState(t *testing.T) string {
	t.Helper()
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := state.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	feed := state.Feed{Name: sample, Open: func(time.Time, *ledger.Known) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(sample, ledger.Options{})}, nil
	}}
	if _, err := run.Refresh(context.Background(), s, cat, pricing.Options{}, []state.Feed{feed}, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenDamaged: a state file cut short or overwritten is refused with
// a DamagedError naming the file and the way back, never mapped past its
// end (SIGBUS) or left to panic; a file written whole opens.
func TestOpenDamaged(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
		why    string // in the error; "" for a file that opens
	}{
		{name: "whole", damage: func(*testing.T, string) {}},
		{name: "cut to three pages", why: "cut short", damage: func(t *testing.T, path string) {
			if err := os.Truncate(path, 3*4096); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "cut inside a page", why: "not a whole number", damage: func(t *testing.T, path string) {
			st, _ := os.Stat(path)
			os.Truncate(path, st.Size()-100)
		}},
		{name: "both meta pages zeroed", why: "no valid meta page", damage: func(t *testing.T, path string) {
			overwrite(t, path, 0, make([]byte, 2*4096))
		}},
		{name: "pages past the metas overwritten", why: "reading it failed", damage: func(t *testing.T, path string) {
			junk := []byte(strings.Repeat("\xff\x13\x00\x7f", 4096))
			for off := int64(2 * 4096); off < 64*4096; off += int64(len(junk)) {
				overwrite(t, path, off, junk)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := sampleState(t)
			tt.damage(t, path)
			s, err := state.Open(path)
			if err == nil {
				// A page bbolt reads only later: the first read tells.
				_, err = s.Sources()
				if err == nil {
					err = s.Each(func(*state.Key, *state.Sums) error { return nil })
				}
				s.Close()
			}
			if tt.why == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var de *state.DamagedError
			if !errors.As(err, &de) || de.Path != path {
				t.Fatalf("err %v, want a DamagedError of %s", err, path)
			}
			for _, want := range []string{tt.why, "move it aside", path} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q lacks %q", err, want)
				}
			}
		})
	}
}

func overwrite(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

// TestDBChoiceNote: left to choose, a run over one PostgreSQL reads its
// rows and says so in one note; --push-down and --rows decide without a
// note and give the same figures; both at once are refused.
func TestDBChoiceNote(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	const note = "note: reading the database's rows"
	var first string
	for _, tt := range []struct {
		flag string
		note int
	}{{"", 1}, {"--push-down", 0}, {"--rows", 0}} {
		args := []string{"chargeback", "--month", "2026-10", "--db", db.URL, "-o", "json"}
		if tt.flag != "" {
			args = append(args, tt.flag)
		}
		code, out, stderr := runCLI(t, "", args...)
		if code != exitOK {
			t.Fatalf("%q: exit %d: %s", tt.flag, code, stderr)
		}
		if got := strings.Count(stderr, note); got != tt.note {
			t.Errorf("%q: %d notes %q, want %d:\n%s", tt.flag, got, note, tt.note, stderr)
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("%q: output differs from the run's choice:\n%s", tt.flag, firstLineDiff(out, first))
		}
	}
	code, _, stderr := runCLI(t, "", "chargeback", "--month", "2026-10", "--db", db.URL, "--rows", "--push-down")
	if code != exitUsage {
		t.Errorf("--rows --push-down: exit %d, want %d: %s", code, exitUsage, stderr)
	}
	checkContains(t, "stderr", stderr, "--rows and --push-down")
}

// TestPushDownWithState: a state reads only the rows past its watermark,
// row by row; --push-down with it is refused before anything is read or
// written, by the batch commands and by serve.
func TestPushDownWithState(t *testing.T) {
	for _, cmd := range []string{"reconcile", "serve"} {
		st := filepath.Join(t.TempDir(), "state.db")
		code, _, stderr := runCLI(t, "", cmd, "--db", "postgres://nobody@127.0.0.1:1/none", "--state", st, "--push-down")
		if code != exitUsage {
			t.Errorf("%s: exit %d, want %d: %s", cmd, code, exitUsage, stderr)
		}
		checkContains(t, "stderr", stderr, "--push-down with a state")
		if _, err := os.Stat(st); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the state was created (%v)", cmd, err)
		}
	}
}

package state

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

// TestHelperRefreshes is the process TestKill kills: it refreshes the state
// after each batch, saying so on stdout. It runs only as that child.
func TestHelperRefreshes(t *testing.T) {
	dir := os.Getenv("TOKENFARE_STATE_CHILD")
	if dir == "" {
		t.Skip("the child process of TestKill")
	}
	header, parts := batches(t, 3)
	cat := embedded(t)
	s, err := Open(filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "spendlogs.csv")
	feed := Feed{Name: log, Open: func(time.Time) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(log, ledger.Options{})}, nil
	}}
	for i := range parts {
		writeRows(t, log, header, parts[:i+1]...)
		if _, err := s.Refresh(context.Background(), cat, pricing.Options{}, []Feed{feed}); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("committed\n")
	}
	time.Sleep(time.Minute)
}

// TestKill: a process killed with SIGKILL at any point of its refreshes
// leaves a state from which the next refreshes give exactly one full
// run's figures: a refresh is one transaction, and an unfinished one is
// read again.
func TestKill(t *testing.T) {
	header, parts := batches(t, 3)
	cat := embedded(t)
	full := filepath.Join(t.TempDir(), "full.csv")
	writeRows(t, full, header, parts...)
	want := fullRun(t, cat, full)
	for _, delay := range []time.Duration{0, 40 * time.Millisecond, 150 * time.Millisecond, 400 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			dir := t.TempDir()
			child := exec.Command(os.Args[0], "-test.run=^TestHelperRefreshes$", "-test.count=1")
			child.Env = append(os.Environ(), "TOKENFARE_STATE_CHILD="+dir)
			out, err := child.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			// Killed after its first commit, delay into what follows.
			if line, _ := bufio.NewReader(out).ReadString('\n'); !strings.HasPrefix(line, "committed") {
				child.Process.Kill()
				child.Wait()
				t.Fatalf("child: %q", line)
			}
			time.Sleep(delay)
			child.Process.Kill() // SIGKILL on Unix
			child.Wait()

			s, err := Open(filepath.Join(dir, "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			log := filepath.Join(dir, "spendlogs.csv")
			writeRows(t, log, header, parts...)
			feed := Feed{Name: log, Open: func(time.Time) ([]ledger.Source, error) {
				return []ledger.Source{ledger.FileSource(log, ledger.Options{})}, nil
			}}
			if _, err := s.Refresh(context.Background(), cat, pricing.Options{}, []Feed{feed}); err != nil {
				t.Fatal(err)
			}
			if got := stateTotals(t, s, cat); !got.equal(want) {
				t.Errorf("after a kill: official %s recorded %s calls %v\nfull run: official %s recorded %s calls %v",
					got.official, got.recorded, got.calls, want.official, want.recorded, want.calls)
			}
		})
	}
}

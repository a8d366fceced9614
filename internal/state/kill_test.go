package state

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	if os.Getenv("TOKENFARE_STATE_PARTS") != "" {
		s.partKeys = 3 // flushed and moved in parts of 3 keys
	}
	log := filepath.Join(dir, "spendlogs.csv")
	feed := killFeed(log, os.Getenv("TOKENFARE_STATE_MARKS") != "")
	for i := range parts {
		writeRows(t, log, header, parts[:i+1]...)
		if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("committed\n")
	}
	time.Sleep(time.Minute)
}

// killFeed is the feed of the file at log: read whole at each refresh, or
// (marks) only past its mark.
func killFeed(log string, marks bool) Feed {
	if marks {
		return Feed{Name: log, Files: func() ([]string, error) { return []string{log}, nil }}
	}
	return wholeFileFeed(log)
}

// TestKill: a process killed with SIGKILL at any point of its refreshes
// leaves a state from which the next refreshes give exactly one full
// run's figures: a refresh is one transaction (its file marks in it), and
// an unfinished one is read again; a refresh in parts is dropped whole
// when killed before its commit, moved on when killed after it.
func TestKill(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	header, parts := batches(t, 3)
	cat := embedded(t)
	full := filepath.Join(t.TempDir(), "full.csv")
	writeRows(t, full, header, parts...)
	want := fullRun(t, cat, full)
	for _, kind := range []struct {
		name         string
		marks, parts bool
	}{{name: "file read whole"}, {name: "file read past its mark", marks: true}, {name: "file read whole, in parts", parts: true}} {
		for _, delay := range []time.Duration{0, 40 * time.Millisecond, 150 * time.Millisecond, 400 * time.Millisecond} {
			t.Run(kind.name+"/"+delay.String(), func(t *testing.T) { killOnce(t, kind.marks, kind.parts, delay, header, parts, want) })
		}
	}
}

// killOnce kills the child delay after its first commit, then refreshes
// the state it left over the whole file and compares it with want.
func killOnce(t *testing.T, marks, inParts bool, delay time.Duration, header []string, parts [][][]string, want totals) {
	t.Helper()
	cat := embedded(t)
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestHelperRefreshes$", "-test.count=1")
	child.Env = append(os.Environ(), "TOKENFARE_STATE_CHILD="+dir)
	if marks {
		child.Env = append(child.Env, "TOKENFARE_STATE_MARKS=1")
	}
	if inParts {
		child.Env = append(child.Env, "TOKENFARE_STATE_PARTS=1")
	}
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
	feed := killFeed(log, marks)
	if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
		t.Fatal(err)
	}
	if got := stateTotals(t, s, cat); !got.equal(want) {
		t.Errorf("after a kill: official %s recorded %s calls %v\nfull run: official %s recorded %s calls %v",
			got.official, got.recorded, got.calls, want.official, want.recorded, want.calls)
	}
}

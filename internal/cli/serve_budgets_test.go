package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeBudgetOutOfRange: a budget of 1e999999999 is refused at the
// start, naming the file and line, rather than leaving serve working
// out a remainder that never ends.
func TestServeBudgetOutOfRange(t *testing.T) {
	dir := t.TempDir()
	budgets := filepath.Join(dir, "budgets.yaml")
	os.WriteFile(budgets, []byte("budgets:\n  - team: search\n    monthly: 1e999999999\n"), 0o644)
	var stderr syncBuffer
	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, now: time.Now}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, a, []string{"serve", "--listen", "127.0.0.1:0", "--calls", "../../testdata/sample/spendlogs-2026-10.csv",
			"--state", filepath.Join(dir, "state.db"), "--budgets", budgets})
	}()
	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve neither refused the budget nor stopped when told to within 30 s:\n%s", stderr.String())
	}
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if want := budgets + `:3: monthly "1e999999999" is out of range`; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %s:\n%s", want, stderr.String())
	}
}

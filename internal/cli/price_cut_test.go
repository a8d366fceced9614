package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

// TestPriceCutStreamLeavesNoLines fails the input of price part way, after
// more lines than one buffer holds were written: --out keeps the file it
// would have replaced, a redirected stdout is cut back to what it held, and
// on a pipe the cut run is told apart by its exit code and the missing
// "rows:" line on stderr.
func TestPriceCutStreamLeavesNoLines(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	const before = "lines of an earlier run\n"
	run := func(t *testing.T, stdout *os.File, args ...string) (int, string) {
		t.Helper()
		var errb bytes.Buffer
		a := &app{stdin: &brokenStdin{data: data[:300_000]}, stdout: stdout, stderr: &errb, now: time.Now}
		code := runContext(context.Background(), a, append([]string{"price", "--calls", "-"}, args...))
		if code != exitFailure || !strings.Contains(errb.String(), "input/output error") {
			t.Fatalf("exit %d, want %d and the input's error\nstderr: %s", code, exitFailure, errb.String())
		}
		return code, errb.String()
	}
	tests := []struct {
		name   string
		args   []string
		append bool // stdout opened to append (>>), not truncated (>)
	}{
		{name: "redirected stdout", args: []string{"-o", "csv"}},
		{name: "stdout appended to", args: []string{"-o", "json"}, append: true},
		{name: "--out", args: []string{"-o", "csv", "--out", "priced.csv"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "stdout.txt")
			for i, a := range tt.args {
				if i > 0 && tt.args[i-1] == "--out" {
					tt.args[i] = filepath.Join(dir, a)
					target = tt.args[i]
				}
			}
			if err := os.WriteFile(target, []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
			flags := os.O_WRONLY | os.O_TRUNC
			if tt.append {
				flags = os.O_WRONLY | os.O_APPEND
			}
			stdoutPath := filepath.Join(dir, "stdout.txt")
			stdout, err := os.OpenFile(stdoutPath, flags|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer stdout.Close()
			_, stderr := run(t, stdout, tt.args...)
			if strings.Contains(stderr, "rows: ") {
				t.Errorf("a cut run prints the rows line of a complete one:\n%s", stderr)
			}
			want := before
			if target == stdoutPath && !tt.append {
				want = "" // > truncated it before the run
			}
			if got, _ := os.ReadFile(target); string(got) != want {
				t.Errorf("%s holds %d bytes after the failed run, want %q:\n%.300s", target, len(got), want, got)
			}
			if target != stdoutPath {
				if got, _ := os.ReadFile(stdoutPath); len(got) != 0 {
					t.Errorf("stdout got %d bytes with --out", len(got))
				}
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
			if len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
	t.Run("pipe: a complete run ends with the rows line", func(t *testing.T) {
		code, _, stderr := runCLI(t, "", "price", "--calls", sample, "-o", "csv")
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != exitOK || !strings.HasPrefix(lines[len(lines)-1], "rows: read 12000") {
			t.Errorf("exit %d, stderr ends %q; want 0 and the rows line", code, lines[len(lines)-1])
		}
	})
	t.Run("--out of a complete run", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "priced.csv")
		code, stdout, stderr := runCLI(t, "", "price", "--calls", sample, "--out", out)
		got, _ := os.ReadFile(out)
		if code != exitOK || stdout != "" || bytes.Count(got, []byte("\n")) != 12001 {
			t.Errorf("exit %d, %d bytes on stdout, %d lines in %s; want 0, none and a header with 12000 calls\nstderr: %s",
				code, len(stdout), bytes.Count(got, []byte("\n")), out, stderr)
		}
	})
}

// TestPriceConnectionLostLeavesNoLines loses the database connection while
// price streams its lines into a redirected stdout: the file is left empty.
func TestPriceConnectionLostLeavesNoLines(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 rows loaded to lose a connection in: make test-long runs it")
	}
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	db.Amplify(t, 100) // about 100,000 rows: many buffers of lines
	path := filepath.Join(t.TempDir(), "priced.csv")
	stdout, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	var errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: stdout, stderr: &errb, now: time.Now}
	done := make(chan int)
	go func() { done <- runContext(context.Background(), a, []string{"price", "--db", db.URL}) }()
	ctx := context.Background()
	killer := db.Connect(t)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("price wrote nothing in 60 s")
		}
	}
	var killed int
	if err := killer.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'tokenfare' AND datname = current_database()`).Scan(&killed); err != nil || killed == 0 {
		t.Fatalf("terminate the reading backend: %d, %v", killed, err)
	}
	code := <-done
	got, _ := os.ReadFile(path)
	if code != exitUsage || !strings.Contains(errb.String(), "connection failed") {
		t.Errorf("exit %d, want %d and a lost connection\nstderr: %s", code, exitUsage, errb.String())
	}
	if len(got) != 0 {
		t.Errorf("stdout holds %d bytes of lines after the connection was lost", len(got))
	}
}

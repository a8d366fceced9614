//go:build unix

package hostile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bin is the tokenfare binary TestMain builds.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tokenfare-hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin = filepath.Join(dir, "tokenfare")
	// go test puts its own GOROOT/bin first on the PATH of the test binary,
	// so "go" is the go command that runs the tests.
	build := exec.Command("go", "build", "-o", bin, "github.com/tokenfare/tokenfare/cmd/tokenfare")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build tokenfare:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// hostileCase is one attack: the contract it checks, its bounds, and the
// run that generates its inputs and checks the outcome.
type hostileCase struct {
	name     string        // names the contract
	contract string        // what must hold, in a sentence
	maxRSS   int64         // peak resident set of every run, bytes; 0: 256 MiB
	timeout  time.Duration // of every run; 0: 60 s
	run      func(t *testing.T, h *harness)
}

// harness runs the binary for one case, in its own folder, within the
// case's bounds.
type harness struct {
	t       *testing.T
	dir     string
	maxRSS  int64
	timeout time.Duration
}

// result is what one run of the binary gave.
type result struct {
	code           int
	stdout, stderr string
	rss            int64 // peak resident set, bytes
	wall           time.Duration
}

// file writes data to name in the case's folder and returns its path.
func (h *harness) file(name string, data []byte) string {
	h.t.Helper()
	p := filepath.Join(h.dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// tokenfare runs the binary with args and checks the case's bounds: it
// fails the test when the run is killed by its time or memory limit or
// its peak resident set passes the bound.
func (h *harness) tokenfare(args ...string) result {
	h.t.Helper()
	return h.tokenfareHead(-1, args...)
}

// tokenfareHead runs the binary as tokenfare does, its stdout a pipe whose
// reader, as head does, keeps the first lines lines and closes the pipe;
// lines < 0 reads everything.
func (h *harness) tokenfareHead(lines int, args ...string) result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	name, argv := bin, args
	if p, err := exec.LookPath("prlimit"); err == nil {
		// A hard cap above the bound: a runaway case fails at once
		// instead of taking the machine; the bound itself is checked
		// on the measured peak below.
		name, argv = p, append([]string{fmt.Sprintf("--data=%d", 2*h.maxRSS+64<<20), "--", bin}, args...)
	}
	lowerPeak()
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), "TZ=UTC")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	var err error
	if lines < 0 {
		err = cmd.Run()
	} else {
		err = runHead(cmd, &out, lines)
	}
	r := result{stdout: out.String(), stderr: errb.String(), wall: time.Since(start)}
	if ctx.Err() != nil {
		h.t.Fatalf("tokenfare %s: not done within %v", argsText(args), h.timeout)
	}
	if cmd.ProcessState == nil {
		h.t.Fatalf("tokenfare %s: %v", argsText(args), err)
	}
	r.code = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = maxRSSBytes(ru)
	}
	if r.code < 0 || strings.Contains(r.stderr, "fatal error: runtime: out of memory") || strings.Contains(r.stderr, "cannot allocate memory") {
		h.t.Fatalf("tokenfare %s: killed or out of memory (exit %d) under a cap of %d MiB:\n%.2000s", argsText(args), r.code, (2*h.maxRSS+64<<20)>>20, r.stderr)
	}
	if r.rss > h.maxRSS {
		h.t.Errorf("tokenfare %s: peak resident set %d MiB, bound %d MiB", argsText(args), r.rss>>20, h.maxRSS>>20)
	}
	h.t.Logf("tokenfare %s: exit %d, %v, peak %d MiB", argsText(args), r.code, r.wall.Round(time.Millisecond), r.rss>>20)
	return r
}

// runHead runs cmd with its stdout a pipe, keeps the first lines lines in
// out and closes the pipe's reading end, as `| head -n lines` does.
func runHead(cmd *exec.Cmd, out *bytes.Buffer, lines int) error {
	cmd.Stdout = nil
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	br := bufio.NewReader(pipe)
	for range lines {
		line, err := br.ReadString('\n')
		out.WriteString(line)
		if err != nil {
			break
		}
	}
	pipe.Close()
	return cmd.Wait()
}

// argsText shortens args for messages.
func argsText(args []string) string {
	s := strings.Join(args, " ")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

// want checks the exit code and that stdout and stderr hold each of the
// given substrings (stdout first, then stderr; "" skips).
func (r result) want(t *testing.T, code int, stdout, stderr string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d\nstdout: %.1500s\nstderr: %.1500s", r.code, code, r.stdout, r.stderr)
	}
	if stdout != "" && !strings.Contains(r.stdout, stdout) {
		t.Errorf("stdout lacks %q:\n%.2000s", stdout, r.stdout)
	}
	if stderr != "" && !strings.Contains(r.stderr, stderr) {
		t.Errorf("stderr lacks %q:\n%.2000s", stderr, r.stderr)
	}
}

// TestHostile runs every case of the corpus.
func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			t.Log("contract: " + c.contract)
			h := &harness{t: t, dir: t.TempDir(), maxRSS: c.maxRSS, timeout: c.timeout}
			if h.maxRSS == 0 {
				h.maxRSS = 256 << 20
			}
			if h.timeout == 0 {
				h.timeout = 60 * time.Second
			}
			c.run(t, h)
		})
	}
}

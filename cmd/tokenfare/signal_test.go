package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptedBinary sends SIGINT to the built binary while it waits
// for more calls on a pipe: it stops at once, writes nothing to stdout
// and exits 130.
func TestInterruptedBinary(t *testing.T) {
	bin := binary(t)
	data, err := os.ReadFile("../../testdata/sample/spendlogs-2026-10.csv")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "reconcile", "--calls", "-")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// More than format detection peeks at; the pipe then stays open.
	if _, err := in.Write(data[:200_000]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("tokenfare did not stop within 10s of SIGINT")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130\nstderr: %s", err, errb.String())
	}
	if out.Len() != 0 || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("stdout %q (want nothing), stderr %q (want \"interrupted\")", out.String(), errb.String())
	}
}

// TestClosedOutputPipe: a reader that stops reading (tokenfare price | head)
// ends the run quietly with exit 0, not killed by SIGPIPE (141), which a
// shell with pipefail would take for a failure.
func TestClosedOutputPipe(t *testing.T) {
	bin := binary(t)
	// The sample's 12,000 priced calls are far more than a pipe holds.
	cmd := exec.Command(bin, "price", "--calls", "../../testdata/sample/spendlogs-2026-10.csv", "-o", "json")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 100)
	if _, err := io.ReadFull(out, first); err != nil {
		t.Fatal(err)
	}
	out.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("exit %v (code %d), want 0\nstderr: %s", err, ee.ExitCode(), errb.String())
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errb.String(), "Error") {
		t.Errorf("stderr reports an error: %s", errb.String())
	}
}

package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinary builds the real binary and runs the README's main job and a
// few contract checks on the bundled sample.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "tokenfare")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sample := "../../testdata/sample/spendlogs-2026-10.csv"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{"README main job", []string{"reconcile", "--calls", sample}, 0, "explained"},
		{"tariffs show", []string{"tariffs", "show", "deepseek-flash", "--at", "2026-10-12T02:00:00Z"}, 0, "period peak"},
		{"validate the catalog folder", []string{"tariffs", "validate", "../../tariffs/catalog"}, 0, "ok: 4 file(s)"},
		{"findings exit 1", []string{"reconcile", "--calls", sample, "--fail-over", "1"}, 1, "official"},
		{"bad usage exits 2", []string{"reconcile", "--by", "nope", "--calls", sample}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			cmd := exec.Command(bin, tt.args...)
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("exit %d, want %d; stdout lacks %q?\nstdout: %.1500s\nstderr: %s", code, tt.code, tt.stdout, out.String(), errb.String())
			}
		})
	}
}

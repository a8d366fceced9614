//go:build unix

package platform

import (
	"os"
	"os/exec"
	"testing"
)

// TestProcessRuns probes this process, its parent, and one that ended.
func TestProcessRuns(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	tests := []struct {
		name string
		pid  int
		want bool
	}{
		{name: "this process", pid: os.Getpid(), want: true},
		{name: "its parent", pid: os.Getppid(), want: true},
		{name: "one that ended", pid: dead.Process.Pid, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ProcessRuns(tc.pid); got != tc.want {
				t.Errorf("ProcessRuns(%d) = %v, want %v", tc.pid, got, tc.want)
			}
		})
	}
}

// TestOpenFileLimit: a Unix process can tell its limit of open files,
// which is above the three it starts with.
func TestOpenFileLimit(t *testing.T) {
	if got := OpenFileLimit(); got <= 3 {
		t.Errorf("OpenFileLimit = %d, want the soft limit of open files", got)
	}
}

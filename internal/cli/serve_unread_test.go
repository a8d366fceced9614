package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeUnreadableEntries: a folder of calls holding a symbolic link
// in a loop, or a file that cannot be read, is counted for what can be
// read, and so is every source after it; the log names each entry not
// read.
func TestServeUnreadableEntries(t *testing.T) {
	data, err := os.ReadFile("../../testdata/sample/spendlogs-2026-10.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 12)
	head := lines[0] + "\n"
	tests := []struct {
		name   string
		make   func(t *testing.T, dir string) string // the entry that cannot be read
		asRoot bool                                  // the case holds when run as root
	}{
		{name: "a symbolic link in a loop", asRoot: true, make: func(t *testing.T, dir string) string {
			a, b := filepath.Join(dir, "loop-a.csv"), filepath.Join(dir, "loop-b.csv")
			if err := os.Symlink(b, a); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(a, b); err != nil {
				t.Fatal(err)
			}
			return a
		}},
		{name: "a file without read permission", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "locked.csv")
			if err := os.WriteFile(p, []byte(head+lines[9]+"\n"), 0o000); err != nil {
				t.Fatal(err)
			}
			return p
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.asRoot && os.Geteuid() == 0 {
				t.Skip("root reads a file without read permission")
			}
			dir := t.TempDir()
			folder := filepath.Join(dir, "exports")
			os.Mkdir(folder, 0o755)
			// Five rows in the folder, three in the file after it.
			writeCalls(t, filepath.Join(folder, "a.csv"), head+strings.Join(lines[1:6], "\n")+"\n")
			bad := tt.make(t, folder)
			after := filepath.Join(dir, "after.csv")
			writeCalls(t, after, head+strings.Join(lines[6:9], "\n")+"\n")
			_, _, log := serveOnce(t, "--calls", folder, "--calls", after, "--state", filepath.Join(dir, "state.db"))
			read := map[string]int64{}
			var warned bool
			for _, line := range strings.Split(log, "\n") {
				var l struct {
					Msg, Source, File string
					Read              int64
				}
				json.Unmarshal([]byte(line), &l)
				if l.Msg == "refreshed" {
					read[filepath.Base(l.Source)] = l.Read
				}
				warned = warned || (strings.HasPrefix(l.Msg, "calls not read") && l.File == bad)
			}
			if read["exports"] != 5 || read["after.csv"] != 3 {
				t.Errorf("read %v, want 5 from exports and 3 from after.csv:\n%s", read, log)
			}
			if !warned {
				t.Errorf("the log does not name %s:\n%s", bad, log)
			}
		})
	}
}

func writeCalls(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedStateRefused: reconcile --state and serve refuse a state
// file cut short, with exit 2 and the way back, rather than dying of
// SIGBUS.
func TestDamagedStateRefused(t *testing.T) {
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	path := filepath.Join(t.TempDir(), "state.db")
	if _, _, log := serveOnce(t, "--calls", sample, "--state", path); !strings.Contains(log, "refreshed") {
		t.Fatalf("no state made:\n%s", log)
	}
	if err := os.Truncate(path, 3*4096); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"reconcile", "--state", path},
		{"serve", "--once", "--calls", sample, "--state", path},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, "is damaged") || !strings.Contains(stderr, "mv "+path+" "+path+".damaged") {
			t.Errorf("%s: exit %d, want %d naming the way back:\n%s", args[0], code, exitUsage, stderr)
		}
	}
}

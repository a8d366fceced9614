package litellm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/reports/textdiff"
)

// TestMain doubles as the writer process the kill test kills: with
// TOKENFARE_TEST_WRITER set to a config path, it rewrites that config and
// pauses before the rename, after announcing itself in path.ready.
func TestMain(m *testing.M) {
	if path := os.Getenv("TOKENFARE_TEST_WRITER"); path != "" {
		old, err := os.ReadFile(path)
		if err != nil {
			os.Exit(3)
		}
		beforeRename = func() {
			os.WriteFile(path+".ready", nil, 0o644)
			time.Sleep(time.Minute)
		}
		WriteFile(path, old, []byte("model_list: []\n"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestWriteFileKilledMidway(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	orig, _ := os.ReadFile("testdata/blend/before.yaml")
	if err := os.WriteFile(path, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TOKENFARE_TEST_WRITER="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(path + ".ready"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the writer never reached the rename")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The new file is complete and synced in a temporary file: kill now.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, orig) {
		t.Errorf("config changed by a killed write:\n%s", textdiff.Unified("before", "after kill", orig, got))
	}
	temps, _ := filepath.Glob(filepath.Join(dir, ".config.yaml.tokenfare-*"))
	if len(temps) != 1 {
		t.Errorf("temporary files %v, want the killed write's one", temps)
	}
}

func TestWriteFileRefusesConcurrentChange(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	os.WriteFile(path, []byte("model_list: []\n"), 0o600)
	_, old, err := ReadFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	// Someone edits the file between our read and our write.
	edited := []byte("model_list: []  # edited by hand\n")
	os.WriteFile(path, edited, 0o600)
	err = WriteFile(path, old, []byte("model_list: [] # ours\n"))
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("WriteFile after a concurrent edit: %v, want ErrChanged", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, edited) {
		t.Errorf("the concurrent edit was overwritten: %q", got)
	}
	if temps, _ := filepath.Glob(filepath.Join(dir, ".config.yaml.tokenfare-*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	os.WriteFile(path, []byte("a: 1\n"), 0o640)
	os.Chmod(path, 0o640) // whatever the umask
	if err := WriteFile(path, []byte("a: 1\n"), []byte("a: 2\n")); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	if got, _ := os.ReadFile(path); string(got) != "a: 2\n" {
		t.Errorf("content %q", got)
	}
}

// TestWriteFileFollowsSymlink: a config kept as a link (into a checkout
// of the deployment repository, say) is written where the link points; the
// link stays a link.
func TestWriteFileFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "deploy", "config.yaml")
	os.Mkdir(filepath.Dir(target), 0o755)
	if err := os.WriteFile(target, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink("deploy/config.yaml", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("a: 1\n"), []byte("a: 2\n")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symbolic link (%v)", link, err)
	}
	if got, _ := os.ReadFile(target); string(got) != "a: 2\n" {
		t.Errorf("the link's target holds %q, want the new bytes", got)
	}
}

func TestParseErrorNamesLine(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"tab as indentation", "model_list:\n  - model_name: a\n    litellm_params:\n\tmodel: x\n", 4, "cannot start any token"},
		{"model_list not a list", "model_list:\n  a: 1\n", 2, "model_list is not a list"},
		{"entry not a mapping", "model_list:\n  - just-a-name\n", 2, "not a mapping"},
		{"empty", "", 0, "empty"},
		{"an anchor containing its own alias", "model_list:\n  - &e\n    model_name: a\n    litellm_params: {<<: *e}\n", 4, "refers to a node that contains it"},
		// PyYAML keeps the last of two equal keys: a price written at the first would not be charged.
		{"a price key given twice", "model_list:\n  - model_name: a\n    litellm_params:\n      input_cost_per_token: 3.0e-7\n      model: x\n      input_cost_per_token: 4.0e-7\n", 6, "key input_cost_per_token is given twice in one mapping (first on line 4)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("config.yaml", []byte(tc.src))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse: %v, want a *ParseError", err)
			}
			if pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("got line %d %q, want line %d containing %q", pe.Line, pe.Msg, tc.line, tc.msg)
			}
		})
	}
}

// TestConcurrentWritersOneWins races writers that all read the same bytes:
// in every round exactly one replaces the file, every other is refused
// with ErrChanged, and the file holds the winner's bytes.
func TestConcurrentWritersOneWins(t *testing.T) {
	const writers, rounds = 16, 30
	path := filepath.Join(t.TempDir(), "config.yaml")
	for round := range rounds {
		orig := []byte(fmt.Sprintf("model_list: [] # round %d\n", round))
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		start := make(chan struct{})
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = WriteFile(path, orig, []byte(fmt.Sprintf("model_list: [] # round %d, writer %d\n", round, i)))
			}()
		}
		close(start)
		wg.Wait()
		var won []int
		for i, err := range errs {
			switch {
			case err == nil:
				won = append(won, i)
			case !errors.Is(err, ErrChanged):
				t.Fatalf("round %d, writer %d: %v", round, i, err)
			}
		}
		if len(won) != 1 {
			t.Fatalf("round %d: writers %v all reported success; one update would be lost", round, won)
		}
		got, _ := os.ReadFile(path)
		if want := fmt.Sprintf("model_list: [] # round %d, writer %d\n", round, won[0]); string(got) != want {
			t.Fatalf("round %d: the file holds %q, want the winner's %q", round, got, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tokenfare*")); len(left) > 0 {
		t.Errorf("files left beside the config: %v", left)
	}
}

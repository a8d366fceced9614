package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// binDir holds the binary the tests build once.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds tokenfare once and returns its path.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if binDir == "" {
		dir, err := os.MkdirTemp("", "tokenfare-bin")
		if err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "tokenfare"), ".").CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			t.Fatalf("go build: %v\n%s", err, out)
		}
		binDir = dir
	}
	return filepath.Join(binDir, "tokenfare")
}

// runBinary runs cmd and returns its exit code, stdout and stderr.
func runBinary(t *testing.T, cmd *exec.Cmd) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestBinary builds the real binary and runs the README's main job and a
// few contract checks on the bundled sample.
func TestBinary(t *testing.T) {
	bin := binary(t)
	sample := "../../testdata/sample/spendlogs-2026-10.csv"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring expected on stdout; "" when only the exit code matters
	}{
		{"README main job", []string{"reconcile", "--calls", sample}, 0, "explained"},
		{"tariffs show", []string{"tariffs", "show", "deepseek-flash", "--at", "2026-10-12T02:00:00Z"}, 0, "period peak"},
		{"validate the catalog folder", []string{"tariffs", "validate", "../../tariffs/catalog"}, 0, "ok: 12 file(s)"},
		{"findings exit 1", []string{"reconcile", "--calls", sample, "--fail-over", "1"}, 1, "official"},
		{"bad usage exits 2", []string{"reconcile", "--by", "nope", "--calls", sample}, 2, ""},
		{"--version", []string{"--version"}, 0, "tokenfare "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runBinary(t, exec.Command(bin, tt.args...))
			if code != tt.code || !strings.Contains(out, tt.stdout) {
				t.Errorf("exit %d, want %d; stdout lacks %q?\nstdout: %.1500s\nstderr: %s", code, tt.code, tt.stdout, out, errs)
			}
		})
	}
}

// zoneProbe is a program without the embedded zone database: it fails
// where the system's database cannot be found.
const zoneProbe = `package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	if _, err := time.LoadLocation("Asia/Shanghai"); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}
`

// systemZoneDirs are where Go looks for the zone database on Unix systems
// after $ZONEINFO and before the embedded copy. After the embedded copy it
// tries $GOROOT/lib/time/zoneinfo.zip: the hidden runs point GOROOT at an
// empty folder.
var systemZoneDirs = []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ", "/etc/zoneinfo"}

// TestEmbeddedZoneDatabase runs the binary where no zone database can be
// found: $ZONEINFO names an empty folder, and (where a private mount
// namespace is allowed) the system's zone folders are hidden behind empty
// ones and $GOROOT names an empty folder. A probe built without the embedded database must fail there, which
// proves the binary's success comes from its own copy.
func TestEmbeddedZoneDatabase(t *testing.T) {
	bin := binary(t)
	empty := t.TempDir()
	show := []string{"tariffs", "show", "deepseek-flash", "--at", "2026-10-12T02:00:00Z"}
	env := append(os.Environ(), "ZONEINFO="+empty)

	cmd := exec.Command(bin, show...)
	cmd.Env = env
	if code, out, errs := runBinary(t, cmd); code != 0 || !strings.Contains(out, "zone Asia/Shanghai") {
		t.Fatalf("with ZONEINFO=%s: exit %d\nstdout: %.800s\nstderr: %s", empty, code, out, errs)
	}

	// Hide the system's folders in a private mount namespace.
	var mounts []string
	for _, d := range systemZoneDirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			mounts = append(mounts, fmt.Sprintf("mount --bind %q %q", empty, d))
		}
	}
	hidden := func(name string, args ...string) *exec.Cmd {
		script := strings.Join(append(mounts, `exec "$@"`), " && ")
		c := exec.Command("unshare", append([]string{"--map-root-user", "--mount", "sh", "-c", script, "sh", name}, args...)...)
		c.Env = append(env, "GOROOT="+empty)
		return c
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("only $ZONEINFO was emptied: unshare is not installed, so the system's zone folders stay visible")
	}
	if out, err := hidden("true").CombinedOutput(); err != nil {
		t.Skipf("only $ZONEINFO was emptied: a private mount namespace is not allowed here (%v: %s)", err, out)
	}

	probeDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(probeDir, "probe.go"), []byte(zoneProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", "probe", "probe.go")
	build.Dir = probeDir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the probe: %v\n%s", err, out)
	}
	if code, out, _ := runBinary(t, hidden(filepath.Join(probeDir, "probe"))); code == 0 {
		t.Fatalf("a program without the embedded database still finds Asia/Shanghai: the system's database is not hidden (%s)", out)
	}
	code, out, errs := runBinary(t, hidden(bin, show...))
	if code != 0 || !strings.Contains(out, "period peak") {
		t.Fatalf("without any zone database on the system: exit %d\nstdout: %.800s\nstderr: %s", code, out, errs)
	}
}

// TestBinaryWriteAndCheck runs the CI loop with the built binary: the
// check fails on hand-set prices, the blend writes the config, and the
// check then passes.
func TestBinaryWriteAndCheck(t *testing.T) {
	bin := binary(t)
	sample := "../../testdata/sample/spendlogs-2026-10.csv"
	data, err := os.ReadFile("../../internal/cli/testdata/configs/litellm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, data, 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		// 3.0e-7 is deepseek-flash's peak input price: within bounds, but
		// flash-legacy carries none, and deepseek-flash is time-of-use.
		{"check before", []string{"check", "--config", config, "--at", "2026-10-29"}, 1, "no-custom-price: flash-legacy"},
		{"stale", []string{"blend", "--calls", sample, "--as-of", "2026-10-29", "--write", config, "--check"}, 1, "off by"},
		{"write", []string{"blend", "--calls", sample, "--as-of", "2026-10-29", "--write", config}, 0, "flash-legacy"},
		{"check after", []string{"check", "--config", config, "--at", "2026-10-29", "-o", "json"}, 0, `"problems": 0`},
		{"up to date", []string{"blend", "--calls", sample, "--as-of", "2026-10-29", "--write", config, "--check"}, 0, "matches the blend"},
	}
	for _, s := range steps {
		code, out, errs := runBinary(t, exec.Command(bin, s.args...))
		if code != s.code || !strings.Contains(out, s.stdout) {
			t.Fatalf("%s: exit %d, want %d; stdout lacks %q?\nstdout: %.1500s\nstderr: %s", s.name, code, s.code, s.stdout, out, errs)
		}
	}
}

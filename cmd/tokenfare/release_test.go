package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// releaseLDFlags returns the -ldflags of .goreleaser.yaml's build of this
// command, its template fields filled from fields.
func releaseLDFlags(t *testing.T, fields map[string]string) string {
	t.Helper()
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		Builds []struct {
			Main    string   `yaml:"main"`
			LDFlags []string `yaml:"ldflags"`
		} `yaml:"builds"`
	}
	if err := yaml.Unmarshal(data, &conf); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	field := regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)
	for _, b := range conf.Builds {
		if b.Main != "./cmd/tokenfare" {
			continue
		}
		flags := field.ReplaceAllStringFunc(strings.Join(b.LDFlags, " "), func(m string) string {
			name := field.FindStringSubmatch(m)[1]
			v, ok := fields[name]
			if !ok {
				t.Fatalf(".goreleaser.yaml: ldflags use {{.%s}}, which this test does not fill", name)
			}
			return v
		})
		if strings.Contains(flags, "{{") {
			t.Fatalf(".goreleaser.yaml: ldflags keep a template this test cannot fill: %s", flags)
		}
		return flags
	}
	t.Fatal(".goreleaser.yaml: no build of ./cmd/tokenfare")
	return ""
}

// TestReleaseStamp builds the binary with the release configuration's
// -ldflags and checks that `tokenfare version` and --version print the
// version, commit and date stamped in.
func TestReleaseStamp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const (
		commit = "0123456789abcdef0123456789abcdef01234567"
		date   = "2026-11-30T12:00:00Z"
	)
	flags := releaseLDFlags(t, map[string]string{"Version": "1.2.3", "FullCommit": commit, "CommitDate": date})
	bin := filepath.Join(t.TempDir(), "tokenfare")
	build := exec.Command("go", "build", "-buildvcs=false", "-ldflags", flags, "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -ldflags %q: %v\n%s", flags, err, out)
	}
	want := "tokenfare v1.2.3, commit " + commit + ", " + date + ", built with " + runtime.Version() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errs := runBinary(t, exec.Command(bin, args...))
		if code != 0 || out != want {
			t.Errorf("tokenfare %s: exit %d\nstdout: %q\nwant:   %q\nstderr: %s", args[0], code, out, want, errs)
		}
	}
}

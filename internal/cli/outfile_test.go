//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputFilesReplacedInPlace writes each output file over an existing
// one, kept private and reached through a symbolic link: the file the link
// names gets the new bytes and keeps its mode, the link stays, and no
// temporary file is left.
func TestOutputFilesReplacedInPlace(t *testing.T) {
	tests := []struct {
		name string
		args func(out string) []string
		want string // the new file starts with it
	}{
		{"price --out", func(out string) []string {
			return []string{"price", "--calls", sample, "--since", "2026-10-12T02:00:00Z", "--until", "2026-10-12T03:00:00Z", "--out", out}
		}, "request_id,"},
		{"report --focus", func(out string) []string {
			return []string{"report", "--calls", sample, "--month", "2026-10", "--focus", out}
		}, "BilledCost,"},
		{"report --xlsx", func(out string) []string {
			return []string{"report", "--calls", sample, "--month", "2026-10", "--xlsx", out}
		}, "PK"},
		{"tariffs export --out", func(out string) []string {
			return []string{"tariffs", "export", "--focus-sku-price", "--out", out}
		}, "ChargeCategory,"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			real := filepath.Join(dir, "shared", "out")
			if err := os.Mkdir(filepath.Dir(real), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "out")
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runCLI(t, "", tt.args(link)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s is no longer a link (%v)", link, err)
			}
			got, err := os.ReadFile(real)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(got), tt.want) {
				t.Errorf("the file the link names starts %.20q, want %q", got, tt.want)
			}
			st, err := os.Stat(real)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the old file's 0600", st.Mode().Perm())
			}
			for _, d := range []string{dir, filepath.Dir(real)} {
				if left, _ := filepath.Glob(filepath.Join(d, ".*.tmp")); len(left) > 0 {
					t.Errorf("temporary files left: %v", left)
				}
			}
		})
	}
}

package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStrayNULCostsARow gives reconcile the sample with one NUL byte at
// byte 718 of the file, inside the key alias of its first row (line 2,
// byte 359 of the row): that row is rejected with its file:line, the
// other 11,999 are read, and --strict stops at it.
func TestStrayNULCostsARow(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	data[718] = 0
	path := filepath.Join(t.TempDir(), "spend.csv")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rows, errs := reconcileRows(t, "--calls", path)
	if rows.Read != 12000 || rows.Rejected != 1 {
		t.Errorf("rows %+v: want 12000 read, 1 rejected", rows)
	}
	checkContains(t, "stderr", errs, path+":2: a NUL byte at byte 359 of the row")
	code, _, errs := runCLI(t, "", "reconcile", "--calls", path, "--strict")
	if code != exitUsage {
		t.Errorf("--strict: exit %d, want %d: %s", code, exitUsage, errs)
	}
	checkContains(t, "stderr", errs, path+":2")
}

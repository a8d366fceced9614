//go:build unix

package cli

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestServeHUP: SIGHUP reads the tariffs again at once, long before the
// next refresh is due, and the metrics are re-priced from the state.
func TestServeHUP(t *testing.T) {
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	tdir, deepseek := tariffCopy(t)
	before := reconciledOfficial(t, sample, tdir)
	riseDir, _ := tariffCopy(t)
	writeTariff(t, filepath.Join(riseDir, "deepseek.yaml"), proRise(t, deepseek))
	after := reconciledOfficial(t, sample, riseDir)

	addr, stderr, stop := startServe(t, "--calls", sample, "--tariffs", tdir, "--state", filepath.Join(t.TempDir(), "state.db"), "--interval", "1h")
	defer stop()
	waitFor(t, "official cost at the first tariffs", stderr, func() bool { return scrapedOfficial(t, addr) == before })
	writeTariff(t, filepath.Join(tdir, "deepseek.yaml"), proRise(t, deepseek))
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "official cost re-priced after SIGHUP", stderr, func() bool { return scrapedOfficial(t, addr) == after })
	if !strings.Contains(stderr.String(), `"why":"SIGHUP"`) {
		t.Errorf("the reload does not say SIGHUP:\n%s", stderr.String())
	}
}

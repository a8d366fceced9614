package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// tariffCopy copies the embedded catalog's files into a folder for
// --tariffs, and returns the folder and deepseek.yaml's text.
func tariffCopy(t *testing.T) (dir, deepseek string) {
	t.Helper()
	dir = t.TempDir()
	files, err := filepath.Glob("../../tariffs/catalog/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("catalog files: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeTariff(t, filepath.Join(dir, filepath.Base(f)), string(data))
		if filepath.Base(f) == "deepseek.yaml" {
			deepseek = string(data)
		}
	}
	return dir, deepseek
}

// writeTariff writes a tariff file with a modification time unlike the
// last one's, so that a change is seen whatever the file system's clock
// step.
func writeTariff(t *testing.T, path, text string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if st, err := os.Stat(path); err == nil {
		old = st.ModTime()
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, old.Add(time.Second), old.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
}

// proRise is deepseek.yaml with a version taking effect mid-October that
// makes deepseek-v4-pro 21 % dearer, off-peak and peak.
func proRise(t *testing.T, s string) string {
	t.Helper()
	i := strings.Index(s, "  - effective: 2026-09-10T04:00:00Z")
	j := strings.Index(s, "  # 12. ")
	if i < 0 || j < i {
		t.Fatal("deepseek.yaml: versions 11 and 12 moved; update the test")
	}
	v := strings.NewReplacer("effective: 2026-09-10T04:00:00Z", "effective: 2026-10-15T16:00:00Z",
		"name: 2026-09-10-deepseek-flash", "name: 2026-10-16-pro-rise",
		"offpeak: {input: 0.66, cache_read: 0.022, cache_write: 0.66, output: 1.98}", "offpeak: {input: 0.7986, cache_read: 0.02662, cache_write: 0.7986, output: 2.3958}",
		"peak:    {input: 1.32, cache_read: 0.044, cache_write: 1.32, output: 3.96}", "peak:    {input: 1.5972, cache_read: 0.05324, cache_write: 1.5972, output: 4.7916}",
	).Replace(s[i:j])
	return s[:j] + v + s[j:]
}

// reconciledOfficial is reconcile's official cost of calls at the tariffs
// in dir, to 9 decimal places.
func reconciledOfficial(t *testing.T, calls, dir string) string {
	t.Helper()
	code, out, errs := runCLI(t, "", "reconcile", "--calls", calls, "--tariffs", dir, "-o", "json")
	if code != exitOK {
		t.Fatalf("reconcile: exit %d: %s", code, errs)
	}
	var r struct{ Totals struct{ Official string } }
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return decimal.RequireFromString(r.Totals.Official).Round(9).String()
}

// scrapedOfficial sums serve's tokenfare_official_cost series in USD, as
// exposed, to 9 decimal places ("" when none).
func scrapedOfficial(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	sum, n := decimal.Zero, 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "tokenfare_official_cost{") || !strings.Contains(line, `currency="USD"`) {
			continue
		}
		v, err := decimal.NewFromString(line[strings.LastIndexByte(line, ' ')+1:])
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		sum, n = sum.Add(v), n+1
	}
	if n == 0 {
		return ""
	}
	return sum.Round(9).String()
}

// waitFor polls until cond holds, for up to 20 seconds.
func waitFor(t *testing.T, what string, stderr *syncBuffer, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s\nserve:\n%s", what, stderr.String())
		}
	}
}

// TestServeReload: serve reads its tariff files again when they change
// (checked at each refresh): an invalid catalog is refused with its file
// and line logged, the one in use kept (the metrics as they were); a new
// tariff version re-prices the state, and the official cost becomes
// reconcile's at the new tariffs for the same rows.
func TestServeReload(t *testing.T) {
	if testing.Short() {
		t.Skip("a daemon re-priced after waits of seconds: make test-long runs it")
	}
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	tdir, deepseek := tariffCopy(t)
	before := reconciledOfficial(t, sample, tdir)
	riseDir, _ := tariffCopy(t)
	writeTariff(t, filepath.Join(riseDir, "deepseek.yaml"), proRise(t, deepseek))
	after := reconciledOfficial(t, sample, riseDir)
	if before == after {
		t.Fatalf("the test's data: the rise changes nothing (%s)", before)
	}

	addr, stderr, stop := startServe(t, "--calls", sample, "--tariffs", tdir, "--state", filepath.Join(t.TempDir(), "state.db"))
	defer stop()
	waitFor(t, "official cost at the first tariffs", stderr, func() bool { return scrapedOfficial(t, addr) == before })

	// An unknown key on the line before "provider: deepseek".
	bad := strings.Replace(deepseek, "\nprovider: deepseek\n", "\nbogus: 1\nprovider: deepseek\n", 1)
	line := strings.Count(bad[:strings.Index(bad, "\nbogus: 1")+1], "\n") + 1
	writeTariff(t, filepath.Join(tdir, "deepseek.yaml"), bad)
	where := fmt.Sprintf("deepseek.yaml:%d: unknown key", line)
	waitFor(t, "the invalid catalog refused", stderr, func() bool {
		return strings.Contains(stderr.String(), "tariffs not reloaded") && strings.Contains(stderr.String(), where)
	})
	time.Sleep(1500 * time.Millisecond) // a refresh after the refusal
	if got := scrapedOfficial(t, addr); got != before {
		t.Errorf("after an invalid catalog: official %s, want %s (the catalog in use kept)", got, before)
	}

	writeTariff(t, filepath.Join(tdir, "deepseek.yaml"), proRise(t, deepseek))
	waitFor(t, "official cost re-priced at the rise", stderr, func() bool { return scrapedOfficial(t, addr) == after })
	if !strings.Contains(stderr.String(), `"msg":"tariffs reloaded"`) {
		t.Errorf("no reload logged:\n%s", stderr.String())
	}
}

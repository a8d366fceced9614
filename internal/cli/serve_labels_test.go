package cli

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// latin1Calls writes three rows of the sample month whose key alias,
// team and model are saved in Latin-1 (é as the byte 0xe9, â as 0xe2),
// and returns the file's path.
func latin1Calls(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("../../testdata/sample/spendlogs-2026-10.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 5)[:4]
	lines[1] = strings.Replace(lines[1], "support-bots-chat-widget-prod-07", "caf\xe9-prod", 1)
	lines[2] = strings.Replace(lines[2], ",search,", ",r\xe9seau,", 1)
	lines[3] = strings.ReplaceAll(lines[3], "deepseek-v4-pro", "deepseek-pr\xe2")
	path := filepath.Join(dir, "latin1.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeLatin1Labels: names that are not valid UTF-8 are served with
// their invalid bytes written as \xNN (the exposition escapes the
// backslash again), every scrape answers 200, and the log says so once.
func TestServeLatin1Labels(t *testing.T) {
	dir := t.TempDir()
	addr, stderr, stop := startServe(t, "--calls", latin1Calls(t, dir), "--state", filepath.Join(dir, "state.db"))
	defer stop()
	var body string
	for range 3 {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/metrics: HTTP %d:\n%.2000s", resp.StatusCode, b)
		}
		body = string(b)
	}
	for _, want := range []string{`key="caf\\xe9-prod"`, `team="r\\xe9seau"`, `model="deepseek-pr\\xe2"`,
		`tokenfare_calls_total{outcome="priced"} 2`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
	if n := strings.Count(stderr.String(), "not valid UTF-8"); n != 1 {
		t.Errorf("the log tells of invalid UTF-8 %d times, want once:\n%s", n, stderr.String())
	}
}

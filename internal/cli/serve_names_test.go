package cli

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tokenfare/tokenfare/internal/metrics"
)

// TestServeMetricNames: every metric serve's /metrics exposes (with
// --budgets and --config, on a day whose cost the same weekdays before
// give a baseline: every metric the collector describes) is charted by
// the shipped Grafana dashboard and listed, with its type, in
// docs/serve.md's table of metrics; and every metric the dashboard, the
// shipped alert rules and that table name is one /metrics exposes.
func TestServeMetricNames(t *testing.T) {
	dir := t.TempDir()
	config, budgets := filepath.Join(dir, "config.yaml"), filepath.Join(dir, "budgets.yaml")
	os.WriteFile(config, []byte(driftConfig), 0o644)
	os.WriteFile(budgets, []byte("budgets:\n  - team: search\n    monthly: 1500\n  - tag: project-atlas\n    monthly: 80\n"), 0o644)
	now := time.Date(2026, 10, 29, 18, 0, 0, 0, time.UTC)
	addr, stderr, stop := startServeAt(t, func() time.Time { return now },
		"--calls", sample, "--state", filepath.Join(dir, "state.db"), "--config", config, "--budgets", budgets)
	exposed := exposedTypes(t, addr)
	if code := stop(); code != 0 {
		t.Fatalf("serve: exit %d\n%s", code, stderr.String())
	}

	described := map[string]bool{}
	ch := make(chan *prometheus.Desc, 32)
	metrics.New(metrics.Options{}).Describe(ch)
	close(ch)
	fq := regexp.MustCompile(`fqName: "(\w+)"`)
	for d := range ch {
		if m := fq.FindStringSubmatch(d.String()); m != nil {
			described[m[1]] = true
		}
	}
	for name := range described {
		if exposed[name] == "" {
			t.Errorf("%s is described but not exposed: the test's serve does not exercise it", name)
		}
	}

	charted := namesIn(dashboardQueries(t))
	rules := namesIn(readFile(t, "../../docs/examples/prometheus-rules.yaml"))
	table := metricTable(t)
	for name, typ := range exposed {
		if !described[name] {
			t.Errorf("%s is exposed but not described", name)
		}
		if !charted[name] {
			t.Errorf("%s: no panel of docs/examples/grafana-dashboard.json charts it", name)
		}
		if got, ok := table[name]; !ok || got != typ {
			t.Errorf("%s: docs/serve.md's table says type %q (listed %v), /metrics %q", name, got, ok, typ)
		}
	}
	for what, names := range map[string]map[string]bool{"the dashboard": charted, "the alert rules": rules, "docs/serve.md's table": boolSet(table)} {
		for name := range names {
			if exposed[name] == "" {
				t.Errorf("%s names %s, which /metrics does not expose", what, name)
			}
		}
	}
}

// exposedTypes returns the metrics /metrics at addr exposes, by name, as
// their types (# TYPE lines).
func exposedTypes(t *testing.T, addr string) map[string]string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" && strings.HasPrefix(f[2], "tokenfare_") {
			out[f[2]] = f[3]
		}
	}
	return out
}

// dashboardQueries returns the PromQL of every panel of the shipped
// dashboard, one per line.
func dashboardQueries(t *testing.T) string {
	t.Helper()
	var dash struct {
		Panels []struct{ Targets []struct{ Expr string } }
	}
	if err := json.Unmarshal([]byte(readFile(t, "../../docs/examples/grafana-dashboard.json")), &dash); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range dash.Panels {
		for _, q := range p.Targets {
			b.WriteString(q.Expr + "\n")
		}
	}
	return b.String()
}

var metricName = regexp.MustCompile(`tokenfare_\w+`)

// namesIn returns the metric names text holds.
func namesIn(text string) map[string]bool {
	out := map[string]bool{}
	for _, m := range metricName.FindAllString(text, -1) {
		out[m] = true
	}
	return out
}

// metricTable returns the metrics docs/serve.md's table lists, by name,
// as the type its second column gives.
func metricTable(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(readFile(t, "../../docs/serve.md"), "\n") {
		cols := strings.Split(line, "|")
		if len(cols) < 4 || !strings.HasPrefix(strings.TrimSpace(cols[1]), "`tokenfare_") {
			continue
		}
		for name := range namesIn(cols[1]) {
			out[name] = strings.TrimSpace(cols[2])
		}
	}
	if len(out) == 0 {
		t.Fatal("docs/serve.md: no table of metrics found")
	}
	return out
}

func boolSet(m map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

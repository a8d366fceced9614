package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestGrafanaDashboard: the shipped dashboard is JSON with panels, and
// every metric its queries and the shipped rules name is one the
// collector exports.
func TestGrafanaDashboard(t *testing.T) {
	known := map[string]bool{}
	ch := make(chan *prometheus.Desc, 16)
	New(Options{}).Describe(ch)
	close(ch)
	name := regexp.MustCompile(`fqName: "(\w+)"`)
	for d := range ch {
		if m := name.FindStringSubmatch(d.String()); m != nil {
			known[m[1]] = true
		}
	}
	data, err := os.ReadFile("../../docs/examples/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	if dash.Title == "" || len(dash.Panels) < 6 {
		t.Fatalf("dashboard %q has %d panels", dash.Title, len(dash.Panels))
	}
	rules, err := os.ReadFile("../../docs/examples/prometheus-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{string(rules)}
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			texts = append(texts, q.Expr)
		}
	}
	used := regexp.MustCompile(`tokenfare_\w+`)
	for _, m := range used.FindAllString(strings.Join(texts, "\n"), -1) {
		if !known[m] {
			t.Errorf("%s is no metric of serve", m)
		}
	}
	if len(known) < 7 {
		t.Errorf("%d metrics described: %v", len(known), known)
	}
}

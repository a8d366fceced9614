package metrics

import (
	"os/exec"
	"testing"
)

// TestPrometheusRules: promtool accepts the shipped rules, and its unit
// test of them (testdata/rules_test.yaml) passes: the gap rule fires once
// the gap is past 5 % for 15 minutes, the stale-source rule after an hour
// without a new row, neither before.
func TestPrometheusRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian: apt-get install prometheus)")
	}
	for _, args := range [][]string{
		{"check", "rules", "../../docs/examples/prometheus-rules.yaml"},
		{"test", "rules", "testdata/rules_test.yaml"},
	} {
		if out, err := exec.Command(promtool, args...).CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}

package metrics

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tokenfare/tokenfare/internal/run"
	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestUnpricedSeries: the state's calls without a price are a series each
// by model, host and cause, with their calls and recorded spend, as
// reconcile's unpriced list has them (internal/cli
// TestReconcileUnpricedCauses reads the same files).
func TestUnpricedSeries(t *testing.T) {
	cat, ps := tariffs.Load("../cli/testdata/unpriced/tariffs")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	s, err := state.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const calls = "../cli/testdata/unpriced/calls.jsonl"
	feed := state.Feed{Name: calls, Open: func(time.Time, *ledger.Known) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(calls, ledger.Options{})}, nil
	}}
	if _, err := run.Refresh(context.Background(), s, cat, pricing.Options{}, []state.Feed{feed}, false); err != nil {
		t.Fatal(err)
	}
	c := New(Options{})
	if err := c.Update(s, cat, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), nil); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range fams {
		if f.GetName() != "tokenfare_unpriced_calls" && f.GetName() != "tokenfare_unpriced_recorded_spend" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			got[fmt.Sprintf("%s %s@%s %s", f.GetName()[len("tokenfare_unpriced_"):], l["model"], l["host"], l["cause"])] = fmt.Sprint(m.GetGauge().GetValue())
		}
	}
	want := map[string]string{
		"calls mystery-9@ not_in_catalog":          "2",
		"recorded_spend mystery-9@ not_in_catalog": "0.15",
		"calls acme-1@azure not_on_host":           "1",
		"recorded_spend acme-1@azure not_on_host":  "0.3",
		"calls acme-1@openrouter not_on_host":      "1",
		"calls beta-2@ not_on_host":                "1",
		"recorded_spend beta-2@ not_on_host":       "0.6",
		"calls acme-new@ not_yet_priced":           "1",
		"recorded_spend acme-old@ retired":         "0.4",
		"calls acme-old@ retired":                  "1",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %q, want %s", k, got[k], w)
		}
	}
	if len(got) != 12 {
		t.Errorf("%d unpriced series, want 12 (6 each): %v", len(got), got)
	}
}

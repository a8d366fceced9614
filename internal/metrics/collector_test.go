package metrics

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/state"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestCollectorTopKeys: past --top-keys, key aliases are "other", and no
// money is lost folding them: the official cost over the series is the
// same whatever the number of keys named.
func TestCollectorTopKeys(t *testing.T) {
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	s, err := state.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	feed := state.Feed{Name: sample, Open: func(time.Time) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(sample, ledger.Options{})}, nil
	}}
	if _, err := s.Refresh(context.Background(), cat, pricing.Options{}, []state.Feed{feed}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var totals []float64
	for _, tt := range []struct {
		name string
		top  int
		keys int // distinct key label values, other included
	}{
		{name: "three keys and other", top: 3, keys: 4},
		{name: "one key and other", top: 1, keys: 2},
		{name: "every key", top: 1000, keys: -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{TopKeys: tt.top})
			if err := c.Update(s, cat, now); err != nil {
				t.Fatal(err)
			}
			reg := prometheus.NewRegistry()
			reg.MustRegister(c)
			fams, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string]bool{}
			total := 0.0
			for _, f := range fams {
				if f.GetName() != "tokenfare_official_cost" {
					continue
				}
				for _, m := range f.GetMetric() {
					for _, l := range m.GetLabel() {
						if l.GetName() == "key" {
							keys[l.GetValue()] = true
						}
					}
					total += m.GetGauge().GetValue()
				}
			}
			if tt.keys > 0 && len(keys) != tt.keys {
				t.Errorf("%d key values, want %d: %v", len(keys), tt.keys, keys)
			}
			if tt.keys < 0 && keys[Other] {
				t.Errorf("every key named, yet %q appears", Other)
			}
			totals = append(totals, total)
		})
	}
	for i := 1; i < len(totals); i++ {
		if d := totals[i] - totals[0]; d > 1e-9 || d < -1e-9 {
			t.Errorf("official over the series: %v, with another --top-keys %v", totals[0], totals[i])
		}
	}
	if totals[0] < 57 || totals[0] > 59 {
		t.Errorf("official over the series %v, want the sample's 57.98...", totals[0])
	}
}

// TestConfigDrift: a configured price is reported off the blend of the
// state's last 28 days by (configured - blend) / blend; a price the
// config does not set has no series.
func TestConfigDrift(t *testing.T) {
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	dir := t.TempDir()
	s, err := state.Open(filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	feed := state.Feed{Name: sample, Open: func(time.Time) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(sample, ledger.Options{})}, nil
	}}
	if _, err := s.Refresh(context.Background(), cat, pricing.Options{}, []state.Feed{feed}); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "config.yaml")
	os.WriteFile(config, []byte("model_list:\n  - model_name: pro\n    litellm_params:\n      model: deepseek/deepseek-v4-pro\n      input_cost_per_token: 1.0e-6\n"), 0o644)
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	got, err := configDrift(context.Background(), config, s, cat, now)
	if err != nil {
		t.Fatal(err)
	}
	prices, err := s.Blend(cat, now.Add(-BlendWindow), now, now)
	if err != nil {
		t.Fatal(err)
	}
	blend := prices[cat.Model("deepseek-v4-pro")].Price(tariffs.Input)
	want := decimal.NewFromInt(1).Sub(blend).Div(blend)
	if off, ok := got[configLabels{"pro", "litellm_params.input_cost_per_token"}]; !ok || !off.Equal(want) || len(got) != 1 {
		t.Errorf("drift %v, want input off by %s (blend %s per 1M) only", got, want, blend)
	}
}

// TestBudgetLines: a team's and a key's budget against the month so far,
// the forecast at the month's pace, worked by hand; a tag budget is left
// out (the state keeps no tags).
func TestBudgetLines(t *testing.T) {
	plan, err := pricing.ParseBudgets("budgets.yaml", []byte("currency: USD\nbudgets:\n  - team: search\n    monthly: \"100\"\n  - key: bot-1\n    monthly: \"10\"\n  - tag: campaign\n    monthly: \"5\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := &budgetMonth{team: map[string]decimal.Decimal{}, key: map[string]decimal.Decimal{}}
	m.add("search", "bot-1", decimal.RequireFromString("12.5"))
	m.add("search", "bot-2", decimal.RequireFromString("2.5"))
	// 2026-11-10T12:00Z: 9.5 of November's 30 days gone.
	lines := budgetLines(plan, m, time.Date(2026, 11, 10, 12, 0, 0, 0, time.UTC))
	want := []struct{ kind, name, spent, remaining, projected string }{
		{"team", "search", "15", "85", "47.368421"},   // 15 × 30 / 9.5 = 47.3684210…
		{"key", "bot-1", "12.5", "-2.5", "39.473684"}, // 12.5 × 30 / 9.5 = 39.4736842…
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(lines), len(want), lines)
	}
	for i, w := range want {
		l := lines[i]
		if l.kind != w.kind || l.name != w.name || !l.spent.Equal(decimal.RequireFromString(w.spent)) ||
			!l.remaining.Equal(decimal.RequireFromString(w.remaining)) || !l.projected.Equal(decimal.RequireFromString(w.projected)) {
			t.Errorf("line %d: %s %s spent %s remaining %s projected %s; want %+v", i, l.kind, l.name, l.spent, l.remaining, l.projected, w)
		}
	}
}

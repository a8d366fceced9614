package metrics

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/budgets"
	"github.com/tokenfare/tokenfare/internal/run"
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
	feed := state.Feed{Name: sample, Open: func(time.Time, *ledger.Known) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(sample, ledger.Options{})}, nil
	}}
	if _, err := run.Refresh(context.Background(), s, cat, pricing.Options{}, []state.Feed{feed}, false); err != nil {
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
			if err := c.Update(s, cat, now, nil); err != nil {
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
	cat, s, dir := sampleState(t, pricing.Options{})
	config := &GatewayConfig{File: filepath.Join(dir, "config.yaml"),
		Data: []byte("model_list:\n  - model_name: pro\n    litellm_params:\n      model: deepseek/deepseek-v4-pro\n      input_cost_per_token: 1.0e-6\n")}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	got, err := configDrift(config, stateBlend(s, nil), cat, now)
	if err != nil {
		t.Fatal(err)
	}
	prices, err := run.StateBlend(s, cat, now.Add(-BlendWindow), now, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	blend := prices[cat.Model("deepseek-v4-pro")].Price(tariffs.Input)
	want := decimal.NewFromInt(1).Sub(blend).Div(blend)
	if off, ok := got[configLabels{"pro", "litellm_params.input_cost_per_token"}]; !ok || !off.Equal(want) || len(got) != 1 {
		t.Errorf("drift %v, want input off by %s (blend %s per 1M) only", got, want, blend)
	}
}

// TestBudgetLines: a team's, a key's (by alias and by hash) and a tag's
// budget against the month so far, the forecast at the month's pace,
// worked by hand. A tag's spend is its share of each set of tags it is
// in, split evenly to 12 decimals, the set's first tag taking what is
// left, as the workbook splits it.
func TestBudgetLines(t *testing.T) {
	plan, err := budgets.Parse("budgets.yaml", []byte("currency: USD\nbudgets:\n  - team: search\n    monthly: \"100\"\n  - key: bot-1\n    monthly: \"10\"\n"+
		"  - tag: campaign\n    monthly: \"5\"\n  - key: h3\n    monthly: \"2\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := newBudgetMonth()
	m.add("search", keyNames{"h1", "bot-1"}, "", ledger.AmountOf(decimal.RequireFromString("12.5")))
	m.add("search", keyNames{"h2", "bot-2"}, "campaign", ledger.AmountOf(decimal.RequireFromString("2.5")))
	m.add("other", keyNames{"h3", ""}, "alpha\x1fcampaign", ledger.AmountOf(decimal.RequireFromString("1")))             // campaign's half: 0.5
	m.add("other", keyNames{"h3", ""}, "campaign\x1fzeta", ledger.AmountOf(decimal.RequireFromString("0.000000000003"))) // zeta 1e-12, campaign first: 2e-12
	// 2026-11-10T12:00Z: 9.5 of November's 30 days gone.
	lines := budgetLines(plan, m.done(), time.Date(2026, 11, 10, 12, 0, 0, 0, time.UTC))
	want := []struct{ kind, name, spent, remaining, projected string }{
		{"team", "search", "15", "85", "47.368421"},                         // 15 × 30 / 9.5 = 47.3684210…
		{"key", "bot-1", "12.5", "-2.5", "39.473684"},                       // 12.5 × 30 / 9.5 = 39.4736842…
		{"tag", "campaign", "3.000000000002", "1.999999999998", "9.473684"}, // 2.5 + 0.5 + 2e-12; × 30 / 9.5 = 9.4736842…
		{"key", "h3", "1.000000000003", "0.999999999997", "3.157895"},       // 1 + 3e-12; × 30 / 9.5 = 3.1578947…
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

// TestBudgetsFromState: serve's budget spend, for a team, a key (by
// alias and by hash) and a tag, is what the workbook's Budget sheet gives for the same month: the
// state keeps each call's tags, and a tag's share is split alike.
func TestBudgetsFromState(t *testing.T) {
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	s, err := state.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sample := taggedSample(t)
	feed := state.Feed{Name: sample, Open: func(time.Time, *ledger.Known) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(sample, ledger.Options{})}, nil
	}}
	if _, err := run.Refresh(context.Background(), s, cat, pricing.Options{}, []state.Feed{feed}, false); err != nil {
		t.Fatal(err)
	}
	plan, err := budgets.Parse("budgets.yaml", []byte("budgets:\n  - team: search\n    monthly: 1500\n  - key: research-agent-runner-prod-06\n    monthly: 300\n  - tag: project-atlas\n    monthly: 80\n  - tag: prod\n    monthly: 5\n"+
		"  - key: 1b6336c86305df1f0f7fb806a5110dd51697695478f67e6d186935539b8e2240\n    monthly: 9\n"))
	if err != nil {
		t.Fatal(err)
	}
	// The workbook's month: October, grouped by tags too.
	october := pricing.Options{Since: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Zone: time.UTC}
	mb := pricing.NewMonthBuilder(cat, october)
	opts := mb.Options()
	opts.Dims = append(opts.Dims, pricing.DimTag)
	e := pricing.New(cat, opts)
	if err := s.Fill(e, cat, opts, nil); err != nil {
		t.Fatal(err)
	}
	month, err := mb.Build(e)
	if err != nil {
		t.Fatal(err)
	}
	want := month.Budgets(plan)
	// Serve's month to the last slot of October.
	c := New(Options{TopKeys: 20, Budgets: plan})
	if err := c.Update(s, cat, time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC), nil); err != nil {
		t.Fatal(err)
	}
	snap := c.snap
	if len(snap.Budgets) != len(want) {
		t.Fatalf("%d budget lines, want %d", len(snap.Budgets), len(want))
	}
	for i, l := range snap.Budgets {
		if w := want[i]; l.kind != w.Kind.String() || l.name != w.Name || !l.spent.Equal(w.Actual) || l.spent.IsZero() {
			t.Errorf("%s %s: spent %s, the workbook %s %s %s", l.kind, l.name, l.spent, w.Kind, w.Name, w.Actual)
		}
	}
}

// taggedSample is the sample with request tags: a third of the calls
// tagged project-atlas, a third project-atlas and prod, the rest none.
func taggedSample(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../../testdata/sample/spendlogs-2026-10.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	tags := []string{`["project-atlas"]`, `["prod", "project-atlas"]`, ""}
	rows[0] = append(rows[0], "request_tags")
	for i := 1; i < len(rows); i++ {
		rows[i] = append(rows[i], tags[i%3])
	}
	path := filepath.Join(t.TempDir(), "tagged.csv")
	writeCSV(t, path, rows)
	return path
}

// writeCSV writes records (the header first) to path.
func writeCSV(t *testing.T, path string, records [][]string) {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	w.WriteAll(records)
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestConfigDriftNotExact: a state the blend cannot be worked from
// exactly (its calls read at another billing instant than the collector
// is told of) reports every other figure and no configured-price series,
// with an error wrapping ErrNoDrift, rather than a drift from a blend of
// the tokens alone; told the instant they were read at, it reports the
// drift, the fee per web search included.
func TestConfigDriftNotExact(t *testing.T) {
	firstToken := tariffs.BillFirstToken
	cat, s, dir := sampleState(t, pricing.Options{Billing: &firstToken})
	config := &GatewayConfig{File: filepath.Join(dir, "config.yaml"), Data: []byte("model_list:\n  - model_name: sonnet\n    litellm_params:\n      model: anthropic/claude-sonnet-4-5-20250929\n" +
		"      input_cost_per_token: 3.1e-6\n      search_context_cost_per_query:\n        search_context_size_low: 0.012\n" +
		"        search_context_size_medium: 0.012\n        search_context_size_high: 0.012\n")}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		billing *tariffs.BillingTime
		noDrift bool
		series  int
	}{
		{name: "told the instant the calls were read at", billing: &firstToken, series: 2},
		{name: "told each tariff's own", noDrift: true, series: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{Blend: stateBlend(s, tt.billing)})
			err := c.Update(s, cat, now, config)
			if got := errors.Is(err, ErrNoDrift); got != tt.noDrift || (err != nil && !tt.noDrift) {
				t.Fatalf("Update: %v, want ErrNoDrift %v", err, tt.noDrift)
			}
			if len(c.snap.Cost) == 0 {
				t.Error("no cost series: the other figures must be updated")
			}
			if len(c.snap.ConfigOff) != tt.series {
				t.Errorf("%d configured-price series, want %d: %v", len(c.snap.ConfigOff), tt.series, c.snap.ConfigOff)
			}
			if off, ok := c.snap.ConfigOff[configLabels{"sonnet", "litellm_params.search_context_cost_per_query"}]; tt.series > 0 &&
				(!ok || !off.Equal(decimal.RequireFromString("0.2"))) {
				t.Errorf("web search fee off %v, want (0.012 - 0.01) / 0.01 = 0.2", off)
			}
		})
	}
}

// TestConfigDriftOnceASlot: the configured prices' drift is made again
// for a now in another slot and for a config of other bytes or another
// name, and kept for a now in the same slot and a config of the same
// name and bytes (the 28 days' blend is not made at every refresh).
func TestConfigDriftOnceASlot(t *testing.T) {
	cat, s, dir := sampleState(t, pricing.Options{})
	config := func(name, price string) *GatewayConfig {
		return &GatewayConfig{File: filepath.Join(dir, name), Data: []byte("model_list:\n  - model_name: pro\n    litellm_params:\n      model: deepseek/deepseek-v4-pro\n      input_cost_per_token: " + price + "\n")}
	}
	c := New(Options{Blend: stateBlend(s, nil)})
	c.Watch(s)
	off := func(now time.Time, gw *GatewayConfig) decimal.Decimal {
		t.Helper()
		if err := c.Update(s, cat, now, gw); err != nil {
			t.Fatal(err)
		}
		return c.snap.ConfigOff[configLabels{"pro", "litellm_params.input_cost_per_token"}]
	}
	first := off(time.Date(2026, 11, 1, 0, 1, 0, 0, time.UTC), config("config.yaml", "1.0e-6"))
	steps := []struct {
		name  string
		now   time.Time
		gw    *GatewayConfig
		again bool // the drift made again
		moved bool // its figure not first's
	}{
		{name: "same slot, same bytes read anew", now: time.Date(2026, 11, 1, 0, 14, 0, 0, time.UTC), gw: config("config.yaml", "1.0e-6")},
		{name: "next slot", now: time.Date(2026, 11, 1, 0, 15, 0, 0, time.UTC), gw: config("config.yaml", "1.0e-6"), again: true},
		{name: "same slot, other bytes", now: time.Date(2026, 11, 1, 0, 20, 0, 0, time.UTC), gw: config("config.yaml", "2.0e-6"), again: true, moved: true},
		{name: "same slot, same bytes again", now: time.Date(2026, 11, 1, 0, 21, 0, 0, time.UTC), gw: config("config.yaml", "2.0e-6"), moved: true},
		{name: "same slot, another file", now: time.Date(2026, 11, 1, 0, 22, 0, 0, time.UTC), gw: config("other.yaml", "2.0e-6"), again: true, moved: true},
	}
	for _, st := range steps {
		made := c.drift
		got := off(st.now, st.gw)
		if again := c.drift != made; again != st.again {
			t.Errorf("%s: drift made again %v, want %v", st.name, again, st.again)
		}
		if moved := !got.Equal(first); moved != st.moved {
			t.Errorf("%s: drift %s, first %s: moved %v, want %v", st.name, got, first, moved, st.moved)
		}
	}
}

// stateBlend is the blend serve hands its metrics: run.StateBlend over
// s, its calls read at billing.
func stateBlend(s *state.Store, billing *tariffs.BillingTime) BlendFunc {
	return func(cat *tariffs.Catalog, from, until, tariffAt time.Time) (map[*tariffs.Model]*tariffs.Rates, error) {
		return run.StateBlend(s, cat, from, until, tariffAt, billing)
	}
}

// sampleState is a state of the sample's calls, refreshed once at the
// embedded catalog with opts, in a folder of the test's; closed when the
// test ends.
func sampleState(t *testing.T, opts pricing.Options) (*tariffs.Catalog, *state.Store, string) {
	t.Helper()
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	dir := t.TempDir()
	s, err := state.Open(filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	feed := state.Feed{Name: sample, Open: func(time.Time, *ledger.Known) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(sample, ledger.Options{})}, nil
	}}
	if _, err := run.Refresh(context.Background(), s, cat, opts, []state.Feed{feed}, false); err != nil {
		t.Fatal(err)
	}
	return cat, s, dir
}

// TestConfigDriftBadConfig: a config that does not parse is an error
// naming its file, the figures of the last Update stay, and the next
// Update, given it mended, makes the drift.
func TestConfigDriftBadConfig(t *testing.T) {
	cat, s, dir := sampleState(t, pricing.Options{})
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	file := filepath.Join(dir, "config.yaml")
	c := New(Options{Blend: stateBlend(s, nil)})
	if err := c.Update(s, cat, now, nil); err != nil {
		t.Fatal(err)
	}
	before := c.snap
	err := c.Update(s, cat, now, &GatewayConfig{File: file, Data: []byte("model_list: [\n")})
	if err == nil || !strings.HasPrefix(err.Error(), "read config: "+file) || errors.Is(err, ErrNoDrift) {
		t.Fatalf("Update: %v, want read config: %s...", err, file)
	}
	if c.snap != before {
		t.Error("a bad config replaced the figures")
	}
	mended := &GatewayConfig{File: file, Data: []byte("model_list:\n  - model_name: pro\n    litellm_params:\n      model: deepseek/deepseek-v4-pro\n      input_cost_per_token: 1.0e-6\n")}
	if err := c.Update(s, cat, now, mended); err != nil {
		t.Fatal(err)
	}
	if len(c.snap.ConfigOff) != 1 {
		t.Errorf("mended config: %d drift series, want 1", len(c.snap.ConfigOff))
	}
}

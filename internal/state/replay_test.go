package state

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/reports"
	"github.com/tokenfare/tokenfare/tariffs"
)

// canonicalHeader is the header of the calls the tests below generate.
const canonicalHeader = "request_id,start,end,key_hash,key_alias,team,user,model,model_group,host,status,recorded_spend," +
	"input_tokens,cache_read_tokens,cache_write_tokens,cache_write_1h_tokens,output_tokens,reasoning_tokens,web_search_calls,service_tier,region\n"

// billedCalls returns n canonical rows over October 2026, in order of
// start, with every quantity a call is billed for beyond plain tokens:
// 1-hour cache writes, web searches, the batch and priority tiers, the US
// region, prompts above Sonnet 4.5's 200k tier, plus failed calls, calls
// no tariff knows, zero recorded spend and calls logged twice.
func billedCalls(n int) []string {
	r := rand.New(rand.NewPCG(7, 11))
	type model struct{ name, group, host string }
	models := []model{{"deepseek-v4-pro", "ds-pro", ""}, {"claude-sonnet-4-5", "sonnet", ""}, {"claude-sonnet-5", "sonnet-5", ""},
		{"gpt-4o", "gpt", ""}, {"mystery-model-1", "mystery", ""}, {"deepseek-v4-flash", "ds-flash", ""}}
	tiers := []string{"standard", "standard", "standard", "batch", "priority"}
	from := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	step := 31 * 24 * time.Hour / time.Duration(n)
	var rows []string
	for i := range n {
		m := models[r.IntN(len(models))]
		start := from.Add(time.Duration(i)*step + time.Duration(r.IntN(int(step/time.Second)))*time.Second)
		end := start.Add(time.Duration(1+r.IntN(40)) * time.Second)
		status, region := "success", ""
		if r.IntN(25) == 0 {
			status = "failure"
		}
		if m.name == "claude-sonnet-5" && r.IntN(3) == 0 {
			region = "us"
		}
		input := 100 + r.IntN(20000)
		if m.name == "claude-sonnet-4-5" && r.IntN(4) == 0 {
			input = 200001 + r.IntN(50000) // the 200k tier
		}
		var w1h, search int
		if strings.HasPrefix(m.name, "claude") {
			w1h, search = r.IntN(3)*1000, r.IntN(3)
		}
		out := r.IntN(3000)
		spend := fmt.Sprintf("0.%06d", r.IntN(1000000))
		if r.IntN(20) == 0 {
			spend = "0"
		}
		row := fmt.Sprintf("r-%d,%s,%s,k%d,alias-%d,team-%d,u-%d,%s,%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%s,%s\n",
			i, start.Format(time.RFC3339), end.Format(time.RFC3339), i%7, i%7, i%3, i%5, m.name, m.group, m.host, status, spend,
			input, r.IntN(5000), r.IntN(2000), w1h, out, r.IntN(out+1), search, tiers[r.IntN(len(tiers))], region)
		rows = append(rows, row)
		if r.IntN(100) == 0 {
			rows = append(rows, row) // logged twice
		}
	}
	return rows
}

// writeCanonical writes the header and rows to path.
func writeCanonical(t *testing.T, path string, rows []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(canonicalHeader+strings.Join(rows, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rendered is what the batch commands show of an engine: the
// reconciliation grouped by dims and the blend of October, as JSON.
func rendered(t *testing.T, e *pricing.Engine) string {
	t.Helper()
	var b bytes.Buffer
	if err := reports.Reconciliation(&b, reports.JSON, e.Reconcile()); err != nil {
		t.Fatal(err)
	}
	from, until := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if err := reports.Blend(&b, reports.JSON, e.BlendWindow(from, until, pricing.ModePerModel)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// fullEngine prices path in one run at cat with opts.
func fullEngine(t *testing.T, cat *tariffs.Catalog, opts pricing.Options, path string) *pricing.Engine {
	t.Helper()
	e, err := runEngine(RunInput{Catalog: cat, Options: opts, Sources: []ledger.Source{ledger.FileSource(path, ledger.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// filled prices the state at cat with opts.
func filled(t *testing.T, s *Store, cat *tariffs.Catalog, opts pricing.Options) *pricing.Engine {
	t.Helper()
	e := pricing.New(cat, opts)
	if err := s.Fill(e, cat, opts, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// summed prices the state at cat with opts in a run over its sums.
func summed(t *testing.T, s *Store, cat *tariffs.Catalog, opts pricing.Options) *pricing.Engine {
	t.Helper()
	e, err := runEngine(RunInput{Catalog: cat, Options: opts, Sources: []ledger.Source{s.Summer()}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestFill: calls with every billed quantity (1-hour writes, web
// searches, service tiers, a region, prompt-size tiers, failed, unknown
// and duplicate calls) arriving in three batches into one growing file,
// refreshed after each, with and without a restart, and with the tariff
// changing between batches (the first refreshed at the catalog, the
// others at a DeepSeek rise), give from the state the reconciliation and
// the blend one full run gives, to the last digit, grouped every way the
// state keeps; the state priced at the old catalog gives the full run at
// it too, the history re-priced.
func TestFill(t *testing.T) {
	rows := billedCalls(3000)
	cat, rise := embedded(t), riseCatalog(t)
	dir := t.TempDir()
	full := filepath.Join(dir, "full.csv")
	writeCanonical(t, full, rows)
	october := pricing.Options{Since: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	groupings := []struct {
		name string
		opts pricing.Options
	}{
		{name: "by model", opts: pricing.Options{Dims: []pricing.Dim{pricing.DimModel}}},
		{name: "by model, key, team, user, day", opts: pricing.Options{Dims: []pricing.Dim{pricing.DimModel, pricing.DimKey, pricing.DimTeam, pricing.DimUser, pricing.DimDay}}},
		{name: "by period, version, host, group", opts: pricing.Options{Dims: []pricing.Dim{pricing.DimPeriod, pricing.DimVersion, pricing.DimHost, pricing.DimGroup}}},
		{name: "by hour in Kolkata", opts: pricing.Options{Dims: []pricing.Dim{pricing.DimHour}, Zone: kolkata(t)}},
		{name: "October at the tariff of November", opts: pricing.Options{Dims: []pricing.Dim{pricing.DimModel}, Since: october.Since, Until: october.Until, TariffAt: october.Until}},
		{name: "the second half of October", opts: pricing.Options{Dims: []pricing.Dim{pricing.DimModel, pricing.DimDay}, Since: time.Date(2026, 10, 16, 0, 0, 0, 0, time.UTC), Until: october.Until}},
	}
	cut := []int{0, len(rows) / 3, 2 * len(rows) / 3, len(rows)}
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart %v", restart), func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "calls.csv")
			path := filepath.Join(t.TempDir(), "state.db")
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { s.Close() }()
			feed := wholeFileFeed(log)
			for i := 1; i < len(cut); i++ {
				writeCanonical(t, log, rows[:cut[i]])
				at := cat
				if i > 1 {
					at = rise // the tariff changes between batches
				}
				if _, err := refresh(s, at, pricing.Options{}, []Feed{feed}); err != nil {
					t.Fatal(err)
				}
				if restart {
					s.Close()
					if s, err = Open(path); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, g := range groupings {
				for _, c := range []struct {
					name string
					cat  *tariffs.Catalog
				}{{"at the rise", rise}, {"at the catalog", cat}} {
					want := rendered(t, fullEngine(t, c.cat, g.opts, full))
					if got := rendered(t, filled(t, s, c.cat, g.opts)); got != want {
						t.Errorf("%s, %s: the state gives\n%.2000s\nthe full run\n%.2000s", g.name, c.name, firstDiff(got, want), firstDiff(want, got))
					}
					if got := rendered(t, summed(t, s, c.cat, g.opts)); got != want {
						t.Errorf("%s, %s: a run over the state's sums gives\n%.2000s\nthe full run\n%.2000s", g.name, c.name, firstDiff(got, want), firstDiff(want, got))
					}
				}
			}
		})
	}
}

// firstDiff returns a from a little before where it first differs from b.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-200):]
}

func kolkata(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestFillRefuses: what the state does not keep, or cannot price
// exactly, is an error naming it, not a different figure.
func TestFillRefuses(t *testing.T) {
	cat := embedded(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.csv")
	rows := billedCalls(300)
	// Two DeepSeek calls in one slot, on both sides of 16:05.
	rows = append(rows,
		"late-a,2026-10-15T16:02:00Z,2026-10-15T16:02:10Z,k1,alias-1,team-1,u-1,deepseek-v4-pro,ds-pro,,success,0.01,1000,0,0,0,100,0,0,standard,\n",
		"late-b,2026-10-15T16:08:00Z,2026-10-15T16:08:10Z,k1,alias-1,team-1,u-1,deepseek-v4-pro,ds-pro,,success,0.01,1000,0,0,0,100,0,0,standard,\n")
	writeCanonical(t, log, rows)
	s, err := Open(filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	feed := wholeFileFeed(log)
	if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
		t.Fatal(err)
	}
	offGrain := shiftedRise(t, "2026-10-15T16:05:00Z")
	tests := []struct {
		name string
		cat  *tariffs.Catalog
		opts pricing.Options
		want error
		says string
	}{
		{name: "a grouping the state does not keep", cat: cat, opts: pricing.Options{Dims: []pricing.Dim{pricing.DimMeta}, MetaField: "owner"},
			want: ErrNotKept, says: "key metadata"},
		{name: "a version taking effect inside a slot with calls on both sides", cat: offGrain, opts: pricing.Options{},
			want: pricing.ErrNotExact, says: "2026-10-15T16:05:00Z"},
		{name: "the window's edge inside a slot", cat: cat, opts: pricing.Options{Since: time.Date(2026, 10, 15, 16, 5, 0, 0, time.UTC)},
			want: pricing.ErrNotExact, says: "window's edge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Fill(pricing.New(tt.cat, tt.opts), tt.cat, tt.opts, nil)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Fill: %v, want %v saying %q", err, tt.want, tt.says)
			}
		})
	}
	// The boundary off the grain is named with its model and version.
	var named bool
	for _, o := range OffGrains(offGrain, time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Time{}) {
		named = named || (o.Model == "deepseek-v4-pro" && o.Version == "2026-10-16-pro-rise" && o.At.Equal(time.Date(2026, 10, 15, 16, 5, 0, 0, time.UTC)))
	}
	if !named {
		t.Error("OffGrains does not name deepseek-v4-pro's version 2026-10-16-pro-rise at 16:05")
	}
	if got := OffGrains(cat, time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Time{}); len(got) != 0 {
		t.Errorf("the embedded catalog has boundaries off the grain: %v", got)
	}
}

// TestFillOverlap: two exports that overlap, refreshed twice, give the
// rows one run over both gives: the calls the second repeats counted once,
// as overlaps, however often they are read again.
func TestFillOverlap(t *testing.T) {
	cat := embedded(t)
	rows := billedCalls(600)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	writeCanonical(t, a, rows[:300])
	writeCanonical(t, b, rows[295:310]) // five calls of a's last hours again, within b's last day
	s, err := Open(filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var feeds []Feed
	for _, p := range []string{a, b} {
		feeds = append(feeds, wholeFileFeed(p))
	}
	for range 2 {
		if _, err := refresh(s, cat, pricing.Options{}, feeds); err != nil {
			t.Fatal(err)
		}
	}
	if w := sameAsOneRun(t, s, cat, a, b); w.Duplicate < 5 {
		t.Errorf("one run's rows %+v: the test's data wants at least 5 duplicates", w)
	}
}

// sameAsOneRun checks that the state priced again gives what one run over
// the files gives, rows and rendering; it returns the run's rows.
func sameAsOneRun(t *testing.T, s *Store, cat *tariffs.Catalog, paths ...string) pricing.Rows {
	t.Helper()
	var sources []ledger.Source
	for _, p := range paths {
		sources = append(sources, ledger.FileSource(p, ledger.Options{}))
	}
	full, err := runEngine(RunInput{Catalog: cat, Sources: sources})
	if err != nil {
		t.Fatal(err)
	}
	got := filled(t, s, cat, pricing.Options{})
	if g, w := got.Rows(), full.Rows(); g != w {
		t.Errorf("rows from the state %+v, one run %+v", g, w)
	}
	if g, w := rendered(t, got), rendered(t, full); g != w {
		t.Errorf("the state gives\n%.1500s\none run\n%.1500s", firstDiff(g, w), firstDiff(w, g))
	}
	return full.Rows()
}

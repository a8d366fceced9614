package state

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// totals are the figures a state and a full run are compared on.
type totals struct {
	official, recorded decimal.Decimal
	calls              map[pricing.Outcome]int64
	qty                pricing.Quantities
}

func (t totals) equal(o totals) bool {
	if !t.official.Equal(o.official) || !t.recorded.Equal(o.recorded) || t.qty != o.qty || len(t.calls) != len(o.calls) {
		return false
	}
	for k, v := range t.calls {
		if o.calls[k] != v {
			return false
		}
	}
	return true
}

func newTotals() totals {
	return totals{official: decimal.Zero, recorded: decimal.Zero, calls: map[pricing.Outcome]int64{}}
}

// fullRun prices path in one run, as reconcile does, and totals it: every
// call not outside by outcome (duplicates included), the official cost and
// quantities of the priced ones, the recorded spend of all (a duplicate's
// spend is recorded twice by the gateway).
func fullRun(t *testing.T, cat *tariffs.Catalog, path string) totals {
	t.Helper()
	tot := newTotals()
	if _, err := runAll(cat, []ledger.Source{ledger.FileSource(path, ledger.Options{})}, fullObserver(&tot)); err != nil {
		t.Fatal(err)
	}
	return tot
}

// wholeFileFeed is a feed of one file, read whole at each refresh.
func wholeFileFeed(path string) Feed {
	return Feed{Name: path, Open: func(time.Time, *ledger.Known) ([]ledger.Source, error) {
		return []ledger.Source{ledger.FileSource(path, ledger.Options{})}, nil
	}}
}

// runAll prices sources in one run shown to obs.
func runAll(cat *tariffs.Catalog, sources []ledger.Source, obs pricing.Observer) (*pricing.Engine, error) {
	return runEngine(RunInput{Catalog: cat, Sources: sources, Observers: []pricing.Observer{obs}})
}

// fullObserver totals the calls of a run into tot.
func fullObserver(tot *totals) pricing.Observer {
	return pricing.ObserverFunc(func(c *ledger.Call, pc *pricing.PricedCall) error {
		o := pc.Outcome
		if o == pricing.Overlap || o == pricing.Outside {
			return nil
		}
		tot.calls[o]++
		if o == pricing.Duplicate {
			return nil // the same call read again: only its row counts
		}
		tot.recorded = tot.recorded.Add(c.Recorded.Decimal())
		if o == pricing.Priced {
			_, cost := pc.Cost(c)
			tot.official = tot.official.Add(cost)
			q := pricing.QuantitiesOf(c.Tokens, c.Tools)
			tot.qty.Add(&q)
		}
		return nil
	})
}

// stateTotals totals the state's sums priced at cat.
func stateTotals(t *testing.T, s *Store, cat *tariffs.Catalog) totals {
	t.Helper()
	tot := newTotals()
	var pr Pricer
	err := s.Each(func(k *Key, sums *Sums) error {
		tot.calls[k.Outcome] += sums.Calls
		tot.recorded = tot.recorded.Add(sums.Recorded)
		if p := pr.Price(cat, k, sums); p.OK && k.Outcome == pricing.Priced {
			tot.official = tot.official.Add(p.Official)
			tot.qty.Add(&sums.Qty)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tot
}

// batches returns the sample's header and rows in order of start, cut in
// n parts, with the first row of part 0 repeated at the end of part 1 (a
// call logged twice).
func batches(t *testing.T, n int) (header []string, parts [][][]string) {
	f, err := os.Open("../../testdata/sample/spendlogs-2026-10.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header, rows = rows[0], rows[1:]
	start := 0
	for i, h := range header {
		if h == "startTime" {
			start = i
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][start] < rows[j][start] })
	size := (len(rows) + n - 1) / n
	for i := 0; i < len(rows); i += size {
		parts = append(parts, slices.Clone(rows[i:min(i+size, len(rows))]))
	}
	parts[1] = append(parts[1], parts[0][len(parts[0])-1])
	return header, parts
}

func writeRows(t *testing.T, path string, header []string, rows ...[][]string) {
	t.Helper()
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(header)
	for _, part := range rows {
		w.WriteAll(part)
	}
	w.Flush()
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func embedded(t *testing.T) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffs.Load("")
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return cat
}

// riseCatalog is the embedded catalog with a DeepSeek version taking
// effect mid-October: deepseek-v4-pro 21 % dearer, off-peak and peak.
func riseCatalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	return shiftedRise(t, "2026-10-15T16:00:00Z")
}

// shiftedRise is riseCatalog with the rise taking effect at effective.
func shiftedRise(t *testing.T, effective string) *tariffs.Catalog {
	t.Helper()
	data, err := os.ReadFile("../../tariffs/catalog/deepseek.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "  - effective: 2026-09-10T04:00:00Z")
	j := strings.Index(s, "  # 12. ")
	if i < 0 || j < i {
		t.Fatal("deepseek.yaml: versions 11 and 12 moved; update the test")
	}
	v := strings.NewReplacer("effective: 2026-09-10T04:00:00Z", "effective: "+effective,
		"name: 2026-09-10-deepseek-flash", "name: 2026-10-16-pro-rise",
		"offpeak: {input: 0.66, cache_read: 0.022, cache_write: 0.66, output: 1.98}", "offpeak: {input: 0.7986, cache_read: 0.02662, cache_write: 0.7986, output: 2.3958}",
		"peak:    {input: 1.32, cache_read: 0.044, cache_write: 1.32, output: 3.96}", "peak:    {input: 1.5972, cache_read: 0.05324, cache_write: 1.5972, output: 4.7916}",
	).Replace(s[i:j])
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "deepseek.yaml"), []byte(s[:j]+v+s[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, ps := tariffs.Load("", dir)
	if errs := ps.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	return cat
}

// TestIncremental: the sample arriving in three batches into one growing
// file, refreshed after each (with a restart, or not), gives exactly the
// figures of one full run over the whole file: official cost, recorded
// spend and quantities to the last decimal, calls by outcome, the call
// logged twice counted once. The state built at one tariff, priced at a
// tariff changed since, gives the full run at the new one.
func TestIncremental(t *testing.T) {
	header, parts := batches(t, 3)
	cat, rise := embedded(t), riseCatalog(t)
	dir := t.TempDir()
	full := filepath.Join(dir, "full.csv")
	writeRows(t, full, header, parts...)
	want, wantRise := fullRun(t, cat, full), fullRun(t, rise, full)
	if want.official.Equal(wantRise.official) || want.calls[pricing.Duplicate] == 0 {
		t.Fatalf("the test's data: the rise changes nothing (%s) or no duplicate (%d)", want.official, want.calls[pricing.Duplicate])
	}
	tests := []struct {
		name    string
		restart bool
	}{
		{name: "one process"},
		{name: "a restart between batches", restart: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "spendlogs.csv")
			statePath := filepath.Join(t.TempDir(), "state.db")
			s, err := Open(statePath)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { s.Close() }()
			feed := wholeFileFeed(log)
			for i := range parts {
				writeRows(t, log, header, parts[:i+1]...)
				if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
					t.Fatal(err)
				}
				if tt.restart {
					s.Close()
					if s, err = Open(statePath); err != nil {
						t.Fatal(err)
					}
				}
			}
			// A refresh with nothing new changes nothing.
			if _, err := refresh(s, cat, pricing.Options{}, []Feed{feed}); err != nil {
				t.Fatal(err)
			}
			if got := stateTotals(t, s, cat); !got.equal(want) {
				t.Errorf("state: official %s recorded %s calls %v qty %v\nfull run: official %s recorded %s calls %v qty %v",
					got.official, got.recorded, got.calls, got.qty, want.official, want.recorded, want.calls, want.qty)
			}
			if got := stateTotals(t, s, rise); !got.official.Equal(wantRise.official) {
				t.Errorf("re-priced at the rise: official %s, full run %s", got.official, wantRise.official)
			}
			src, err := s.Source(log)
			if err != nil {
				t.Fatal(err)
			}
			if src.Refreshes != int64(len(parts)+1) || src.Rows.Read != src.Rows.Priced+src.Rows.Unpriced+src.Rows.Retired+src.Rows.Failed+src.Rows.Duplicate+src.Rows.Rejected+src.Rows.Outside+src.Rows.CacheHit {
				t.Errorf("source accounting does not add up: %+v", src)
			}
		})
	}
}

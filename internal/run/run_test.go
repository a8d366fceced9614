package run

import (
	"context"
	"errors"
	"io"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

func catalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffs.Load("")
	if cat == nil {
		t.Fatalf("embedded catalog: %v", ps)
	}
	return cat
}

func files(paths ...string) []ledger.Source {
	out := make([]ledger.Source, len(paths))
	for i, p := range paths {
		out[i] = ledger.FileSource(p, ledger.Options{})
	}
	return out
}

// parts adds up every count of r but Read.
func parts(r pricing.Rows) int64 {
	var sum int64
	v := reflect.ValueOf(r)
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Name != "Read" {
			sum += v.Field(i).Int()
		}
	}
	return sum
}

// add returns a + b, every field.
func add(a, b pricing.Rows) pricing.Rows {
	av, bv := reflect.ValueOf(&a).Elem(), reflect.ValueOf(b)
	for i := 0; i < av.NumField(); i++ {
		av.Field(i).SetInt(av.Field(i).Int() + bv.Field(i).Int())
	}
	return a
}

// TestRowsPerSourceAddUp reads a file with cache hits and one with a
// rejected row, an unpriced model and a call of the first file: each
// source's parts add up to its read, and the sources to the engine's rows.
func TestRowsPerSourceAddUp(t *testing.T) {
	var listed []ledger.Rejection
	res, err := Run(context.Background(), Input{Catalog: catalog(t), Options: pricing.Options{Zone: time.UTC},
		Sources:    files("testdata/cachehits.csv", "testdata/plain.csv"),
		OnRejected: func(r ledger.Rejection) { listed = append(listed, r) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []SourceRows{
		// h1 priced, h2 and h3 cache hits, h4 failed.
		{Name: "testdata/cachehits.csv", Format: "litellm-spendlogs-csv", Rows: pricing.Rows{Read: 4, Priced: 1, Failed: 1, CacheHit: 2}},
		// p1 priced, p2 rejected, p3 unpriced, h1 read before from the first file.
		{Name: "testdata/plain.csv", Format: "litellm-spendlogs-csv", Rows: pricing.Rows{Read: 4, Priced: 1, Rejected: 1, Unpriced: 1, Duplicate: 1}},
	}
	if !reflect.DeepEqual(res.Sources, want) {
		t.Fatalf("sources:\n got %+v\nwant %+v", res.Sources, want)
	}
	var sum pricing.Rows
	for _, s := range res.Sources {
		if got := parts(s.Rows); got != s.Rows.Read {
			t.Errorf("%s: parts add up to %d, read %d (%+v)", s.Name, got, s.Rows.Read, s.Rows)
		}
		sum = add(sum, s.Rows)
	}
	if total := res.Engine.Rows(); sum != total {
		t.Errorf("sources add up to %+v, engine counted %+v", sum, total)
	}
	if len(listed) != 1 || listed[0].Line != 3 || res.Listed != 1 || res.Unlisted != 0 {
		t.Errorf("rejections: listed %v (%d), unlisted %d; want plain.csv:3 listed alone", listed, res.Listed, res.Unlisted)
	}
	if len(res.PushedDown) != 0 {
		t.Errorf("files pushed down: %+v", res.PushedDown)
	}
}

// batches is a source of n batches of one call each, counting the batches
// it served and whether it was opened.
type batches struct {
	name   string
	n      int
	served atomic.Int64
	opened atomic.Bool
}

func (s *batches) Name() string { return s.name }

func (s *batches) Open(context.Context) (ledger.Reader, error) {
	s.opened.Store(true)
	return &batchReader{s: s}, nil
}

type batchReader struct{ s *batches }

func (r *batchReader) Format() string { return "test" }
func (r *batchReader) Close() error   { return nil }

func (r *batchReader) Next(_ context.Context, b *ledger.Batch) error {
	b.Reset()
	i := r.s.served.Load()
	if int(i) == r.s.n {
		return io.EOF
	}
	r.s.served.Add(1)
	start := time.Date(2026, 10, 12, 2, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	b.Calls = append(b.Calls, ledger.Call{RequestID: r.s.name + string(rune('a'+i)), Identity: r.s.name + string(rune('a'+i)),
		Start: start, End: start.Add(time.Second), Model: "deepseek-flash", Tokens: ledger.Tokens{Input: 1000, Output: 100}})
	b.Rows = 1
	return nil
}

// TestObserverErrorStopsTheRun has an observer fail at the third call of
// ten: no observer sees a call after it, the source serves no further
// batch, the next source is never opened, and Run returns the error.
func TestObserverErrorStopsTheRun(t *testing.T) {
	errFull := errors.New("write: no space left on device")
	first, second := &batches{name: "first", n: 10}, &batches{name: "second", n: 10}
	var seen, after int
	failed := false
	stop := pricing.ObserverFunc(func(*ledger.Call, *pricing.PricedCall) error {
		if failed {
			after++
		}
		seen++
		if seen == 3 {
			failed = true
			return errFull
		}
		return nil
	})
	var later int
	count := pricing.ObserverFunc(func(*ledger.Call, *pricing.PricedCall) error { later++; return nil })
	res, err := Run(context.Background(), Input{Catalog: catalog(t), Options: pricing.Options{Zone: time.UTC},
		Sources: []ledger.Source{first, second}, Observers: []pricing.Observer{stop, count}})
	if !errors.Is(err, errFull) || res != nil {
		t.Fatalf("Run = %v, %v; want no result and the observer's error", res, err)
	}
	if after != 0 {
		t.Errorf("%d call(s) observed after the error", after)
	}
	if later != 2 {
		t.Errorf("the second observer saw %d calls, want the 2 before the failing one", later)
	}
	if n := first.served.Load(); n != 3 {
		t.Errorf("first source served %d batches, want 3 (no batch after the error)", n)
	}
	if second.opened.Load() {
		t.Error("the second source was opened after the error")
	}
}

// TestNothingPriced checks the typed error of a run that prices nothing,
// and its reason, for each way it happens.
func TestNothingPriced(t *testing.T) {
	oct12 := time.Date(2026, 10, 12, 2, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		file   string
		since  time.Time
		until  time.Time
		reason Reason
		rows   pricing.Rows
	}{
		{name: "empty file", file: "testdata/empty.csv", reason: NoCalls},
		{name: "every row rejected", file: "testdata/rejected.csv", reason: AllRejected, rows: pricing.Rows{Read: 2, Rejected: 2}},
		{name: "every call outside the window", file: "testdata/cachehits.csv",
			since: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), until: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC),
			reason: AllOutside, rows: pricing.Rows{Read: 4, Outside: 4}},
		{name: "cache hits and a failure", file: "testdata/cachehits.csv", since: oct12.Add(time.Minute),
			reason: NoneByTariff, rows: pricing.Rows{Read: 4, Outside: 1, Failed: 1, CacheHit: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), Input{Catalog: catalog(t),
				Options: pricing.Options{Zone: time.UTC, Since: tt.since, Until: tt.until}, Sources: files(tt.file)})
			var np *NothingPricedError
			if !errors.As(err, &np) {
				t.Fatalf("Run: %v; want a *NothingPricedError", err)
			}
			if res == nil || res.Engine == nil {
				t.Fatal("no result with the error")
			}
			if got := np.Reason(); got != tt.reason {
				t.Errorf("reason %d, want %d", got, tt.reason)
			}
			if np.Rows != tt.rows || parts(np.Rows) != np.Rows.Read {
				t.Errorf("rows %+v, want %+v", np.Rows, tt.rows)
			}
			if len(np.Sources) != 1 || np.Sources[0] != tt.file {
				t.Errorf("sources %v, want [%s]", np.Sources, tt.file)
			}
			if !np.Since.Equal(tt.since) || !np.Until.Equal(tt.until) {
				t.Errorf("window [%v, %v), want [%v, %v)", np.Since, np.Until, tt.since, tt.until)
			}
			// DeepSeek bills a call at its end, 5 s after its start.
			first, last := oct12.Add(5*time.Second), oct12.Add(3*time.Minute+5*time.Second)
			if tt.rows.Read > tt.rows.Rejected && (!np.First.Equal(first) || !np.Last.Equal(last)) {
				t.Errorf("span %v to %v, want %v to %v", np.First, np.Last, first, last)
			}
		})
	}
}

// TestStrictStopsAtTheFirstRejection checks that a strict run ends at its
// first rejected row with the row named.
func TestStrictStopsAtTheFirstRejection(t *testing.T) {
	_, err := Run(context.Background(), Input{Catalog: catalog(t), Options: pricing.Options{Zone: time.UTC},
		Sources: files("testdata/plain.csv"), Strict: true})
	var rej *RejectedError
	if !errors.As(err, &rej) || rej.Rejection.Line != 3 {
		t.Fatalf("Run: %v; want the rejection of plain.csv:3", err)
	}
}

package pricing

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/internal/extsort"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestRunRecordsRoundTrip writes partial groups to a run and reads them
// back: every field, sums past int64 included, and a merge of two parts
// equal to the sum of their values.
func TestRunRecordsRoundTrip(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	sumOf := func(amounts ...string) ExactSum {
		var s ExactSum
		for _, a := range amounts {
			s.Add(ledger.AmountOf(decimal.RequireFromString(a)))
		}
		return s
	}
	tests := []struct {
		name string
		s    groupSum
	}{
		{name: "empty", s: groupSum{g: Group{Currencies: []string{}}}},
		{name: "every text and count", s: groupSum{
			g: Group{Key: GroupKey{Model: "deepseek-v4-flash", Group: "flash", Key: "sk-é\x00\"", Team: "t", User: "u", Period: "peak",
				Outcome: Failed, Version: "2026-08-16", Host: "azure", Tag: "a,b", Meta: "m",
				Start: time.Date(2026, 10, 1, 0, 0, 0, 0, shanghai)},
				KeyAlias: "alias", Currencies: []string{"CNY", "USD"}, Calls: 7, PricedCalls: 5,
				Tokens:      TokenCounts{Input: 1, CacheRead: 2, CacheWrite: 3, Output: 4, Reasoning: 5, CacheWrite1h: 6, WebSearch: 7, WebFetch: 8, FileSearch: 9},
				TimedTokens: 10, PeakTokens: -11, CacheHitTokens: 1 << 62},
			official: sumOf("0.000000000000000001", "12.5"),
			recorded: sumOf("-3.25")}},
		{name: "every call priced", s: groupSum{g: Group{Currencies: []string{"USD"}, Calls: 3, PricedCalls: 3, Tokens: TokenCounts{Output: 70}},
			official: sumOf("0.000123"), recorded: sumOf("0.5")}},
		{name: "sums past int64", s: groupSum{g: Group{Currencies: []string{"USD"}},
			official: sumOf("9223372036854775807", "9223372036854775807", "0.1"),
			recorded: sumOf("-9223372036854775808", "-1", "0.00000000000000000000001")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			texts := &runTexts{} // the numbers of the texts, written and read
			codec := func() extsort.Codec[groupSum] { return newGroupCodec(shanghai, nil, false, texts, AllDims()) }
			_, runs := writeRecords(t, "run", codec, tc.s, tc.s)
			read, err := readRecords(runs)
			if err != nil || len(read) != 2 {
				t.Fatalf("read %d records, %v; want 2", len(read), err)
			}
			got, second := read[0], read[1]
			want := tc.s.done()
			if g := got.done(); !sameGroup(&g, &want) {
				t.Errorf("got %+v\nwant %+v", g, want)
			}
			got.merge(&second)
			g := got.done()
			for _, c := range []struct {
				name      string
				got, want decimal.Decimal
			}{{"official", g.Official, want.Official.Mul(decimal.NewFromInt(2))}, {"recorded", g.Recorded, want.Recorded.Mul(decimal.NewFromInt(2))}} {
				if !c.got.Equal(c.want) {
					t.Errorf("merged %s: got %s, want %s", c.name, c.got, c.want)
				}
			}
			if g.Calls != 2*want.Calls || g.Tokens.FileSearch != 2*want.Tokens.FileSearch {
				t.Errorf("merged counts: got %d calls, %d file searches; want %d, %d", g.Calls, g.Tokens.FileSearch, 2*want.Calls, 2*want.Tokens.FileSearch)
			}
		})
	}
}

// sameGroup compares two groups field by field, money with Equal.
func sameGroup(a, b *Group) bool {
	money := a.Official.Equal(b.Official) && a.Recorded.Equal(b.Recorded) && a.Gap.Equal(b.Gap) &&
		a.Ratio.Valid == b.Ratio.Valid && a.Ratio.Decimal.Equal(b.Ratio.Decimal)
	x, y := *a, *b
	x.Official, x.Recorded, x.Gap, x.Ratio = decimal.Zero, decimal.Zero, decimal.Zero, decimal.NullDecimal{}
	y.Official, y.Recorded, y.Gap, y.Ratio = decimal.Zero, decimal.Zero, decimal.Zero, decimal.NullDecimal{}
	return money && x.Key == y.Key && x.KeyAlias == y.KeyAlias && slices.Equal(x.Currencies, y.Currencies) &&
		x.Calls == y.Calls && x.PricedCalls == y.PricedCalls && x.Tokens == y.Tokens &&
		x.TimedTokens == y.TimedTokens && x.PeakTokens == y.PeakTokens && x.CacheHitTokens == y.CacheHitTokens
}

// TestRunCutShort checks that a run cut inside a record is an error
// (ErrSpill) naming the run, never a group short of its sums.
func TestRunCutShort(t *testing.T) {
	s := groupSum{g: Group{Key: GroupKey{Model: "m", Key: "k"}, Currencies: []string{"USD"}, Calls: 3}}
	texts := &runTexts{} // the numbers of the texts, written and read
	codec := func() extsort.Codec[groupSum] { return newGroupCodec(time.UTC, nil, false, texts, AllDims()) }
	for cut := 1; ; cut++ {
		m, runs := writeRecords(t, "run", codec, s)
		whole := len(m.runs["run-000000"])
		if cut >= whole {
			break
		}
		m.cut(t, "run-000000", cut)
		read, err := readRecords(runs)
		if len(read) > 0 || !errors.Is(err, ErrSpill) || !strings.Contains(err.Error(), "run-000000") {
			t.Fatalf("cut by %d of %d bytes: got %d records, %v; want ErrSpill naming the run", cut, whole, len(read), err)
		}
	}
}

// TestSpilledReconciliationIsTheUnlimitedOne prices random calls (every
// outcome, duplicates, unknown models) with budgets of buckets that make
// the engine spill from a few times to hundreds (merging its runs), and
// checks the groups, totals and explanations against the same calls held
// in memory; then that Close removes the runs and that the groups cannot
// be read after.
func TestSpilledReconciliationIsTheUnlimitedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	cat := testCatalog(t)
	calls := randomCalls(rand.New(rand.NewPCG(26, 1)), 6000)
	for i := range calls {
		calls[i].KeyAlias = "alias-" + calls[i].Key[:2]
		calls[i].Team = fmt.Sprintf("team-%d", i%7)
	}
	for _, tc := range []struct {
		name     string
		dims     []Dim
		budget   int
		compacts bool // spills more times than the engine keeps runs (spillRuns.max)
		anew     bool // the values start again at each spill (groupTable.keepValues 0)
		// outputs are those the engine is told of; 0 keeps them all, and
		// with the charge groups kept a spill collapses its buckets after
		// the run, where with the groups alone (reconcile's) it collapses
		// each as the run's cursor reads it.
		outputs Outputs
	}{
		{name: "model, key, day; spilled often", dims: []Dim{DimModel, DimKey, DimDay}, budget: 8, compacts: true},
		{name: "model, key, day; spilled often; groups alone", dims: []Dim{DimModel, DimKey, DimDay}, budget: 8, compacts: true, outputs: OutputGroups},
		{name: "model, key, day; values numbered again", dims: []Dim{DimModel, DimKey, DimDay}, budget: 8, compacts: true, anew: true},
		{name: "model, key, day; values numbered again; groups alone", dims: []Dim{DimModel, DimKey, DimDay}, budget: 8, compacts: true, anew: true, outputs: OutputGroups},
		{name: "hour, team; past 256 runs; groups alone", dims: []Dim{DimHour, DimTeam}, budget: 3, compacts: true, outputs: OutputGroups},
		{name: "hour, team; past 256 runs", dims: []Dim{DimHour, DimTeam}, budget: 3, compacts: true},
		{name: "period, version, key", dims: []Dim{DimPeriod, DimVersion, DimKey}, budget: 20},
		{name: "no dimensions", dims: nil, budget: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Dims: tc.dims, Zone: zone(t, "America/New_York")}
			runs := &memRuns{}
			whole, spilled := pricedTwice(t, cat, opts, func(o *Options) { o.Runs, o.MaxGroups, o.Outputs = runs.store, tc.budget, tc.outputs }, calls, func(e *Engine) {
				if tc.anew {
					e.table.keepValues = 0
				}
			})
			if tc.compacts && spilled.runs.written() <= spilled.runs.max {
				t.Fatalf("%d runs written: none merged", spilled.runs.written())
			}
			want, got := whole.Reconcile(), spilled.Reconcile()
			gs := sameGroups(t, got, want)
			for _, r := range []struct {
				what string
				rec  *Reconciliation
			}{{"streamed", got}, {"listed", want}} {
				n := 0
				var err error
				for m, merr := range r.rec.GroupsWithMoney() {
					if err = merr; err != nil {
						break
					}
					x := *m.Group
					x.Official, x.Recorded, x.Gap = m.Official.Decimal(), m.Recorded.Decimal(), m.Gap.Decimal()
					x.Ratio = decimal.NullDecimal{Decimal: m.Ratio.Decimal(), Valid: m.RatioValid}
					if w := &want.groups[n]; !sameGroup(&x, w) || x.Gap.String() != w.Gap.String() || x.Ratio.Decimal.String() != w.Ratio.Decimal.String() {
						t.Fatalf("%s group %d with its money:\ngot  %+v\nwant %+v", r.what, n, x, *w)
					}
					n++
				}
				if err != nil || n != len(want.groups) {
					t.Fatalf("%s: %d groups with their money (%v), want %d", r.what, n, err, len(want.groups))
				}
			}
			sameTotals(t, got, want)
			if got.HasKeyAlias() != want.HasKeyAlias() {
				t.Errorf("key alias: got %v, want %v", got.HasKeyAlias(), want.HasKeyAlias())
			}
			// The reconciliation holds the runs past its engine's Close,
			// and lets go of them at its own.
			if err := spilled.Close(); err != nil {
				t.Fatal(err)
			}
			if again, err := Collect(got.Groups()); err != nil || len(again) != len(gs) {
				t.Fatalf("after the engine's Close: %d groups (%v), want %d", len(again), err, len(gs))
			}
			if err := got.Close(); err != nil {
				t.Fatal(err)
			}
			runs.check(t)
			if _, err := Collect(got.Groups()); !errors.Is(err, ErrClosed) {
				t.Errorf("groups read after Close: %v, want ErrClosed", err)
			}
			if _, err := Collect(spilled.Reconcile().Groups()); !errors.Is(err, ErrSpill) || !errors.Is(err, ErrClosed) {
				t.Errorf("groups of an engine closed: %v, want ErrSpill and ErrClosed", err)
			}
		})
	}
}

// sameGroups checks that got, streamed from an engine that spilled, has
// want's groups (listed, of an engine that did not), in order, and
// returns them.
func sameGroups(t *testing.T, got, want *Reconciliation) []Group {
	t.Helper()
	gs, err := Collect(got.Groups())
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != len(want.groups) {
		t.Fatalf("%d groups, want %d", len(gs), len(want.groups))
	}
	for i := range gs {
		if !sameGroup(&gs[i], &want.groups[i]) {
			t.Fatalf("group %d:\ngot  %+v\nwant %+v", i, gs[i], want.groups[i])
		}
	}
	return gs
}

// sameTotals checks got's totals, rows and explanations against want's.
func sameTotals(t *testing.T, got, want *Reconciliation) {
	t.Helper()
	if !got.Totals.Official.Equal(want.Totals.Official) || !got.Totals.Recorded.Equal(want.Totals.Recorded) ||
		got.Totals.Calls != want.Totals.Calls || got.Rows != want.Rows {
		t.Errorf("totals: got %+v %+v, want %+v %+v", got.Totals, got.Rows, want.Totals, want.Rows)
	}
	if len(got.Explanations) != len(want.Explanations) {
		t.Fatalf("%d explanations, want %d", len(got.Explanations), len(want.Explanations))
	}
	for i, x := range got.Explanations {
		if w := want.Explanations[i]; x.Kind != w.Kind || x.Model != w.Model || !x.Amount.Equal(w.Amount) || x.Detail != w.Detail {
			t.Errorf("explanation %d: got %+v, want %+v", i, x, w)
		}
	}
}

// pricedTwice prices calls in an engine of opts, held in memory, and in
// one of opts as spill changes them, made ready by prepare, and returns
// both; it fails the test when the second did not spill, or failed to.
func pricedTwice(t *testing.T, cat *tariffs.Catalog, opts Options, spill func(*Options), calls []ledger.Call, prepare ...func(*Engine)) (whole, spilled *Engine) {
	t.Helper()
	whole = New(cat, opts)
	spill(&opts)
	spilled = New(cat, opts)
	for _, p := range prepare {
		p(spilled)
	}
	for i := range calls {
		whole.AddPriced(&calls[i])
		spilled.AddPriced(&calls[i])
	}
	if err := spilled.Err(); err != nil {
		t.Fatal(err)
	}
	if spilled.runs.files() == 0 {
		t.Fatal("nothing spilled: the test checks too little")
	}
	return whole, spilled
}

// TestRunsWithinTheOpenFileLimit checks that an engine keeps the runs its
// store's budget of open files allows (extsort.MaxRuns).
func TestRunsWithinTheOpenFileLimit(t *testing.T) {
	// An engine asks its store at the first spill: 1,024 files, 128 runs.
	runs := &memRuns{limit: 1024}
	e := New(testCatalog(t), Options{Dims: []Dim{DimModel, DimKey, DimDay}, Runs: runs.store, MaxGroups: 4})
	defer e.Close()
	calls := randomCalls(rand.New(rand.NewPCG(26, 2)), 200)
	for i := range calls {
		e.AddPriced(&calls[i])
	}
	if e.runs.files() == 0 {
		t.Fatal("nothing spilled: the test checks too little")
	}
	if e.runs.max != 128 {
		t.Errorf("an engine whose store may open 1024 files keeps %d runs, want 128", e.runs.max)
	}
}

// TestRunRecordsOfTextsInTurn writes records whose texts come again, go
// empty, come back and change, each written as the last record's where
// the same, and checks each read back as written.
func TestRunRecordsOfTextsInTurn(t *testing.T) {
	rec := func(model, key, alias, tag string) groupSum {
		return groupSum{g: Group{Key: GroupKey{Model: model, Key: key, Tag: tag}, KeyAlias: alias, Currencies: []string{}, Calls: 1}}
	}
	recs := []groupSum{
		rec("m1", "k1", "a1", ""), rec("m2", "k1", "a1", ""), rec("m2", "k1", "", "x"), rec("m3", "k1", "a1", "x"),
		rec("m3", "k2", "a1", ""), rec("", "", "", ""), rec("m3", "k2", "a2", "x"), rec("m1", "k2", "a2", "x"),
		rec("m2", "k1", "a1", "x"), rec("m2", "k1", "a1", "x"),
	}
	read := writtenAndRead(t, AllDims(), recs)
	for i := range recs {
		got, want := read[i].done(), recs[i].done()
		if got.Key != want.Key || got.KeyAlias != want.KeyAlias {
			t.Errorf("record %d: got %+v alias %q, want %+v alias %q", i, got.Key, got.KeyAlias, want.Key, want.KeyAlias)
		}
	}
}

// TestRunRecordsOfNumbersInTurn writes records whose sums' exponents
// come again and change, whose priced calls are and are not their calls,
// and whose counts are each alone, and checks each read back as written.
func TestRunRecordsOfNumbersInTurn(t *testing.T) {
	rec := func(calls, priced int64, official, recorded ledger.Amount, count int) groupSum {
		s := groupSum{g: Group{Currencies: []string{}, Calls: calls, PricedCalls: priced}}
		s.official.Add(official)
		s.recorded.Add(recorded)
		if count >= 0 {
			*s.g.counts()[count] = int64(count + 1000)
		}
		return s
	}
	recs := []groupSum{
		rec(2, 2, ledger.NewAmount(5, -9), ledger.NewAmount(7, -12), -1),
		rec(2, 2, ledger.NewAmount(6, -9), ledger.NewAmount(8, -12), -1), // the same exponents
		rec(3, 1, ledger.NewAmount(6, -3), ledger.NewAmount(8, -12), -1), // another
		rec(0, 0, ledger.Amount{}, ledger.Amount{}, -1),
		rec(4, 0, ledger.NewAmount(6, -3), ledger.NewAmount(8, -12), -1), // the exponents of two records before
	}
	for i := range 14 {
		recs = append(recs, rec(1, 1, ledger.NewAmount(int64(i), -6), ledger.NewAmount(1, -6), i))
	}
	read := writtenAndRead(t, nil, recs)
	for i := range recs {
		got, want := read[i].done(), recs[i].done()
		if !sameGroup(&got, &want) || got.Official.Exponent() != want.Official.Exponent() || got.Recorded.Exponent() != want.Recorded.Exponent() {
			t.Errorf("record %d:\ngot  %+v\nwant %+v", i, got, want)
		}
	}
}

// writtenAndRead writes recs, groups by dims, to a run and returns them
// read back, failing the test unless each is.
func writtenAndRead(t *testing.T, dims []Dim, recs []groupSum) []groupSum {
	t.Helper()
	texts := &runTexts{} // the numbers of the texts, written and read
	codec := func() extsort.Codec[groupSum] { return newGroupCodec(time.UTC, nil, false, texts, dims) }
	_, runs := writeRecords(t, "run", codec, recs...)
	read, err := readRecords(runs)
	if err != nil || len(read) != len(recs) {
		t.Fatalf("read %d records, %v; want %d", len(read), err, len(recs))
	}
	return read
}

// TestSpillsAtADaysEnd prices a month of calls in time order with a
// budget of buckets never reached: the engine spills as a call opens a
// later day or hour once it holds slotSpill buckets, so that each group
// is in one run, whole, or in the buckets made since; the groups and
// totals are those of the engine that held every call. In time order
// nothing else would spill.
func TestSpillsAtADaysEnd(t *testing.T) {
	cat := testCatalog(t)
	calls := randomCalls(rand.New(rand.NewPCG(6, 12)), 3000)
	for i := range calls {
		calls[i].Start = calls[i].End // billed at either end, the same day
	}
	slices.SortStableFunc(calls, func(a, b ledger.Call) int { return a.End.Compare(b.End) })
	for _, dims := range [][]Dim{{DimModel, DimKey, DimDay}, {DimHour, DimKey}} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			opts := Options{Dims: dims, Zone: zone(t, "America/New_York")}
			whole := New(cat, opts)
			opts.Runs = (&memRuns{}).store
			spilled := New(cat, opts)
			spilled.table.slotSpill = 20
			for i := range calls {
				whole.AddPriced(&calls[i])
				spilled.AddPriced(&calls[i])
			}
			if err := spilled.Err(); err != nil {
				t.Fatal(err)
			}
			if n := spilled.runs.written(); n < 10 {
				t.Fatalf("%d runs written over 30 days: the engine did not spill at the days' ends", n)
			}
			// The index after a spill has room for the buckets of the
			// spill, not for the budget, which is never reached.
			var budget bucketTable
			budget.reserve(spilled.table.maxGroups)
			if n := len(spilled.table.buckets.slots); 16*n > len(budget.slots) {
				t.Errorf("an index of %d slots for %d buckets: sized for the budget of %d", n, spilled.table.buckets.len(), spilled.table.maxGroups)
			}
			live := 0
			c := spilled.spillCursor(spilled.liveBuckets())
			for s := (groupSum{}); c.next(&s, nil, 0); {
				live++
			}
			want, got := whole.Reconcile(), spilled.Reconcile()
			if written := spilled.runs.groups.Stats().Records; written+int64(live) != int64(len(want.groups)) {
				t.Errorf("%d records written and %d groups held for %d groups: a group was cut by a spill", written, live, len(want.groups))
			}
			sameGroups(t, got, want)
			sameTotals(t, got, want)
			if err := errors.Join(got.Close(), spilled.Close()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

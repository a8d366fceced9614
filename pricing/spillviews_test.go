package pricing

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/extsort"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/tariffs"
)

// viewCalls are random calls (every outcome, duplicates, unknown models)
// over many keys, teams, users and tags, some of another service tier or
// a region, which a blend leaves out.
func viewCalls(seed uint64, n int) []ledger.Call {
	rng := rand.New(rand.NewPCG(seed, 7))
	calls := randomCalls(rng, n)
	tags := []string{"", "", "batch", "batch" + ledger.TagSep + "eval", "eval", "prod" + ledger.TagSep + "search"}
	for i := range calls {
		c := &calls[i]
		c.Key = fmt.Sprintf("key-%03d", rng.IntN(150))
		c.KeyAlias = ""
		if rng.IntN(3) > 0 {
			c.KeyAlias = "alias-" + c.Key[4:]
		}
		c.Team = fmt.Sprintf("team-%d", rng.IntN(9))
		c.User = fmt.Sprintf("user-%d", rng.IntN(20))
		c.Tags = tags[rng.IntN(len(tags))]
		switch rng.IntN(30) {
		case 0:
			c.ServiceTier = ledger.TierPriority
		case 1:
			c.Region = "eu"
		}
	}
	return calls
}

// TestSpilledChargebackIsTheUnlimitedOne charges random calls back with
// budgets of buckets that make the engine spill from a few times to
// hundreds, and checks every line (its cost at the blended prices and its
// peak share among them), the gateway line and the blend against the same
// calls held in memory, without a spill.
func TestSpilledChargebackIsTheUnlimitedOne(t *testing.T) {
	cat := testCatalog(t)
	calls := viewCalls(27, 6000)
	from, until := at("2026-09-01T00:00:00Z"), at("2026-10-01T00:00:00Z")
	for _, tc := range []struct {
		name     string
		dims     []Dim
		budget   int
		compacts bool // spills more times than the engine keeps runs (spillRuns.max)
	}{
		{name: "key and day; past 256 runs", dims: []Dim{DimKey, DimDay}, budget: 20, compacts: true},
		{name: "team, user and model", dims: []Dim{DimTeam, DimUser, DimModel}, budget: 50},
		{name: "tag and key", dims: []Dim{DimTag, DimKey}, budget: 30},
		{name: "key", dims: []Dim{DimKey}, budget: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Dims: tc.dims, Since: from, Until: until, Zone: zone(t, "Asia/Shanghai")}
			runs := &memRuns{}
			whole, spilled := pricedTwice(t, cat, opts, func(o *Options) { o.Runs, o.Outputs, o.MaxGroups = runs.store, OutputChargeback, tc.budget }, calls)
			if tc.compacts && spilled.runs.written() <= spilled.runs.max {
				t.Fatalf("%d runs written: none merged", spilled.runs.written())
			}
			want, err := whole.Chargeback(from, until, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := spilled.Chargeback(from, until, nil)
			if err != nil {
				t.Fatal(err)
			}
			if streamed := got.stream != nil; streamed != !slices.Contains(tc.dims, DimTag) {
				t.Fatalf("lines streamed: %v; lines by tag are held, others past the budget streamed", streamed)
			}
			sameChargeback(t, got, want)
			if got.Rows != want.Rows {
				t.Errorf("rows: got %+v, want %+v", got.Rows, want.Rows)
			}
			// Streamed lines hold the runs past their engine's Close, and
			// let go of them at their own.
			if err := spilled.Close(); err != nil {
				t.Fatal(err)
			}
			sameChargeback(t, got, want)
			if err := got.Close(); err != nil {
				t.Fatal(err)
			}
			runs.check(t)
			if _, err := Collect(got.Lines()); !errors.Is(err, ErrClosed) {
				t.Errorf("lines read after Close: %v, want ErrClosed", err)
			}
		})
	}
}

// lineDiff names the first field in which two lines differ, money
// compared with Equal; "" when they are the same.
// sameChargeback checks chargeback got, its lines read as they stream,
// against want, listed: the same lines in the same order, the same
// gateway line and as many blended prices.
func sameChargeback(t *testing.T, got, want *Chargeback) {
	t.Helper()
	lines, err := Collect(got.Lines())
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(want.lines) || got.Len() != len(want.lines) {
		t.Fatalf("%d lines (Len %d), want %d", len(lines), got.Len(), len(want.lines))
	}
	for i := range lines {
		if d := lineDiff(&lines[i], &want.lines[i]); d != "" {
			t.Fatalf("line %d: %s\ngot  %+v\nwant %+v", i, d, lines[i], want.lines[i])
		}
	}
	if d := lineDiff(&got.Gateway, &want.Gateway); d != "" {
		t.Errorf("gateway: %s", d)
	}
	if len(got.BlendedPrice) != len(want.BlendedPrice) {
		t.Fatalf("%d blended prices, want %d", len(got.BlendedPrice), len(want.BlendedPrice))
	}
}

func lineDiff(a, b *ChargebackLine) string {
	money := []struct {
		name string
		x, y string
		eq   bool
	}{
		{"official", a.Official.String(), b.Official.String(), a.Official.Equal(b.Official)},
		{"recorded", a.Recorded.String(), b.Recorded.String(), a.Recorded.Equal(b.Recorded)},
		{"difference", a.Diff.String(), b.Diff.String(), a.Diff.Equal(b.Diff)},
		{"at blended", a.AtBlended.String(), b.AtBlended.String(), a.AtBlended.Equal(b.AtBlended)},
		{"subsidy", a.Subsidy.String(), b.Subsidy.String(), a.Subsidy.Equal(b.Subsidy)},
		{"peak share", a.PeakShare.Decimal.String(), b.PeakShare.Decimal.String(), a.PeakShare == b.PeakShare || a.PeakShare.Decimal.Equal(b.PeakShare.Decimal) && a.PeakShare.Valid == b.PeakShare.Valid},
		{"reasoning share", a.ReasoningShare.Decimal.String(), b.ReasoningShare.Decimal.String(), a.ReasoningShare.Decimal.Equal(b.ReasoningShare.Decimal) && a.ReasoningShare.Valid == b.ReasoningShare.Valid},
	}
	for _, m := range money {
		if !m.eq {
			return fmt.Sprintf("%s %s, want %s", m.name, m.x, m.y)
		}
	}
	switch {
	case a.Key != b.Key:
		return fmt.Sprintf("key %+v, want %+v", a.Key, b.Key)
	case a.KeyAlias != b.KeyAlias, a.Calls != b.Calls, a.Tokens != b.Tokens, a.CacheHitTokens != b.CacheHitTokens:
		return "alias, calls or tokens"
	}
	return ""
}

// TestSpilledMonthIsTheUnlimitedOne builds a month from random calls with
// budgets of buckets that make its engine (grouped by model, model group,
// host, key, team, user and day) spill many times, and checks every view
// against the month of the same calls held in memory: by model, key,
// team, tag and provider, by day and by model and day, the blend of its
// last 28 days and the totals.
func TestSpilledMonthIsTheUnlimitedOne(t *testing.T) {
	cat := testCatalog(t)
	calls := viewCalls(28, 6000)
	from, until := at("2026-09-01T00:00:00Z"), at("2026-10-01T00:00:00Z")
	for _, tc := range []struct {
		name     string
		budget   int
		tags     bool
		compacts bool // spills more times than the engine keeps runs (spillRuns.max)
		// outputs are those the engine is told of: 0 keeps them all (a
		// spill collapses after its run), the groups alone as report asks
		// (each bucket collapsed as the run reads it).
		outputs Outputs
	}{
		{name: "past 256 runs", budget: 20, compacts: true},
		{name: "past 256 runs; groups alone", budget: 20, compacts: true, outputs: OutputGroups},
		{name: "with tags", budget: 200, tags: true},
		{name: "with tags; groups alone", budget: 200, tags: true, outputs: OutputGroups},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dims := MonthDims
			if tc.tags {
				dims = append(append([]Dim{}, dims...), DimTag)
			}
			opts := Options{Dims: dims, Since: from, Until: until, Zone: time.UTC}
			runs := &memRuns{}
			whole, spilled := pricedTwice(t, cat, opts, func(o *Options) { o.Runs, o.MaxGroups, o.Outputs = runs.store, tc.budget, tc.outputs }, calls)
			if tc.compacts && spilled.runs.written() <= spilled.runs.max {
				t.Fatalf("%d runs written: none merged", spilled.runs.written())
			}
			want, err := MonthOf(whole, from, until, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := MonthOf(spilled, from, until, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.ByKey) < 100 || (tc.tags && len(want.ByTag) < 3) {
				t.Fatalf("%d keys, %d tags: the test checks too little", len(want.ByKey), len(want.ByTag))
			}
			for _, v := range []struct {
				name      string
				got, want []Group
			}{
				{"by model", got.ByModel, want.ByModel}, {"by key", got.ByKey, want.ByKey}, {"by team", got.ByTeam, want.ByTeam},
				{"by tag", got.ByTag, want.ByTag}, {"by provider", got.ByProvider, want.ByProvider}, {"daily", got.Daily, want.Daily},
				{"by model and day", got.ModelDaily, want.ModelDaily}, {"by model (reconciliation)", got.Reconciliation.groups, want.Reconciliation.groups},
			} {
				if len(v.got) != len(v.want) {
					t.Errorf("%s: %d groups, want %d", v.name, len(v.got), len(v.want))
					continue
				}
				for i := range v.got {
					if !sameGroup(&v.got[i], &v.want[i]) {
						t.Errorf("%s, group %d:\ngot  %+v\nwant %+v", v.name, i, v.got[i], v.want[i])
						break
					}
				}
			}
			if len(got.Blend.Models) != len(want.Blend.Models) {
				t.Fatalf("blend: %d models, want %d", len(got.Blend.Models), len(want.Blend.Models))
			}
			for i, m := range got.Blend.Models {
				w := want.Blend.Models[i]
				if m.Model != w.Model || m.Calls != w.Calls || !m.Official.Equal(w.Official) || !m.AtBlended.Equal(w.AtBlended) {
					t.Errorf("blend of %s: got %+v, want %+v", w.Model, m, w)
				}
			}
			if gt, wt := got.Reconciliation.Totals, want.Reconciliation.Totals; !gt.Official.Equal(wt.Official) || !gt.Recorded.Equal(wt.Recorded) || gt.Calls != wt.Calls {
				t.Errorf("totals: got %+v, want %+v", gt, wt)
			}
			if err := spilled.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRunBlendPartsRoundTrip writes a group's blend parts to a run and
// reads them back: each model's quantities, the cost of the calls the
// blend leaves out past int64, and a model the catalog does not have as
// an error naming the run.
func TestRunBlendPartsRoundTrip(t *testing.T) {
	cat := testCatalog(t)
	flash := cat.Model("flash")
	if flash == nil {
		t.Fatal("no model flash in the test catalog")
	}
	var own ExactSum
	own.Add(ledger.AmountOf(dec("9223372036854775807")))
	own.Add(ledger.AmountOf(dec("0.000000000001")))
	tests := []struct {
		name    string
		parts   blendParts
		wantErr bool
	}{
		{name: "none"},
		{name: "a model and a cost left out", parts: blendParts{models: []blendPart{{model: flash, qty: Quantities{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}}, own: own}},
		{name: "a model the catalog lacks", parts: blendParts{models: []blendPart{{model: &tariffs.Model{ID: "gone"}}}}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			texts := &runTexts{} // the numbers of the texts, written and read
			codec := func() extsort.Codec[groupSum] { return newGroupCodec(time.UTC, cat, true, texts, AllDims()) }
			_, runs := writeRecords(t, "lines", codec, groupSum{g: Group{Key: GroupKey{Key: "k"}}, blend: tc.parts})
			read, err := readRecords(runs)
			if tc.wantErr {
				if len(read) > 0 || !errors.Is(err, ErrSpill) || !strings.Contains(err.Error(), "lines-000000") {
					t.Fatalf("got %d records, %v; want ErrSpill naming the run", len(read), err)
				}
				return
			}
			if len(read) != 1 || err != nil {
				t.Fatalf("read %d records, %v; want 1", len(read), err)
			}
			got := read[0]
			if len(got.blend.models) != len(tc.parts.models) {
				t.Fatalf("%d models, want %d", len(got.blend.models), len(tc.parts.models))
			}
			for i, m := range got.blend.models {
				if w := tc.parts.models[i]; m.model != w.model || m.qty != w.qty {
					t.Errorf("part %d: got %s %v, want %s %v", i, m.model.ID, m.qty, w.model.ID, w.qty)
				}
			}
			if g, w := got.blend.own.Value(), tc.parts.own.Value(); !g.Equal(w) {
				t.Errorf("cost left out: got %s, want %s", g, w)
			}
		})
	}
}

package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
	"github.com/tokenfare/tokenfare/tariffs"
)

// oddRows are rows the database cannot split plainly: the mapper reads
// or rejects them one by one, in both modes.
const oddRows = `
INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
	"startTime", "endTime", model, model_group, metadata) VALUES
 ('odd-negative-cached', 'acompletion', 'k1', 0.001, 100, 10, '2026-10-05 03:00:00', '2026-10-05 03:00:02',
	'deepseek-flash', 'deepseek-flash', '{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": -5}}}'),
 ('odd-string-count', 'acompletion', 'k1', 0.002, 100, 10, '2026-10-05 03:01:00', '2026-10-05 03:01:02',
	'deepseek-flash', 'deepseek-flash', '{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": "40"}}}'),
 ('odd-cached-exceeds', 'acompletion', 'k1', 0.003, 100, 10, '2026-10-05 03:02:00', '2026-10-05 03:02:02',
	'deepseek-flash', 'deepseek-flash', '{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 400}}}'),
 ('odd-nan-spend', 'acompletion', 'k1', 'NaN', 100, 10, '2026-10-05 03:03:00', '2026-10-05 03:03:02',
	'deepseek-flash', 'deepseek-flash', '{}'),
 ('odd-leading-zero', 'acompletion', 'k1', 0.004, 100, 10, '2026-10-05 03:04:00', '2026-10-05 03:04:02',
	'deepseek-flash', 'deepseek-flash', '{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": "0040"}}}')`

// hostRows are calls of one model name served by different hosts: the
// push-down must keep them apart as the rows are (an Azure call is never
// OpenAI's), deciding the host from the same columns, and price each at
// its host's list.
const hostRows = `
INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
	"startTime", "endTime", model, model_group, custom_llm_provider, api_base, metadata) VALUES
 ('host-azure', 'acompletion', 'k1', 0.01, 1000, 100, '2026-10-06 03:00:00', '2026-10-06 03:00:02',
	'gpt-4o', 'gpt-4o', 'azure', 'https://myco.openai.azure.com/', '{}'),
 ('host-azure-base', 'acompletion', 'k1', 0.02, 1000, 100, '2026-10-06 03:00:10', '2026-10-06 03:00:12',
	'gpt-4o', 'gpt-4o', NULL, 'https://myco.azure-api.net/openai', '{}'),
 ('host-openai', 'acompletion', 'k1', 0.0035, 1000, 100, '2026-10-06 03:00:20', '2026-10-06 03:00:22',
	'gpt-4o', 'gpt-4o', 'openai', 'https://api.openai.com/v1', '{}'),
 ('host-github', 'acompletion', 'k1', 0.03, 1000, 100, '2026-10-06 03:00:30', '2026-10-06 03:00:32',
	'gpt-4o', 'gpt-4o', NULL, 'https://models.github.ai/inference', '{}'),
 ('host-groq', 'acompletion', 'k1', 0.005, 1000, 100, '2026-10-06 03:00:40', '2026-10-06 03:00:42',
	'gpt-4o', 'gpt-4o', 'groq', 'https://api.groq.com/openai/v1', '{}'),
 ('host-azure-eu', 'acompletion', 'k1', 1.045, 200000, 50000, '2026-10-06 03:00:50', '2026-10-06 03:00:54',
	'azure/my-gpt4o-eu', 'gpt-4o', 'azure', 'https://contoso-eu.openai.azure.com/',
	'{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 40000}},
	  "model_map_information": {"model_map_key": "azure/eu/gpt-4o-2024-11-20", "model_map_value": {"input_cost_per_token": 2.75e-06}}}'),
 ('host-azure-eu-nokey', 'acompletion', 'k1', 0.95, 200000, 50000, '2026-10-06 03:01:00', '2026-10-06 03:01:04',
	'azure/my-gpt4o-eu', 'gpt-4o', 'azure', 'https://contoso-eu.openai.azure.com/',
	'{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": 40000}}}'),
 ('host-azure-eu-text', 'acompletion', 'k1', 0.95, 200000, 50000, '2026-10-06 03:01:10', '2026-10-06 03:01:14',
	'azure/my-gpt4o-eu', 'gpt-4o', 'azure', NULL, '{"model_map_information": "azure/eu/gpt-4o"}'),
 ('host-azure-eu-number', 'acompletion', 'k1', 0.95, 200000, 50000, '2026-10-06 03:01:20', '2026-10-06 03:01:24',
	'azure/my-gpt4o-eu', 'gpt-4o', 'azure', NULL, '{"model_map_information": {"model_map_key": 7}}'),
 ('host-bedrock-arn', 'acompletion', 'k1', 0.495, 100000, 10000, '2026-10-06 03:01:30', '2026-10-06 03:01:33',
	'bedrock/arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/ab12cd34ef56', 'claude-sonnet', 'bedrock', NULL,
	'{"model_map_information": {"model_map_key": "us.anthropic.claude-sonnet-4-6"}}')`

var allDims = []pricing.Dim{pricing.DimModel, pricing.DimHost, pricing.DimKey, pricing.DimTeam, pricing.DimUser, pricing.DimDay, pricing.DimPeriod, pricing.DimVersion}

func engineOf(t testing.TB, since, until time.Time) (*pricing.Engine, pricing.Options) {
	t.Helper()
	cat, probs := tariffs.Load("")
	if len(probs.Errors()) > 0 {
		t.Fatal(probs)
	}
	opts := byAllDims(since, until)
	return pricing.New(cat, opts), opts
}

// byAllDims are the options of engineOf: every dimension, days of
// Asia/Shanghai, the window since to until.
func byAllDims(since, until time.Time) pricing.Options {
	zone, _ := time.LoadLocation("Asia/Shanghai")
	return pricing.Options{Dims: allDims, Zone: zone, Since: since, Until: until}
}

// priceRows prices the rows of every database, one call at a time.
func priceRows(t testing.TB, e *pricing.Engine, opts Options, urls ...string) {
	t.Helper()
	for _, u := range urls {
		calls, rejected := readDB(t, u, opts)
		for i := range calls {
			e.AddPriced(&calls[i])
		}
		for range rejected {
			e.Reject()
		}
	}
}

// pricePushDown prices what every database summed, and its odd rows.
func pricePushDown(t testing.TB, e *pricing.Engine, opts Options, po pricing.Options, urls ...string) {
	t.Helper()
	cat, _ := tariffs.Load("")
	ctx := context.Background()
	for _, u := range urls {
		src, err := New(u, opts)
		if err != nil {
			t.Fatal(err)
		}
		bounds := func(first, last time.Time) []time.Time {
			return pricing.AggregateBoundaries(cat, po, first.Add(-time.Nanosecond), last.Add(24*time.Hour))
		}
		ao := AggregateOptions{Boundaries: bounds, Billing: tariffs.BillEnd, TierBounds: pricing.TierBounds(cat), ByKey: true, ByTeam: true, ByUser: true,
			ByTags: slices.Contains(po.Dims, pricing.DimTag)}
		odd, err := src.Aggregate(ctx, ao, func(a *ledger.Aggregate) error { return e.AddAggregate(a, tariffs.BillEnd) })
		if err != nil {
			t.Fatal(err)
		}
		if odd == nil {
			continue
		}
		calls, rejected := readAll(t, func(b *ledger.Batch) error { return odd.Next(ctx, b) })
		odd.Close()
		for i := range calls {
			e.AddPriced(&calls[i])
		}
		for range rejected {
			e.Reject()
		}
	}
}

// pushDownEqualsRows prices the database at url row by row and pushed
// down, alike by po and opts, and fails (naming what) when the two
// reconciliations differ. It returns the two engines, for the caller's
// checks of their rows.
func pushDownEqualsRows(t testing.TB, url, what string, po pricing.Options, opts Options) (rows, sums *pricing.Engine) {
	t.Helper()
	cat, _ := tariffs.Load("")
	rows, sums = pricing.New(cat, po), pricing.New(cat, po)
	priceRows(t, rows, opts, url)
	pricePushDown(t, sums, opts, po, url)
	if got, want := reconciled(t, sums), reconciled(t, rows); got != want {
		t.Errorf("%s: push-down differs from rows:\n%s", what, firstDiff(got, want))
	}
	return rows, sums
}

func reconciled(t testing.TB, e *pricing.Engine) string {
	t.Helper()
	b, err := json.MarshalIndent(e.Reconcile(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPushDownEqualsRows prices the sample month with its odd rows by
// rows and by push-down, on one database and split across two: the same
// reconciliation to the last digit, every row accounted for.
func TestPushDownEqualsRows(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	one := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	one.LoadDump(t, sampleDump)
	one.LoadDump(t, shapesDump)
	one.LoadDump(t, modifiersDump)
	one.Exec(t, oddRows)
	one.Exec(t, hostRows)
	a, b := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent), pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	for _, db := range []*pgtest.DB{a, b} {
		db.LoadDump(t, sampleDump)
		db.LoadDump(t, shapesDump)
		db.LoadDump(t, modifiersDump)
		db.Exec(t, oddRows)
		db.Exec(t, hostRows)
	}
	a.Exec(t, `DELETE FROM "LiteLLM_SpendLogs" WHERE hashtext(request_id) % 2 = 0`)
	b.Exec(t, `DELETE FROM "LiteLLM_SpendLogs" WHERE hashtext(request_id) % 2 <> 0`)

	since := time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC)
	until := time.Date(2026, 10, 20, 16, 0, 0, 0, time.UTC)
	tests := []struct {
		name         string
		since, until time.Time
	}{
		{"whole table", time.Time{}, time.Time{}},
		{"window", since, until},
	}
	var wholeRead int64
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Since: tt.since, Until: tt.until}
			rows, _ := engineOf(t, tt.since, tt.until)
			priceRows(t, rows, opts, one.URL)
			want := reconciled(t, rows)
			r := rows.Rows()
			if r.Priced < 500 || r.Rejected != 4 {
				t.Fatalf("rows: %+v, want hundreds priced and 4 rejected (negative, exceeding and zero-led counts, NaN spend)", r)
			}
			// The embedded catalog has Azure OpenAI's and GitHub Models'
			// lists: each host's gpt-4o calls are priced by its own list.
			// A host no list prices: unpriced, explained by host.
			if !strings.Contains(want, "no tariff for host groq: 1 call(s), 0.005 recorded") {
				t.Errorf("rows: the groq call is not explained by host:\n%s", want)
			}
			// The price entry LiteLLM used is tried first: the EU
			// deployment, logged under its own name, at the data-zone
			// list; the Bedrock application profile at its us. profile's.
			for _, id := range []string{`"azure-gpt-4o-global"`, `"github-gpt-4o"`, `"gpt-4o"`, `"azure-gpt-4o-datazone"`, `"bedrock-claude-sonnet-4-6-regional"`} {
				if !strings.Contains(want, id) {
					t.Errorf("rows: no %s among the models, the hosts' calls are not kept apart:\n%s", id, want)
				}
			}
			if !tt.since.IsZero() && r.Read >= wholeRead {
				t.Errorf("the window read %d rows, the whole table %d", r.Read, wholeRead)
			}
			wholeRead = r.Read
			for _, c := range []struct {
				name string
				urls []string
			}{
				{"one database", []string{one.URL}},
				{"two databases", []string{a.URL, b.URL}},
			} {
				e, po := engineOf(t, tt.since, tt.until)
				pricePushDown(t, e, opts, po, c.urls...)
				if got := reconciled(t, e); got != want {
					t.Errorf("%s: push-down differs from rows:\n%s", c.name, firstDiff(got, want))
				}
			}
		})
	}
}

// TestPushDownOddRows: the sums name each odd row by its request id and
// the odd rows are fetched by those ids; past maxOddIDs of them, by a second
// scan of the window. Both equal row mode, with the window's edge between
// an odd row and the plain ones.
func TestPushDownOddRows(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	db.LoadDump(t, shapesDump)
	db.LoadDump(t, modifiersDump)
	db.Exec(t, oddRows)
	since, until := time.Date(2026, 10, 5, 3, 1, 30, 0, time.UTC), time.Date(2026, 10, 28, 0, 0, 0, 0, time.UTC)
	opts := Options{Since: since, Until: until}
	rows, _ := engineOf(t, since, until)
	priceRows(t, rows, opts, db.URL)
	want := reconciled(t, rows)
	// Of the five odd rows of 03:00 to 03:04, the three billed after the
	// window's start are read, and the mapper refuses them.
	if r := rows.Rows(); r.Rejected != 3 || r.Priced < 500 {
		t.Fatalf("rows: %+v, want hundreds priced and 3 odd rows rejected", r)
	}
	defer func(n, share, sample int) { maxOddIDs, oddShareByID, oddSample = n, share, sample }(maxOddIDs, oddShareByID, oddSample)
	for _, tt := range []struct {
		name               string
		max, share, sample int
		byID               bool
	}{
		{"by request id", 1 << 20, 5, 8192, true},
		{"by request id, past the most ids", 1, 5, 8192, true},
		// One in five rows odd, or more: one group per stretch, then a
		// second scan.
		{"flagged, by the window", 1 << 20, 1 << 20, 8192, false},
		// A sample of 64 rows (a quarter of them odd), scaled to the
		// window's hundreds of rows, names more odd rows than 2.
		{"by request id, a sample of 64", 1 << 20, 2, 64, true},
		{"flagged, past the most ids in the estimate", 2, 2, 64, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			maxOddIDs, oddShareByID, oddSample = tt.max, tt.share, tt.sample
			if got := choiceOf(t, db.URL, opts); got != tt.byID {
				t.Fatalf("odd rows by request id: %v, want %v", got, tt.byID)
			}
			e, po := engineOf(t, since, until)
			pricePushDown(t, e, opts, po, db.URL)
			if got := reconciled(t, e); got != want {
				t.Errorf("push-down differs from rows:\n%s", firstDiff(got, want))
			}
			if got, want := e.Rows(), rows.Rows(); got != want {
				t.Errorf("rows %+v, want %+v", got, want)
			}
		})
	}
}

// testSession opens a read-only session on the database at url, closed
// at the test's end.
func testSession(t testing.TB, url string, opts Options) *session {
	t.Helper()
	src, err := New(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := src.begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.close() })
	return ss
}

// choiceOf is whether the summing query names odd rows by request id.
func choiceOf(t *testing.T, url string, opts Options) bool {
	t.Helper()
	ctx := context.Background()
	ss := testSession(t, url, opts)
	from, until, err := ss.window(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID, err := ss.oddByID(ctx, from, until)
	if err != nil {
		t.Fatal(err)
	}
	return byID
}

// firstDiff shows where two texts part.
func firstDiff(a, b string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			lo := max(0, i-400)
			return a[lo:min(len(a), i+200)] + "\n--- want ---\n" + b[lo:min(len(b), i+200)]
		}
	}
	return "one is a prefix of the other"
}

// TestPushDownAnyInstant: a window edge at 00:00:30 and a zone half an
// hour off UTC are boundaries like any other: push-down still equals rows.
func TestPushDownAnyInstant(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	// Two calls in the minute of the window's start, one ending before it.
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
	"startTime", "endTime", model, model_group, metadata) VALUES
 ('edge-before', 'acompletion', 'k1', 0.001, 100, 10, '2026-10-03 00:00:10', '2026-10-03 00:00:20', 'deepseek-flash', 'deepseek-flash', '{}'),
 ('edge-after', 'acompletion', 'k1', 0.002, 100, 10, '2026-10-03 00:00:20', '2026-10-03 00:00:40', 'deepseek-flash', 'deepseek-flash', '{}')`)
	since, until := time.Date(2026, 10, 3, 0, 0, 30, 0, time.UTC), time.Date(2026, 10, 9, 7, 17, 45, 123456000, time.UTC)
	india, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	for _, dims := range [][]pricing.Dim{allDims, {pricing.DimModel, pricing.DimHour, pricing.DimKey}} {
		po := pricing.Options{Dims: dims, Zone: india, Since: since, Until: until}
		rows, _ := pushDownEqualsRows(t, db.URL, fmt.Sprintf("by %v", dims), po, Options{Since: since, Until: until})
		if r := rows.Rows(); r.Priced < 100 || r.Outside == 0 {
			t.Errorf("by %v: rows %+v, want some priced and some outside the window", dims, r)
		}
	}
}

// TestPushDownRefusesStraddle: boundaries that miss a tariff switch leave
// a group across it, which AddAggregate refuses rather than misprice.
func TestPushDownRefusesStraddle(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	e, _ := engineOf(t, time.Time{}, time.Time{})
	src, err := New(db.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Aggregate(context.Background(), AggregateOptions{Billing: tariffs.BillEnd},
		func(a *ledger.Aggregate) error { return e.AddAggregate(a, tariffs.BillEnd) })
	if !errors.Is(err, pricing.ErrNotExact) {
		t.Errorf("err = %v, want ErrNotExact", err)
	}
}

// TestPushDownTags: request tags that are a list of strings are summed by
// tag set; any other value (an element that is no string, a list inside
// the list, a string or an object for the list) makes the row odd, read
// by the mapper as in row mode. By tags, push-down equals rows.
func TestPushDownTags(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
	"startTime", "endTime", model, model_group, metadata, request_tags) VALUES
 ('tags-plain', 'acompletion', 'k1', 0.001, 100, 10, '2026-10-07 03:00:00', '2026-10-07 03:00:02', 'deepseek-flash', 'deepseek-flash', '{}', '["team:a", "env:prod"]'),
 ('tags-plain-again', 'acompletion', 'k1', 0.002, 200, 20, '2026-10-07 03:00:10', '2026-10-07 03:00:12', 'deepseek-flash', 'deepseek-flash', '{}', '["env:prod", "team:a"]'),
 ('tags-null', 'acompletion', 'k1', 0.003, 300, 30, '2026-10-07 03:00:20', '2026-10-07 03:00:22', 'deepseek-flash', 'deepseek-flash', '{}', 'null'),
 ('tags-number', 'acompletion', 'k1', 0.004, 400, 40, '2026-10-07 03:00:30', '2026-10-07 03:00:32', 'deepseek-flash', 'deepseek-flash', '{}', '["team:a", 7]'),
 ('tags-null-element', 'acompletion', 'k1', 0.005, 500, 50, '2026-10-07 03:00:40', '2026-10-07 03:00:42', 'deepseek-flash', 'deepseek-flash', '{}', '[null]'),
 ('tags-nested', 'acompletion', 'k1', 0.006, 600, 60, '2026-10-07 03:00:50', '2026-10-07 03:00:52', 'deepseek-flash', 'deepseek-flash', '{}', '[["team:a"]]'),
 ('tags-string', 'acompletion', 'k1', 0.007, 700, 70, '2026-10-07 03:01:00', '2026-10-07 03:01:02', 'deepseek-flash', 'deepseek-flash', '{}', '"team:a"'),
 ('tags-object', 'acompletion', 'k1', 0.008, 800, 80, '2026-10-07 03:01:10', '2026-10-07 03:01:12', 'deepseek-flash', 'deepseek-flash', '{}', '{"team": "a"}'),
 ('tags-second-number', 'acompletion', 'k1', 0.009, 900, 90, '2026-10-07 03:01:20', '2026-10-07 03:01:22', 'deepseek-flash', 'deepseek-flash', '{}', '["team:a", false]'),
 ('tags-three', 'acompletion', 'k1', 0.010, 1000, 100, '2026-10-07 03:01:30', '2026-10-07 03:01:32', 'deepseek-flash', 'deepseek-flash', '{}', '["team:a", "env:prod", "app:x"]'),
 ('tags-third-object', 'acompletion', 'k1', 0.011, 1100, 110, '2026-10-07 03:01:40', '2026-10-07 03:01:42', 'deepseek-flash', 'deepseek-flash', '{}', '["team:a", "env:prod", {}]'),
 ('tags-empty', 'acompletion', 'k1', 0.012, 1200, 120, '2026-10-07 03:01:50', '2026-10-07 03:01:52', 'deepseek-flash', 'deepseek-flash', '{}', '[]')`)
	cat, _ := tariffs.Load("")
	po := pricing.Options{Dims: []pricing.Dim{pricing.DimModel, pricing.DimTag, pricing.DimKey}}
	rows, sums := pricing.New(cat, po), pricing.New(cat, po)
	priceRows(t, rows, Options{}, db.URL)
	pricePushDown(t, sums, Options{}, po, db.URL)
	want := reconciled(t, rows)
	if got := reconciled(t, sums); got != want {
		t.Errorf("by tags: push-down differs from rows:\n%s", firstDiff(got, want))
	}
	if !strings.Contains(want, "env:prod") || !strings.Contains(want, "app:x") {
		t.Errorf("rows: no group of the tags env:prod and team:a, or of the three tags:\n%s", want)
	}
}

// TestPushDownPlainTests: the plain-row test's shortcuts (the token
// counts matched by one pattern, the plain search before the cache-hit
// pattern, the status and call type compared as written before lowered)
// leave to the mapper exactly the rows it must read: push-down equals rows.
func TestPushDownPlainTests(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	row := func(id, callType, status, counts string) string {
		return fmt.Sprintf(`('%s', '%s', 'k1', 0.001, 100, 10, '2026-10-08 03:00:00', '2026-10-08 03:00:02', 'deepseek-flash', 'deepseek-flash', %s,
	'{"additional_usage_values": {"prompt_tokens_details": {"cached_tokens": %s}}}')`, id, callType, status, counts)
	}
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
	"startTime", "endTime", model, model_group, status, metadata) VALUES `+strings.Join([]string{
		row("count-number", "acompletion", "'success'", "40"),
		row("count-string", "acompletion", "'success'", `"40"`),
		row("count-two-in-one", "acompletion", "'success'", `"1 2"`),
		row("count-zeros", "acompletion", "'success'", `"0 0"`),
		row("count-leading-space", "acompletion", "'success'", `" 5"`),
		row("count-trailing-space", "acompletion", "'success'", `"5 "`),
		row("count-empty", "acompletion", "'success'", `""`),
		row("count-ten-digits", "acompletion", "'success'", "1234567890"),
		row("count-fraction", "acompletion", "'success'", "4.0"),
		row("status-upper", "acompletion", "'SUCCESS'", "1"),
		row("status-null", "acompletion", "NULL", "2"),
		row("batch-upper", "RETRIEVE_BATCH", "'success'", "3"),
		row("batch-async", "aretrieve_batch", "'success'", "4"),
		row("batch-like-length", "acompletion_xyz", "'success'", "5"),
		row("x_cache_hit1", "acompletion", "'success'", "6"),
		row("x_cache_hitz", "acompletion", "'success'", "7"),
		row("status-failed", "acompletion", "'Failed'", "8"),
		row("status-failure", "acompletion", "'failure'", "9"),
	}, ",\n"))
	for _, dims := range [][]pricing.Dim{allDims, {pricing.DimModel}} {
		rows, sums := pushDownEqualsRows(t, db.URL, fmt.Sprintf("by %v", dims), pricing.Options{Dims: dims}, Options{})
		if got, want := sums.Rows(), rows.Rows(); got != want {
			t.Errorf("by %v: rows %+v, want %+v", dims, got, want)
		}
	}
}

// TestWindowWidenedByKnown: the window before Since is widened by the
// longest call started in the day before it: Known's when the table holds
// as many rows started then as Known says, else the table's own.
func TestWindowWidenedByKnown(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	// A call of four and a half hours, started in the day before Since.
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
	"startTime", "endTime", model, model_group, metadata) VALUES
 ('long-call', 'acompletion', 'k1', 0.01, 100, 10, '2026-10-09 20:00:00', '2026-10-10 00:30:00', 'deepseek-flash', 'deepseek-flash', '{}')`)
	since := time.Date(2026, 10, 10, 0, 0, 0, 0, time.UTC)
	day := since.Add(-24 * time.Hour)
	var rows int64
	err := db.Connect(t).QueryRow(context.Background(), `SELECT count(*) FROM "LiteLLM_SpendLogs" WHERE "startTime" >= $1 AND "startTime" < $2`, day, since).Scan(&rows)
	if err != nil || rows < 2 {
		t.Fatalf("rows of the day before: %d, %v", rows, err)
	}
	const byTable, byKnown = "2026-10-09 19:29:59", "2026-10-09 23:49:59"
	for _, tt := range []struct {
		name  string
		known *ledger.Known
		want  string
	}{
		{"nothing known", nil, byTable},
		{"as many rows", &ledger.Known{From: day, Until: since, Rows: rows, Longest: 10 * time.Minute}, byKnown},
		{"a row more in the table", &ledger.Known{From: day, Until: since, Rows: rows - 1, Longest: 10 * time.Minute}, byTable},
		{"another span", &ledger.Known{From: day.Add(time.Hour), Until: since, Rows: rows, Longest: 10 * time.Minute}, byTable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ss := testSession(t, db.URL, Options{Since: since, Known: tt.known})
			from, _, err := ss.window(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if from != tt.want {
				t.Errorf("window from %s, want %s", from, tt.want)
			}
		})
	}
}

// TestPushDownExactNames: metadata members named in another case than
// LiteLLM's, at the top level and nested, are unknown members in row mode
// as in the summing query, which looks names up exactly; a name spelled
// with an escape is the name. Push-down equals rows, and row mode reads
// none of the odd-case members.
func TestPushDownExactNames(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	row := func(id, meta string) string {
		return fmt.Sprintf(`('%s', 'acompletion', 'k1', 0.001, 1000, 100, '2026-10-08 04:00:00', '2026-10-08 04:00:02', 'deepseek-flash', 'deepseek-flash', 'success', '%s')`, id, meta)
	}
	db.Exec(t, `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
	"startTime", "endTime", model, model_group, status, metadata) VALUES `+strings.Join([]string{
		row("case-usage", `{"Additional_Usage_Values": {"prompt_tokens_details": {"cached_tokens": 400}}}`),
		row("case-details", `{"additional_usage_values": {"Prompt_Tokens_Details": {"cached_tokens": 400}, "completion_tokens_details": {"Reasoning_Tokens": 50}}}`),
		row("case-count", `{"additional_usage_values": {"prompt_tokens_details": {"Cached_Tokens": 400, "cached_tokens": 100, "CACHE_CREATION_TOKENS": 7}}}`),
		row("case-shapes", `{"additional_usage_values": {"Input_Tokens": 900, "Cache_Read_Input_Tokens": 300, "Server_Tool_Use": {"web_search_requests": 2}, "Service_Tier": "flex"}}`),
		row("case-kinds", `{"additional_usage_values": {"INPUT_TOKENS": true, "Server_Tool_Use": [1]}, "Error_Information": "boom"}`),
		row("case-labels", `{"User_Api_Key_Alias": "shouty", "USER_API_KEY_TEAM_ALIAS": "loud", "user_api_key_Team_id": "t-9", "Model_Map_Information": {"model_map_key": "gpt-4o"}}`),
		row("case-escaped", `{"additional_usage_values": {"prompt_tokens_\u0064etails": {"cached_\u0074okens": 300}}, "user_api_key_\u0061lias": "quiet"}`),
	}, ",\n"))
	calls, rejected := readDB(t, db.URL, Options{})
	if len(rejected) != 0 {
		t.Errorf("rejected %v", rejected)
	}
	want := map[string]ledger.Tokens{
		"case-usage":   {Input: 1000, Output: 100},
		"case-details": {Input: 1000, Output: 100},
		"case-count":   {Input: 900, CacheRead: 100, Output: 100},
		"case-shapes":  {Input: 1000, Output: 100},
		"case-kinds":   {Input: 1000, Output: 100},
		"case-labels":  {Input: 1000, Output: 100},
		"case-escaped": {Input: 700, CacheRead: 300, Output: 100},
	}
	seen := 0
	for _, c := range calls {
		w, ok := want[c.RequestID]
		if !ok {
			continue
		}
		seen++
		if c.Tokens != w || c.Tools != (ledger.ToolUses{}) || c.ServiceTier != ledger.TierStandard {
			t.Errorf("%s: tokens %+v, tools %v, tier %v; want %+v, none, standard", c.RequestID, c.Tokens, c.Tools, c.ServiceTier, w)
		}
		if c.KeyAlias == "shouty" || c.Team == "loud" || c.Team == "t-9" || c.PriceKey != "" {
			t.Errorf("%s: key alias %q, team %q, price key %q read from members in another case", c.RequestID, c.KeyAlias, c.Team, c.PriceKey)
		}
		if c.RequestID == "case-escaped" && c.KeyAlias != "quiet" {
			t.Errorf("%s: key alias %q, want quiet", c.RequestID, c.KeyAlias)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d calls read", seen, len(want))
	}
	for _, dims := range [][]pricing.Dim{allDims, {pricing.DimModel}} {
		rows, sums := pushDownEqualsRows(t, db.URL, fmt.Sprintf("by %v", dims), pricing.Options{Dims: dims}, Options{})
		if got, want := sums.Rows(), rows.Rows(); got != want {
			t.Errorf("by %v: rows %+v, want %+v", dims, got, want)
		}
	}
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/internal/pgtest"
	"github.com/tokenfare/tokenfare/pricing"
)

// totalsOf runs reconcile -o json with args and returns its calls,
// tokens (summed over the groups) and recorded spend, and its rows.
func totalsOf(t *testing.T, args ...string) (countedJSON, pricing.Rows) {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{"reconcile", "-o", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("reconcile %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	var doc struct {
		Rows   pricing.Rows
		Totals struct {
			Calls    int64
			Recorded string
		}
		Groups []struct{ Tokens map[string]int64 }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	got := countedJSON{Calls: doc.Totals.Calls, Recorded: mustDecimal(t, doc.Totals.Recorded), Tokens: map[string]int64{}}
	for _, g := range doc.Groups {
		for k, v := range g.Tokens {
			got.Tokens[k] += v
		}
	}
	return got, doc.Rows
}

// csvLines returns a CSV file's header and rows, one row a line.
func csvLines(t *testing.T, path string) (header string, rows []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	return lines[0], lines[1:]
}

// writeRows writes a header and rows into a new file of dir.
func writeRows(t *testing.T, dir, name, header string, rows []string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(header+"\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// overlapping cuts rows into two exports that share a tenth of them:
// the first 55 % and the last 55 %, as two \copy windows that overlap.
func overlapping(rows []string) (first, second []string, shared int) {
	n := len(rows)
	return rows[:n*55/100], rows[n*45/100:], n*55/100 - n*45/100
}

// TestRepeatsCountOnceHoweverPackaged reads the bundled sample, which
// holds rows written twice, as one file and as two exports overlapping by
// a tenth: every packaging gives the one file's calls, tokens and recorded
// spend, and rows.duplicate counts every repeat.
func TestRepeatsCountOnceHoweverPackaged(t *testing.T) {
	for _, path := range []string{sample, sampleDump} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			header, rows := csvLines(t, path)
			want, wantRows := totalsOf(t, "--calls", path)
			a, b, shared := overlapping(rows)
			dir := t.TempDir()
			got, gotRows := totalsOf(t, "--calls", writeRows(t, dir, "a.csv", header, a), "--calls", writeRows(t, dir, "b.csv", header, b))
			if !got.equal(want) {
				t.Errorf("two overlapping files: %v; one file: %v", got, want)
			}
			if gotRows.Read != wantRows.Read+int64(shared) || gotRows.Duplicate != wantRows.Duplicate+int64(shared) {
				t.Errorf("two files: rows %+v; want the one file's %+v plus %d read and duplicate", gotRows, wantRows, shared)
			}
		})
	}
}

// oneTableCanHold drops the rows whose request id an earlier row has at
// another start: a second call under a reused id, which a file keeps as a
// call of its own but one LiteLLM table cannot hold (request_id is its
// primary key), so that a file and a database of the same rows agree.
func oneTableCanHold(t *testing.T, header string, rows []string) []string {
	t.Helper()
	id, start := -1, -1
	for i, h := range strings.Split(header, ",") {
		switch h {
		case "request_id":
			id = i
		case "startTime":
			start = i
		}
	}
	if id < 0 || start < 0 {
		t.Fatal("no request_id or startTime column")
	}
	first := map[string]string{}
	var out []string
	for _, r := range rows {
		f := strings.Split(r, ",")
		if s, ok := first[f[id]]; ok && s != f[start] {
			continue
		}
		first[f[id]] = f[start]
		out = append(out, r)
	}
	return out
}

// TestRepeatsCountOnceFileAndDatabase loads the first 55 % of a sample
// into a LiteLLM database (the first copy of a repeated request id, as
// LiteLLM's primary key keeps it) and gives the last 55 % as a file: the
// run counts what the whole sample as one file counts, and so does the
// database holding all of it. The flat sample's cache and reasoning
// columns are no column of the table: its tokens are compared in total.
func TestRepeatsCountOnceFileAndDatabase(t *testing.T) {
	for _, tc := range []struct {
		path    string
		buckets bool // the table keeps the token buckets
	}{{sample, false}, {sampleDump, true}} {
		path := tc.path
		t.Run(filepath.Base(path), func(t *testing.T) {
			header, rows := csvLines(t, path)
			rows = oneTableCanHold(t, header, rows)
			dir := t.TempDir()
			want, wantRows := totalsOf(t, "--calls", writeRows(t, dir, "whole.csv", header, rows))
			a, b, shared := overlapping(rows)
			db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
			db.LoadDumpFrom(t, strings.NewReader(header+"\n"+strings.Join(a, "\n")+"\n"))
			got, gotRows := totalsOf(t, "--calls", writeRows(t, dir, "b.csv", header, b), "--db", db.URL)
			t.Logf("one file: %v; file and database: %v", want, got)
			if !tc.buckets {
				got, want = inTotal(got), inTotal(want)
			}
			if !got.equal(want) {
				t.Errorf("file and database: %v; one file: %v", got, want)
			}
			if gotRows.Priced != wantRows.Priced || gotRows.Failed != wantRows.Failed || gotRows.Unpriced != wantRows.Unpriced {
				t.Errorf("file and database: rows %+v; one file %+v: want the same calls priced, failed and unpriced", gotRows, wantRows)
			}
			// The table kept one copy of the repeats in the first part.
			if gotRows.Read-gotRows.Duplicate != wantRows.Read-wantRows.Duplicate || gotRows.Duplicate < int64(shared) {
				t.Errorf("file and database: rows %+v; one file %+v: want as many distinct rows, %d shared among the duplicates", gotRows, wantRows, shared)
			}
			whole := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
			whole.LoadDumpFrom(t, strings.NewReader(header+"\n"+strings.Join(rows, "\n")+"\n"))
			if got, _ := totalsOf(t, "--db", whole.URL); !tc.buckets && !inTotal(got).equal(want) || tc.buckets && !got.equal(want) {
				t.Errorf("the database of every row: %v; one file: %v", got, want)
			}
		})
	}
}

// inTotal returns c with its tokens in one sum, reasoning within output.
func inTotal(c countedJSON) countedJSON {
	var n int64
	for k, v := range c.Tokens {
		if k != "reasoning" {
			n += v
		}
	}
	c.Tokens = map[string]int64{"all": n}
	return c
}

// TestRepeatsHandWorked writes three calls of 0.001, 0.002 and 0.004
// recorded, packaged with repeats in one file, across two files and both:
// the recorded spend is 0.007 every time, and rows.duplicate counts each
// copy past the first.
func TestRepeatsHandWorked(t *testing.T) {
	header, rows := csvLines(t, sample)
	at := map[string]int{}
	for i, h := range strings.Split(header, ",") {
		at[h] = i
	}
	var r [3]string
	for i, spend := range []string{"0.001", "0.002", "0.004"} {
		f := strings.Split(rows[i], ",")
		f[at["spend"]], f[at["status"]] = spend, "success"
		r[i] = strings.Join(f, ",")
	}
	tests := []struct {
		name      string
		files     [][]string
		duplicate int64
	}{
		{name: "no repeat", files: [][]string{{r[0], r[1], r[2]}}},
		{name: "repeats in one file", files: [][]string{{r[0], r[1], r[1], r[2], r[0]}}, duplicate: 2},
		{name: "two overlapping files", files: [][]string{{r[0], r[1]}, {r[1], r[2]}}, duplicate: 1},
		{name: "repeats within and across files", files: [][]string{{r[0], r[0], r[1]}, {r[1], r[2], r[2]}, {r[0]}}, duplicate: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var args []string
			for i, f := range tt.files {
				args = append(args, "--calls", writeRows(t, dir, string(rune('a'+i))+".csv", header, f))
			}
			got, rows := totalsOf(t, args...)
			if got.Calls != 3 || !got.Recorded.Equal(mustDecimal(t, "0.007")) || rows.Duplicate != tt.duplicate {
				t.Errorf("calls %d, recorded %s, duplicate rows %d; want 3, 0.007, %d", got.Calls, got.Recorded, rows.Duplicate, tt.duplicate)
			}
		})
	}
}

// TestConflictingCopiesExplained writes one call twice with another spend
// the second time: the first copy counts, and the explanation gives both.
func TestConflictingCopiesExplained(t *testing.T) {
	header, rows := csvLines(t, sample)
	at := map[string]int{}
	for i, h := range strings.Split(header, ",") {
		at[h] = i
	}
	f := strings.Split(rows[0], ",")
	f[at["spend"]], f[at["status"]] = "0.001", "success"
	first := strings.Join(f, ",")
	f[at["spend"]] = "0.003"
	path := writeRows(t, t.TempDir(), "c.csv", header, []string{first, strings.Join(f, ",")})
	code, out, errs := runCLI(t, "", "reconcile", "--calls", path, "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Totals       struct{ Recorded string }
		Explanations []struct {
			Kind   string
			Calls  int64
			Copies *struct {
				Recorded      string
				FirstRecorded string `json:"first_recorded"`
				Examples      []struct {
					RequestID string `json:"request_id"`
					First     struct{ Recorded string }
					Repeat    struct{ Recorded string }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Totals.Recorded != "0.001" {
		t.Errorf("recorded %s, want 0.001 (the first copy)", doc.Totals.Recorded)
	}
	id := f[at["request_id"]]
	for _, x := range doc.Explanations {
		if x.Kind != "conflicting_copies" {
			continue
		}
		c := x.Copies
		if x.Calls != 1 || c == nil || c.Recorded != "0.003" || c.FirstRecorded != "0.001" || len(c.Examples) != 1 ||
			c.Examples[0].RequestID != id || c.Examples[0].First.Recorded != "0.001" || c.Examples[0].Repeat.Recorded != "0.003" {
			t.Errorf("conflicting_copies %+v: want 1 repeat of %s, first 0.001, repeat 0.003", x, id)
		}
		return
	}
	t.Errorf("no conflicting_copies explanation in %s", out)
}

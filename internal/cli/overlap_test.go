package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/tokenfare/tokenfare/reports"
)

// splitDaily cuts the sample month into one file per UTC day, each also
// holding the last hour of the day before, as daily exports that overlap
// by an hour do. It returns the glob of the files and how many rows appear
// in two of them.
func splitDaily(t *testing.T) (glob string, overlap int) {
	t.Helper()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	header := strings.Split(lines[0], ",")
	col := -1
	for i, h := range header {
		if h == "startTime" {
			col = i
		}
	}
	if col < 0 {
		t.Fatal("the sample has no startTime column")
	}
	days := map[string][]string{}
	for _, line := range lines[1:] {
		start, err := time.Parse("2006-01-02 15:04:05.000", strings.Split(line, ",")[col])
		if err != nil {
			t.Fatalf("sample row %q: %v", line, err)
		}
		day := start.Format(time.DateOnly)
		days[day] = append(days[day], line)
		if next := start.Add(time.Hour).Format(time.DateOnly); next != day && next < "2026-11-01" {
			days[next] = append(days[next], line)
			overlap++
		}
	}
	dir := t.TempDir()
	for day, rows := range days {
		body := lines[0] + "\n" + strings.Join(rows, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, "spendlogs-"+day+".csv"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "spendlogs-*.csv"), overlap
}

// countedJSON is what every output of a run must agree on.
type countedJSON struct {
	Calls    int64
	Tokens   map[string]int64
	Recorded decimal.Decimal
}

func (c countedJSON) String() string {
	return fmt.Sprintf("calls %d, tokens %v, recorded %s", c.Calls, c.Tokens, c.Recorded)
}

// folded returns c with reasoning tokens counted in output only, as the
// FOCUS export counts them where a tariff does not price them apart.
func (c countedJSON) folded() countedJSON {
	f := c
	f.Tokens = map[string]int64{}
	for k, v := range c.Tokens {
		if k != "reasoning" {
			f.Tokens[k] = v
		}
	}
	return f
}

func (c countedJSON) equal(o countedJSON) bool {
	if c.Calls != o.Calls || !c.Recorded.Equal(o.Recorded) || len(c.Tokens) != len(o.Tokens) {
		return false
	}
	for k, v := range c.Tokens {
		if o.Tokens[k] != v {
			return false
		}
	}
	return true
}

// countedOf runs one command and returns its calls, tokens and recorded
// spend over the whole month.
func countedOf(t *testing.T, calls, command string) countedJSON {
	t.Helper()
	month := []string{"--calls", calls, "--month", "2026-10"}
	run := func(args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, "", args...)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		return out
	}
	var got countedJSON
	switch command {
	case "reconcile":
		var doc struct {
			Totals struct {
				Calls    int64
				Recorded string
			}
			Groups []struct {
				Tokens map[string]int64
			}
		}
		if err := json.Unmarshal([]byte(run(append([]string{"reconcile", "-o", "json"}, month...)...)), &doc); err != nil {
			t.Fatal(err)
		}
		got = countedJSON{Calls: doc.Totals.Calls, Recorded: mustDecimal(t, doc.Totals.Recorded), Tokens: map[string]int64{}}
		for _, g := range doc.Groups {
			for k, v := range g.Tokens {
				got.Tokens[k] += v
			}
		}
	case "chargeback":
		var doc struct {
			Gateway struct {
				Calls    int64
				Tokens   map[string]int64
				Recorded string
			}
		}
		if err := json.Unmarshal([]byte(run(append([]string{"chargeback", "--by", "team", "-o", "json"}, month...)...)), &doc); err != nil {
			t.Fatal(err)
		}
		got = countedJSON{Calls: doc.Gateway.Calls, Tokens: doc.Gateway.Tokens, Recorded: mustDecimal(t, doc.Gateway.Recorded)}
	case "price":
		// A consumer of per-call lines counts the calls, tokens and
		// recorded spend of every line but duplicates and overlaps
		// (docs/calls.md).
		got = countedJSON{Recorded: decimal.Zero, Tokens: map[string]int64{}}
		dec := json.NewDecoder(strings.NewReader(run(append([]string{"price", "-o", "json"}, month...)...)))
		for dec.More() {
			var row map[string]any
			if err := dec.Decode(&row); err != nil {
				t.Fatal(err)
			}
			if o := row["outcome"]; o == "overlap" || o == "duplicate" {
				continue
			}
			got.Calls++
			for _, k := range []string{"input", "cache_read", "cache_write", "cache_write_1h", "output", "reasoning"} {
				if n, ok := row[k].(float64); ok { // cache_write_1h only when the call has some
					got.Tokens[k] += int64(n)
				}
			}
			got.Recorded = got.Recorded.Add(mustDecimal(t, row["recorded"].(string)))
		}
	case "focus", "workbook":
		dir := t.TempDir()
		focus, xlsx := filepath.Join(dir, "focus.csv"), filepath.Join(dir, "month.xlsx")
		run(append([]string{"report", "--xlsx", xlsx, "--focus", focus}, month...)...)
		if command == "focus" {
			return focusCounted(t, focus)
		}
		return workbookCounted(t, xlsx)
	default:
		t.Fatalf("no command %s", command)
	}
	return got
}

// focusCounted adds up a FOCUS export's calls (x_Calls), tokens (x_Tokens
// by x_UsageType, reasoning within output) and recorded spend
// (x_RecordedCost) over every row, Usage and Adjustment alike.
func focusCounted(t *testing.T, path string) countedJSON {
	t.Helper()
	got := countedJSON{Recorded: decimal.Zero, Tokens: map[string]int64{}}
	for _, r := range readFOCUS(t, path) {
		got.Calls += mustInt(t, r["x_Calls"])
		got.Recorded = got.Recorded.Add(mustDecimal(t, r["x_RecordedCost"]))
		switch u := r["x_UsageType"]; {
		case r["x_Tokens"] == "": // calls or uses of a tool
		case u == "reasoning":
			got.Tokens["output"] += mustInt(t, r["x_Tokens"])
		default:
			got.Tokens[u] += mustInt(t, r["x_Tokens"])
		}
	}
	return got
}

// workbookCounted reads the By model sheet's rows back with excelize and
// adds up their calls, tokens and recorded spend; the Total row must say
// the same.
func workbookCounted(t *testing.T, path string) countedJSON {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet := reports.SheetByModel
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	n := len(rows) - 3 // caption, header, total row
	cols := map[string]string{"input": "Input tokens", "cache_read": "Cache read tokens", "cache_write": "Cache write tokens",
		"cache_write_1h": "Cache write 1h tokens", "output": "Output tokens", "reasoning": "of which reasoning"}
	got := countedJSON{Tokens: map[string]int64{}}
	for k, header := range cols {
		if v := sumColumn(t, f, sheet, column(t, f, sheet, header), n); !v.IsZero() {
			got.Tokens[k] = v.IntPart()
		}
	}
	calls, recorded := column(t, f, sheet, "Calls"), column(t, f, sheet, "Recorded spend")
	got.Calls = sumColumn(t, f, sheet, calls, n).IntPart()
	got.Recorded = sumColumn(t, f, sheet, recorded, n)
	total := itoa(3 + n)
	if c, r := rawDecimal(t, f, sheet, calls+total), rawDecimal(t, f, sheet, recorded+total); c.IntPart() != got.Calls || !r.Equal(got.Recorded) {
		t.Errorf("%s: Total row says %s calls, recorded %s; the rows add up to %d, %s", sheet, c, r, got.Calls, got.Recorded)
	}
	return got
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%q is not an integer: %v", s, err)
	}
	return n
}

// countingOutputs are the outputs of one run that must agree on calls,
// tokens and recorded spend.
var countingOutputs = []string{"reconcile", "chargeback", "price", "focus", "workbook"}

// agrees reports whether an output's figures equal reconcile's: the FOCUS
// export counts reasoning tokens within output.
func agrees(command string, got, want countedJSON) bool {
	if command == "focus" {
		return got.equal(want.folded())
	}
	return got.equal(want)
}

// TestOverlappingExportsCountOnce checks that daily exports overlapping by
// an hour give every output the figures of the one month file: a call read
// from two files counts once in calls, tokens and recorded spend.
func TestOverlappingExportsCountOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	daily, overlap := splitDaily(t)
	if overlap == 0 {
		t.Fatal("the daily files do not overlap")
	}
	want := countedOf(t, sample, "reconcile")
	for _, command := range countingOutputs {
		t.Run(command, func(t *testing.T) {
			if got := countedOf(t, sample, command); !agrees(command, got, want) {
				t.Errorf("one file: %s says %v, reconcile %v", command, got, want)
			}
			if got := countedOf(t, daily, command); !agrees(command, got, want) {
				t.Errorf("overlapping daily files: %s says %v, one file %v", command, got, want)
			}
		})
	}
	t.Run("rows", func(t *testing.T) {
		one, _ := reconcileRows(t, "--calls", sample, "--month", "2026-10")
		split, _ := reconcileRows(t, "--calls", daily, "--month", "2026-10")
		if split.Read != one.Read+int64(overlap) || split.Duplicate != one.Duplicate+int64(overlap) {
			t.Errorf("daily files: read %d, duplicate %d; want %d and %d (one file's, plus the %d rows in two files)",
				split.Read, split.Duplicate, one.Read+int64(overlap), one.Duplicate+int64(overlap), overlap)
		}
	})
	t.Run("report", func(t *testing.T) {
		reportRecorded := regexp.MustCompile(`recorded ([0-9.]+)`)
		focusOf := func(calls string) (line string, recorded decimal.Decimal) {
			dir := t.TempDir()
			focus := filepath.Join(dir, "focus.csv")
			code, out, errs := runCLI(t, "", "report", "--calls", calls, "--month", "2026-10",
				"--xlsx", filepath.Join(dir, "month.xlsx"), "--focus", focus)
			if code != exitOK {
				t.Fatalf("report: exit %d: %s", code, errs)
			}
			recorded = decimal.Zero
			for _, r := range readFOCUS(t, focus) {
				recorded = recorded.Add(mustDecimal(t, r["x_RecordedCost"]))
			}
			return out, recorded
		}
		oneLine, oneFocus := focusOf(sample)
		splitLine, splitFocus := focusOf(daily)
		m := reportRecorded.FindStringSubmatch(splitLine)
		if m == nil || !mustDecimal(t, m[1]).Equal(want.Recorded.Round(4)) {
			t.Errorf("report on daily files says %q; reconcile's recorded is %s", strings.TrimSpace(splitLine), want.Recorded)
		}
		figures := regexp.MustCompile(`official .*; wrote`)
		if a, b := figures.FindString(oneLine), figures.FindString(splitLine); a == "" || a != b {
			t.Errorf("report: one file %q, daily files %q", oneLine, splitLine)
		}
		if !oneFocus.Equal(splitFocus) {
			t.Errorf("FOCUS x_RecordedCost: one file %s, daily files %s", oneFocus, splitFocus)
		}
	})
}

// unpricedFailedDuplicate writes the sample's first rows with one call of
// a model no tariff knows, one failed call the gateway recorded spend on
// and one row logged twice, all three priced calls before; it returns the
// file, and one of the same rows unedited.
func unpricedFailedDuplicate(t *testing.T) (path, base string) {
	t.Helper()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	header := strings.Split(lines[0], ",")
	at := map[string]int{}
	for i, h := range header {
		at[h] = i
	}
	rows := lines[1:201]
	dir := t.TempDir()
	base = filepath.Join(dir, "spendlogs-base.csv")
	if err := os.WriteFile(base, []byte(lines[0]+"\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit := func(i int, set map[string]string) string {
		f := strings.Split(rows[i], ",")
		for k, v := range set {
			f[at[k]] = v
		}
		rows[i] = strings.Join(f, ",")
		return rows[i]
	}
	edit(10, map[string]string{"model": "acme-sonnet-9", "model_group": "acme-sonnet-9", "model_id": "acme-sonnet-9",
		"custom_llm_provider": "acme", "spend": "0.0123"})
	edit(20, map[string]string{"status": "failure", "spend": "0.0045"})
	rows = append(rows, edit(30, map[string]string{"spend": "0.0067"}))
	path = filepath.Join(dir, "spendlogs-edge.csv")
	if err := os.WriteFile(path, []byte(lines[0]+"\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, base
}

// TestEveryOutputCountsUnpricedFailedDuplicate checks that reconcile,
// chargeback, price, the FOCUS export and the workbook of one run agree on
// calls, tokens and recorded spend when the input holds a call no tariff
// prices, a failed call with spend and a row the gateway logged twice;
// and that those three are in the figures, the row written twice once:
// neither its second call nor its second spend.
func TestEveryOutputCountsUnpricedFailedDuplicate(t *testing.T) {
	path, base := unpricedFailedDuplicate(t)
	want := countedOf(t, path, "reconcile")
	// 201 rows: 200 calls (the row logged twice counts once).
	if want.Calls != 200 {
		t.Fatalf("reconcile counts %d calls, want 200", want.Calls)
	}
	rows, _ := reconcileRows(t, "--calls", path, "--month", "2026-10")
	was, _ := reconcileRows(t, "--calls", base, "--month", "2026-10")
	if rows.Read != 201 || rows.Unpriced != was.Unpriced+1 || rows.Failed != was.Failed+1 || rows.Duplicate != was.Duplicate+1 {
		t.Fatalf("rows %+v (unedited %+v): want 201 read, one more unpriced, failed and duplicate", rows, was)
	}
	for _, command := range countingOutputs {
		t.Run(command, func(t *testing.T) {
			if got := countedOf(t, path, command); !agrees(command, got, want) {
				t.Errorf("%s says %v, reconcile %v", command, got, want)
			}
		})
	}
	t.Run("focus adjustment rows", func(t *testing.T) {
		// The edited rows' spend is on Adjustment rows of their outcome,
		// beyond what the unedited rows hold there; the row written twice
		// is priced once and makes no Adjustment.
		adjusted := func(calls string) map[string]decimal.Decimal {
			focus := filepath.Join(t.TempDir(), "focus.csv")
			if code, _, errs := runCLI(t, "", "report", "--calls", calls, "--month", "2026-10", "--focus", focus); code != exitOK {
				t.Fatalf("report: exit %d: %s", code, errs)
			}
			spend := map[string]decimal.Decimal{}
			for _, r := range readFOCUS(t, focus) {
				if r["ChargeCategory"] == "Adjustment" {
					o := r["x_Outcome"]
					spend[o] = spend[o].Add(mustDecimal(t, r["x_RecordedCost"]))
				}
			}
			return spend
		}
		now, before := adjusted(path), adjusted(base)
		for o, w := range map[string]string{"unpriced": "0.0123", "failed": "0.0045", "duplicate": "0"} {
			if got := now[o].Sub(before[o]); !got.Equal(decimal.RequireFromString(w)) {
				t.Errorf("Adjustment rows of %s hold %s more recorded spend, want %s", o, got, w)
			}
		}
	})
}

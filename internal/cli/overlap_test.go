package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
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
		// A consumer of per-call lines counts the calls and tokens of every
		// line but duplicates and overlaps, and the recorded spend of every
		// line but overlaps (docs/calls.md).
		got = countedJSON{Recorded: decimal.Zero, Tokens: map[string]int64{}}
		dec := json.NewDecoder(strings.NewReader(run(append([]string{"price", "-o", "json"}, month...)...)))
		for dec.More() {
			var row map[string]any
			if err := dec.Decode(&row); err != nil {
				t.Fatal(err)
			}
			switch row["outcome"] {
			case "overlap":
				continue
			case "duplicate":
			default:
				got.Calls++
				for _, k := range []string{"input", "cache_read", "cache_write", "cache_write_1h", "output", "reasoning"} {
					if n, ok := row[k].(float64); ok { // cache_write_1h only when the call has some
						got.Tokens[k] += int64(n)
					}
				}
			}
			got.Recorded = got.Recorded.Add(mustDecimal(t, row["recorded"].(string)))
		}
	default:
		t.Fatalf("no command %s", command)
	}
	return got
}

// TestOverlappingExportsCountOnce checks that daily exports overlapping by
// an hour give every output the figures of the one month file: a call read
// from two files counts once in calls, tokens and recorded spend.
func TestOverlappingExportsCountOnce(t *testing.T) {
	daily, overlap := splitDaily(t)
	if overlap == 0 {
		t.Fatal("the daily files do not overlap")
	}
	want := countedOf(t, sample, "reconcile")
	for _, command := range []string{"reconcile", "chargeback", "price"} {
		t.Run(command, func(t *testing.T) {
			if got := countedOf(t, sample, command); !got.equal(want) {
				t.Errorf("one file: %s says %v, reconcile %v", command, got, want)
			}
			if got := countedOf(t, daily, command); !got.equal(want) {
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

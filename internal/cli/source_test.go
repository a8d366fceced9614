package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/pricing"
)

// canonicalHeader is the header of tokenfare's canonical call CSV.
const canonicalHeader = "request_id,start,first_token,end,model,status,recorded_spend,input_tokens,cache_read_tokens,cache_write_tokens,output_tokens,reasoning_tokens\n"

// canonicalRow is one deepseek-flash call of 1000 input and 100 output
// tokens that ends one second after start; firstToken may be empty.
func canonicalRow(id, start, firstToken string) string {
	s, err := time.Parse(time.RFC3339, start)
	if err != nil {
		panic(err)
	}
	end := s.Add(time.Second).Format(time.RFC3339)
	return fmt.Sprintf("%s,%s,%s,%s,deepseek-flash,success,0.001,1000,0,0,100,0\n", id, start, firstToken, end)
}

// writeFiles writes name → content under a new temporary folder.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// reconcileRows runs reconcile -o json and returns its row accounting.
func reconcileRows(t *testing.T, args ...string) (pricing.Rows, string) {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{"reconcile", "-o", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr: %s", code, errs)
	}
	var rec struct{ Rows pricing.Rows } // JSON's "rows": {"read": ...}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Rows, errs
}

// TestSeveralFiles reads daily exports of two formats in one run: each
// file's format is detected on its own, a call exported on two days is a
// duplicate, and every file is named in the accounting.
func TestSeveralFiles(t *testing.T) {
	const litellmHeader = "request_id,api_key,spend,prompt_tokens,completion_tokens,startTime,endTime,model,status\n"
	dir := writeFiles(t, map[string]string{
		"day/12.csv": litellmHeader +
			"r1,k1,0.001,1000,100,2026-10-12 02:00:00.000,2026-10-12 02:00:05.000,deepseek-flash,success\n" +
			"r2,k1,0.001,1000,100,2026-10-12 23:59:58.000,2026-10-12 23:59:59.000,deepseek-flash,success\n",
		"day/13.csv": litellmHeader +
			// r2 again: it spanned midnight in the exporter's eyes and is in both files
			"r2,k1,0.001,1000,100,2026-10-12 23:59:58.000,2026-10-12 23:59:59.000,deepseek-flash,success\n" +
			"r3,k1,0.001,1000,100,2026-10-13 09:00:00.000,2026-10-13 09:00:01.000,deepseek-flash,success\n",
		"day/13.jsonl": `{"request_id":"c1","start":"2026-10-13T10:00:00Z","model":"deepseek-flash","input_tokens":10,"output_tokens":1}` + "\n",
	})
	day := func(name string) string { return filepath.Join(dir, "day", name) }
	t.Run("a glob and a repeated flag", func(t *testing.T) {
		rows, errs := reconcileRows(t, "--calls", filepath.Join(dir, "day", "*.csv"), "--calls", day("13.jsonl"))
		// 2 + 2 + 1 rows; r2's second copy is a duplicate.
		if rows.Read != 5 || rows.Priced != 4 || rows.Duplicate != 1 {
			t.Errorf("rows = %+v, want 5 read, 4 priced, 1 duplicate", rows)
		}
		for _, want := range []string{
			"calls " + day("12.csv") + " (litellm-spendlogs-csv): read 2, priced 2,",
			"calls " + day("13.csv") + " (litellm-spendlogs-csv): read 2, priced 1, unpriced 0, retired 0, failed 0, duplicate 1,",
			"calls " + day("13.jsonl") + " (canonical-jsonl): read 1, priced 1,",
		} {
			if !strings.Contains(errs, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errs)
			}
		}
	})
	t.Run("a file named twice is read once", func(t *testing.T) {
		rows, errs := reconcileRows(t, "--calls", day("12.csv"), "--calls", filepath.Join(dir, "day", "1?.csv"))
		if rows.Read != 4 || rows.Duplicate != 1 {
			t.Errorf("rows = %+v, want 4 read (12.csv once), 1 duplicate", rows)
		}
		if !strings.Contains(errs, "is given more than once; it is read once") {
			t.Errorf("stderr does not note the repeated file:\n%s", errs)
		}
	})
	t.Run("cache hits count in each file's line", func(t *testing.T) {
		hits := writeFiles(t, map[string]string{"hits.csv": "request_id,api_key,spend,prompt_tokens,completion_tokens,startTime,endTime,model,status,cache_hit\n" +
			"h1,k1,0.001,1000,100,2026-10-14 02:00:00.000,2026-10-14 02:00:05.000,deepseek-flash,success,False\n" +
			"h2,k1,0.001,1000,100,2026-10-14 02:01:00.000,2026-10-14 02:01:05.000,deepseek-flash,success,True\n" +
			"h3,k1,0.001,1000,100,2026-10-14 02:02:00.000,2026-10-14 02:02:05.000,deepseek-flash,success,True\n"})
		_, errs := reconcileRows(t, "--calls", day("12.csv"), "--calls", filepath.Join(hits, "hits.csv"))
		// h1 priced, h2 and h3 answered from the gateway's cache: 1 + 2 = 3 read.
		want := "calls " + filepath.Join(hits, "hits.csv") + " (litellm-spendlogs-csv): read 3, priced 1, unpriced 0, retired 0, failed 0, duplicate 0, rejected 0, outside 0, cache hit 2\n"
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	})
	t.Run("one file keeps its stderr as before", func(t *testing.T) {
		_, errs := reconcileRows(t, "--calls", day("12.csv"))
		if strings.Contains(errs, "calls ") {
			t.Errorf("a single file should not get a per-file line:\n%s", errs)
		}
	})
}

// TestNothingPriced checks that a run pricing no call is a finding (exit
// 1) that says why, with the calls' span and what to pass.
func TestNothingPriced(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"header.csv":   canonicalHeader,
		"empty.csv":    "",
		"rejected.csv": canonicalHeader + "r1,yesterday,,,deepseek-flash,success,0,1,0,0,1,0\n",
		"hits.csv": "request_id,api_key,spend,prompt_tokens,completion_tokens,startTime,endTime,model,status,cache_hit\n" +
			"h1,k1,0.001,1000,100,2026-10-14 02:00:00.000,2026-10-14 02:00:05.000,mystery-model,success,False\n" +
			"h2,k1,0.001,1000,100,2026-10-14 02:01:00.000,2026-10-14 02:01:05.000,deepseek-flash,success,True\n" +
			"h3,k1,0.001,1000,100,2026-10-14 02:02:00.000,2026-10-14 02:02:05.000,deepseek-flash,success,True\n",
		"unknown.csv": strings.Replace(canonicalHeader+canonicalRow("r1", "2026-10-05T00:00:00Z", ""), "deepseek-flash", "mystery-model", 1),
	})
	tests := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"a header without rows", []string{"reconcile", "--calls", filepath.Join(dir, "header.csv")},
			[]string{"header.csv holds no calls"}},
		{"an empty file", []string{"reconcile", "--calls", filepath.Join(dir, "empty.csv")},
			[]string{"empty.csv holds no calls"}},
		{"every row rejected", []string{"price", "--calls", filepath.Join(dir, "rejected.csv")},
			[]string{"every one of the 1 row(s) read from", "rejected: "}},
		{"no tariff for the model", []string{"reconcile", "--calls", filepath.Join(dir, "unknown.csv")},
			[]string{"1 have no tariff", "tokenfare tariffs list"}},
		{"cache hits and no tariff", []string{"reconcile", "--calls", filepath.Join(dir, "hits.csv")},
			[]string{"of the 3 call(s) read from", "1 have no tariff, 0 a retired model, 0 failed, 0 are duplicates, 2 are cache hits, 0 outside the window"}},
		// The clock of runCLI says 2026-09-01: the default window is August, the sample October.
		{"blend's default --as-of before last month's export", []string{"blend", "--calls", sample},
			[]string{"in the window [2026-08-04T02:00:00Z, 2026-09-01T02:00:00Z)", "the calls are billed from 2026-10-01T", "to 2026-10-31T",
				"pass --as-of 2026-11-01"}},
		{"a window before the calls", []string{"reconcile", "--calls", sample, "--until", "2026-09-15"},
			[]string{"the calls are billed from 2026-10-01T", "pass --month 2026-10, or --since 2026-10-01 --until 2026-11-01"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tt.args...)
			if code != exitFindings {
				t.Fatalf("exit %d, want %d (findings)\nstderr: %s", code, exitFindings, errs)
			}
			if tt.args[0] != "price" && out != "" {
				t.Errorf("a run that prices nothing printed a report:\n%s", out)
			}
			for _, want := range append(tt.stderr, "Error: nothing priced") {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errs)
				}
			}
		})
	}
}

// TestMonthInBeijing prices a FinOps month in Beijing time (UTC+8): the
// month starts at 2026-09-30T16:00Z and ends at 2026-10-31T16:00Z.
func TestMonthInBeijing(t *testing.T) {
	calls := filepath.Join(writeFiles(t, map[string]string{"oct.csv": canonicalHeader +
		canonicalRow("a", "2026-09-30T16:30:00Z", "") + // 1 Oct 00:30 in Beijing; still September in UTC
		canonicalRow("b", "2026-10-15T00:00:00Z", "") + // October everywhere
		canonicalRow("c", "2026-10-31T16:30:00Z", "") + // 1 Nov 00:30 in Beijing; October in UTC
		canonicalRow("d", "2026-10-31T17:00:00Z", ""), // 1 Nov 01:00 in Beijing; October in UTC
	}), "oct.csv")
	tests := []struct {
		name            string
		args            []string
		priced, outside int64
	}{
		{"--month in Beijing", []string{"--month", "2026-10", "--tz", "Asia/Shanghai"}, 2, 2},                                // a, b
		{"bare dates in Beijing", []string{"--since", "2026-10-01", "--until", "2026-11-01", "--tz", "Asia/Shanghai"}, 2, 2}, // a, b
		{"--month in UTC", []string{"--month", "2026-10"}, 3, 1},                                                             // b, c, d
		{"an RFC 3339 instant keeps its own offset", []string{"--since", "2026-10-01T00:00:00+08:00", "--until", "2026-11-01T00:00:00Z", "--tz", "Asia/Shanghai"}, 4, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, _ := reconcileRows(t, append([]string{"--calls", calls}, tt.args...)...)
			if rows.Priced != tt.priced || rows.Outside != tt.outside {
				t.Errorf("priced %d, outside %d; want %d and %d", rows.Priced, rows.Outside, tt.priced, tt.outside)
			}
		})
	}
	t.Run("blend --month is the whole month", func(t *testing.T) {
		code, out, errs := runCLI(t, "", "blend", "--calls", calls, "--month", "2026-10", "--tz", "Asia/Shanghai", "-o", "json")
		if code != exitOK {
			t.Fatalf("exit %d\nstderr: %s", code, errs)
		}
		if !strings.Contains(out, `"from": "2026-09-30T16:00:00Z"`) || !strings.Contains(out, `"until": "2026-10-31T16:00:00Z"`) {
			t.Errorf("window is not October in Beijing:\n%.600s", out)
		}
	})
}

// TestFirstTokenFallbackIsCounted checks the note on calls billed at their
// start for want of a first-token time.
func TestFirstTokenFallbackIsCounted(t *testing.T) {
	calls := filepath.Join(writeFiles(t, map[string]string{"ft.csv": canonicalHeader +
		canonicalRow("a", "2026-10-05T00:00:00Z", "2026-10-05T00:00:00.5Z") +
		canonicalRow("b", "2026-10-05T01:00:00Z", "") +
		canonicalRow("c", "2026-10-05T02:00:00Z", ""),
	}), "ft.csv")
	_, errs := reconcileRows(t, "--calls", calls, "--billing-time", "first_token")
	if !strings.Contains(errs, "note: 2 call(s) billed at the first token have no first-token time; they are billed at their start") {
		t.Errorf("stderr lacks the count of the 2 calls without a first token:\n%s", errs)
	}
	if _, errs := reconcileRows(t, "--calls", calls); strings.Contains(errs, "first-token") {
		t.Errorf("billed at the end, no call falls back, yet:\n%s", errs)
	}
}

// TestMessages holds the messages a person running tokenfare first met,
// each with the exit code.
func TestMessages(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"semicolons.csv": "request_id;startTime;spend;prompt_tokens;completion_tokens\nr;2026-10-01 00:00:00;0,1;1;1\n",
	})
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		not    string // must not appear on stderr; "" checks nothing more
	}{
		{"a directory as --calls", []string{"reconcile", "--calls", dir}, exitUsage, "is a directory, not a file of calls", ""},
		{"a missing file names it once", []string{"reconcile", "--calls", "nope.csv"}, exitUsage, "read calls nope.csv: no such file or directory", "nope.csv: nope.csv"},
		{"a glob matching nothing", []string{"reconcile", "--calls", "nope/*.csv"}, exitUsage, `--calls "nope/*.csv" matches no file`, ""},
		{"a bad header names the file once", []string{"reconcile", "--calls", filepath.Join(dir, "semicolons.csv")}, exitUsage,
			"the header is separated by semicolons", "semicolons.csv: " + filepath.Join(dir, "semicolons.csv")},
		{"--fail-over with a percent sign", []string{"reconcile", "--calls", sample, "--fail-over", "5%"}, exitFindings, "is more than 5% of the official cost", "5%%"},
		{"--fail-over not a number", []string{"reconcile", "--calls", sample, "--fail-over", "five"}, exitUsage, `--fail-over "five" is not a percentage`, ""},
		{"--window 0", []string{"blend", "--calls", sample, "--window", "0"}, exitUsage, "--window 0 must be positive", "not a length of time"},
		{"--window 0d", []string{"blend", "--calls", sample, "--window", "0d"}, exitUsage, "--window 0d must be positive", ""},
		{"--window that wraps", []string{"blend", "--calls", sample, "--window", "200000d"}, exitUsage, "--window 200000d is longer than the 106751 days", ""},
		{"--window beyond a duration", []string{"blend", "--calls", sample, "--window", "9999999999h"}, exitUsage, "is longer than the 106751 days", ""},
		{"--as-of year 1", []string{"blend", "--calls", sample, "--as-of", "0001-01-01"}, exitUsage, "--as-of 0001-01-01 is before 1970", ""},
		{"--until year 1", []string{"price", "--calls", sample, "--until", "0001-01-01"}, exitUsage, "--until 0001-01-01 is before 1970", ""},
		{"--since after 2261", []string{"price", "--calls", sample, "--since", "2262-01-01"}, exitUsage, "--since 2262-01-01 is after 2261", ""},
		{"--month with --since", []string{"reconcile", "--calls", sample, "--month", "2026-10", "--since", "2026-10-01"}, exitUsage, "--month is given with --since", ""},
		{"a bad --month", []string{"reconcile", "--calls", sample, "--month", "October"}, exitUsage, `--month "October" is not a month`, ""},
		{"blend --month with --as-of", []string{"blend", "--calls", sample, "--month", "2026-10", "--as-of", "2026-11-01"}, exitUsage, "--month is given with --as-of", ""},
		{"an unknown subcommand", []string{"tariffs", "frob"}, exitUsage, `unknown command "frob" for "tokenfare tariffs"`, ""},
		{"tariffs show --at 1960", []string{"tariffs", "show", "deepseek-flash", "--at", "1960-01-01"}, exitUsage, "--at 1960-01-01 is before 1970", "no bound"},
		{"tariffs show --tz Local", []string{"tariffs", "show", "deepseek-flash", "--at", "2026-10-12", "--tz", "Local"}, exitUsage, `--tz "Local" is not an IANA time zone`, ""},
		{"stdin twice", []string{"reconcile", "--calls", "-", "--calls", "-"}, exitUsage, "stdin) is given twice", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tt.code, errs)
			}
			if !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errs)
			}
			if tt.not != "" && strings.Contains(errs, tt.not) {
				t.Errorf("stderr has %q:\n%s", tt.not, errs)
			}
		})
	}
}

// TestNothingWrittenBeforeInputOpens checks that price writes no CSV
// header when its input cannot be opened, nor when it holds no call.
func TestNothingWrittenBeforeInputOpens(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"price", "--calls", "nope.csv"}, exitUsage},
		{[]string{"price", "--calls", sample, "--calls", "nope.csv"}, exitUsage}, // the second is missing: nothing of the first is written
		{[]string{"price", "--calls", "-", "-o", "csv"}, exitFindings},           // empty stdin: no calls, nothing priced
	} {
		code, out, errs := runCLI(t, "", tt.args...)
		if code != tt.code || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want exit %d and nothing written\nstderr: %s", tt.args, code, out, tt.code, errs)
		}
	}
}

// failingWriter fails every write with err.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// TestOutputFailures checks that a full disk is an I/O failure (exit 2, no usage hint),
// not bad usage, and that a reader closing the pipe ends the run quietly.
func TestOutputFailures(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"disk full", syscall.ENOSPC, exitFailure, "Error: write output: no space left on device\n"},
		{"pipe closed", syscall.EPIPE, exitOK, ""},
	}
	for _, tt := range tests {
		for _, args := range [][]string{
			{"reconcile", "--calls", sample, "-o", "json"},
			{"price", "--calls", sample},
			{"blend", "--calls", sample, "--as-of", "2026-10-29"},
		} {
			t.Run(tt.name+" "+args[0], func(t *testing.T) {
				var errb bytes.Buffer
				a := &app{stdin: strings.NewReader(""), stdout: failingWriter{tt.err}, stderr: &errb,
					now: func() time.Time { return time.Date(2026, 9, 1, 2, 0, 0, 0, time.UTC) }}
				code := runContext(context.Background(), a, args)
				if code != tt.code {
					t.Errorf("exit %d, want %d\nstderr: %s", code, tt.code, errb.String())
				}
				errs := errb.String()
				if strings.Contains(errs, "Try: tokenfare --help") || !strings.HasSuffix(errs, tt.stderr) || (tt.stderr == "" && strings.Contains(errs, "Error")) {
					t.Errorf("stderr should end with %q and give no usage hint:\n%s", tt.stderr, errs)
				}
			})
		}
	}
}

// slowStdin hands out its data, then blocks like a quiet pipe until the
// test ends.
type slowStdin struct {
	data []byte
	quit chan struct{}
}

func (r *slowStdin) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		<-r.quit
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestInterrupt cancels the run's context while it waits for more input,
// as SIGINT does through Main: the run stops, writes nothing and exits 130.
func TestInterrupt(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"reconcile", "blend"} {
		t.Run(cmd, func(t *testing.T) {
			quit := make(chan struct{})
			defer close(quit)
			var out, errb bytes.Buffer
			a := &app{stdin: &slowStdin{data: data[:200_000], quit: quit}, stdout: &out, stderr: &errb, now: time.Now}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			start := time.Now()
			code := runContext(ctx, a, []string{cmd, "--calls", "-"})
			if code != exitInterrupted || out.Len() != 0 {
				t.Errorf("exit %d and %d bytes written; want %d and nothing\nstderr: %s", code, out.Len(), exitInterrupted, errb.String())
			}
			if !strings.Contains(errb.String(), "interrupted") {
				t.Errorf("stderr does not say the run was interrupted:\n%s", errb.String())
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the run took %v to stop", d)
			}
		})
	}
}

// TestClosedPipeStopsReading runs price on a stdin that hands out the
// sample month and then stays open, with a stdout whose reader has gone:
// the first line that cannot be written ends the run at once, exit 0 and
// nothing said, without waiting for the rest of the input.
func TestClosedPipeStopsReading(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	quit := make(chan struct{})
	defer close(quit)
	var errb bytes.Buffer
	a := &app{stdin: &slowStdin{data: data, quit: quit}, stdout: failingWriter{syscall.EPIPE}, stderr: &errb, now: time.Now}
	done := make(chan int, 1)
	go func() { done <- runContext(context.Background(), a, []string{"price", "--calls", "-"}) }()
	select {
	case code := <-done:
		if code != exitOK || strings.Contains(errb.String(), "Error") || strings.Contains(errb.String(), "rows:") {
			t.Errorf("exit %d, stderr %q; want exit 0, no error and no rows: line", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("price still reads stdin 10 s after its output failed")
	}
}

// brokenStdin fails with an I/O error after its data.
type brokenStdin struct{ data []byte }

func (r *brokenStdin) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, syscall.EIO
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestInputFailure checks that an input that fails mid-read is an I/O
// failure (exit 2, no usage hint) named with its source, not bad input.
func TestInputFailure(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	a := &app{stdin: &brokenStdin{data: data[:300_000]}, stdout: &out, stderr: &errb, now: time.Now}
	code := runContext(context.Background(), a, []string{"reconcile", "--calls", "-"})
	errs := errb.String()
	if code != exitFailure || out.Len() != 0 {
		t.Fatalf("exit %d, %d bytes written; want %d and nothing\nstderr: %s", code, out.Len(), exitFailure, errs)
	}
	if !strings.Contains(errs, "Error: read calls: stdin") || !strings.Contains(errs, "read failed: input/output error") || strings.Contains(errs, "Try:") {
		t.Errorf("stderr should name stdin and the I/O error, with no hint:\n%s", errs)
	}
}

// TestShowReadsBareDatesInTZ checks that tariffs show reads --at 2026-10-12
// as midnight in Beijing: 2026-10-11T16:00:00Z.
func TestShowReadsBareDatesInTZ(t *testing.T) {
	code, out, errs := runCLI(t, "", "tariffs", "show", "deepseek-flash", "--at", "2026-10-12", "--tz", "Asia/Shanghai")
	if code != exitOK || !strings.Contains(out, "at        2026-10-11T16:00:00Z:") {
		t.Errorf("exit %d, want 0 and the instant 2026-10-11T16:00:00Z\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

// TestEmptyFileAmongSeveral checks that an empty export among several
// (a day without calls) reads as zero rows and does not stop the run.
func TestEmptyFileAmongSeveral(t *testing.T) {
	dir := writeFiles(t, map[string]string{"2026-10-04.csv": ""})
	code, out, errs := runCLI(t, "", "reconcile", "--calls", filepath.Join(dir, "2026-10-04.csv"), "--calls", sample, "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr: %s", code, errs)
	}
	checkContains(t, "stderr", errs, "2026-10-04.csv (empty): read 0, priced 0")
	checkContains(t, "stdout", out, `"read": 12000`)
}

package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const sample = "../../testdata/sample/spendlogs-2026-10.csv"

// reconcileJSON is the part of reconcile's JSON contract the tests read.
type reconcileJSON struct {
	Rows   map[string]int64 `json:"rows"`
	Totals struct {
		Official  string `json:"official"`
		Gap       string `json:"gap"`
		Explained string `json:"explained"`
	} `json:"totals"`
}

// pricedJSON is the part of one line of price's JSON the tests read.
type pricedJSON struct {
	Outcome  string `json:"outcome"`
	Official string `json:"official"`
}

// TestReconcileAccountsForEveryRow checks the JSON contract on the sample:
// rows balance, and the explanations account for the gap.
func TestReconcileAccountsForEveryRow(t *testing.T) {
	code, out, errs := runCLI(t, "", "reconcile", "--calls", sample, "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rec reconcileJSON
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	r := rec.Rows
	sum := r["priced"] + r["unpriced"] + r["retired"] + r["failed"] + r["duplicate"] + r["rejected"] + r["outside"]
	if r["read"] != 12000 || sum != r["read"] {
		t.Errorf("rows = %v, want 12000 read, each counted once (the others add up to %d)", r, sum)
	}
	if r["duplicate"] == 0 || r["failed"] == 0 || r["unpriced"] == 0 {
		t.Errorf("the sample has duplicates, failures and an unknown model; rows = %v", r)
	}
	if rec.Totals.Explained != rec.Totals.Gap {
		t.Errorf("explained %s of a gap of %s", rec.Totals.Explained, rec.Totals.Gap)
	}
}

func TestSourceHandling(t *testing.T) {
	if testing.Short() {
		t.Skip("long: `make test-long` runs it")
	}
	data, err := os.ReadFile("testdata/calls/bad.csv")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // substring expected on stdout, or anyOutput
		stderr string // substring expected on stderr, or anyOutput
	}{
		{"bad row is counted and named", "", []string{"reconcile", "--calls", "testdata/calls/bad.csv", "-o", "json"}, exitOK,
			`"rejected": 1`, `testdata/calls/bad.csv:3: prompt_tokens "12x5" is not an integer`},
		{"strict fails at the bad row", "", []string{"reconcile", "--calls", "testdata/calls/bad.csv", "--strict"}, exitUsage,
			anyOutput, "testdata/calls/bad.csv:3: prompt_tokens"},
		{"stdin", string(data), []string{"price", "--calls", "-", "-o", "json"}, exitOK, `"request_id":"r3"`, "rejected: stdin:3"},
		{"gzip on stdin", gz.String(), []string{"reconcile", "--calls", "-", "-o", "json"}, exitOK, `"priced": 2`, anyOutput},
		{"missing file", "", []string{"reconcile", "--calls", "nope.csv"}, exitUsage, anyOutput, "read calls nope.csv: no such file or directory"},
		{"no source", "", []string{"reconcile"}, exitUsage, anyOutput, "give --calls FILE"},
		{"bad grouping", "", []string{"reconcile", "--calls", sample, "--by", "colour"}, exitUsage, anyOutput, `unknown grouping "colour"`},
		{"repeated grouping", "", []string{"reconcile", "--calls", sample, "--by", "model,model"}, exitUsage, anyOutput, `grouping "model" is given twice`},
		{"the machine's zone is refused", "", []string{"reconcile", "--calls", sample, "--by", "day", "--tz", "Local"}, exitUsage, anyOutput, "--tz"},
		{"bad zone", "", []string{"reconcile", "--calls", sample, "--by", "day", "--tz", "Mars/Base"}, exitUsage, anyOutput, "--tz"},
		{"drift beyond --fail-over", "", []string{"reconcile", "--calls", sample, "--fail-over", "5"}, exitFindings, anyOutput, "is more than 5% of the official cost"},
		{"drift within --fail-over", "", []string{"reconcile", "--calls", sample, "--fail-over", "50"}, exitOK, anyOutput, anyOutput},
		{"bad window", "", []string{"blend", "--calls", sample, "--window", "4w"}, exitUsage, anyOutput, `--window "4w"`},
		{"bad billing time", "", []string{"price", "--calls", sample, "--billing-time", "noon"}, exitUsage, anyOutput, "unknown billing time"},
		{"since after until", "", []string{"price", "--calls", sample, "--since", "2026-10-02", "--until", "2026-10-01"}, exitUsage, anyOutput, "is not before"},
		{"totals in two currencies are flagged", "", []string{"reconcile", "--calls", "testdata/calls/twocurrencies.csv", "--tariffs", "testdata/twocurrencies"}, exitOK,
			"EUR+USD", "warning: totals add up amounts in different currencies (EUR+USD)"},
		{"window of a price run", "", []string{"price", "--calls", sample, "--since", "2026-10-02", "--until", "2026-10-03", "-o", "csv"}, exitOK,
			"request_id,billed_at,model", "outside 11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tt.code, errs)
			}
			checkContains(t, "stdout", out, tt.stdout)
			checkContains(t, "stderr", errs, tt.stderr)
		})
	}
}

// TestPriceMatchesReconcile checks that per-call costs add up to the
// reconciliation's official total.
func TestPriceMatchesReconcile(t *testing.T) {
	code, out, errs := runCLI(t, "", "price", "--calls", sample, "-o", "json")
	if code != exitOK {
		t.Fatalf("price: exit %d: %s", code, errs)
	}
	total := decimalZero()
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var row pricedJSON
		if err := dec.Decode(&row); err != nil {
			t.Fatal(err)
		}
		if row.Outcome == "duplicate" {
			continue
		}
		total = total.Add(mustDecimal(t, row.Official))
	}
	code, out, errs = runCLI(t, "", "reconcile", "--calls", sample, "-o", "json")
	if code != exitOK {
		t.Fatalf("reconcile: exit %d: %s", code, errs)
	}
	var rec reconcileJSON
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	if !total.Equal(mustDecimal(t, rec.Totals.Official)) {
		t.Errorf("per-call costs add up to %s, reconcile says %s", total, rec.Totals.Official)
	}
}

// TestPriceWritesNothingBeforeInputOpens checks that a price run whose
// input cannot be read leaves stdout empty: `price > out.csv` must not
// leave a header-only file that reads as a month without calls.
func TestPriceWritesNothingBeforeInputOpens(t *testing.T) {
	for _, format := range []string{"csv", "table", "json"} {
		code, out, errs := runCLI(t, "", "price", "--calls", "testdata/calls/nope.csv", "-o", format)
		if code != exitUsage {
			t.Fatalf("-o %s: exit %d, want %d\nstderr: %s", format, code, exitUsage, errs)
		}
		if out != "" {
			t.Errorf("-o %s: stdout %q, want nothing", format, out)
		}
	}
}

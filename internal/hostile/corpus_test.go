//go:build unix

package hostile

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// sample is the bundled month of LiteLLM spend logs.
var sample, _ = filepath.Abs("../../testdata/sample/spendlogs-2026-10.csv")

// spendHeader is a LiteLLM_SpendLogs CSV header with the columns the
// cases use.
const spendHeader = "request_id,startTime,endTime,spend,prompt_tokens,completion_tokens,model,custom_llm_provider,api_key,key_alias,team_id,user\n"

// spendRow is one call of deepseek-flash (priced) with the given fields.
func spendRow(id, spend, model, alias, team, user string) string {
	return fmt.Sprintf("%s,2026-10-05 03:00:00,2026-10-05 03:00:01,%s,1000,200,%s,deepseek,sk-%s-0000,%s,%s,%s\n", id, spend, model, id, alias, team, user)
}

// v7Record is one CLIProxyAPI usage-queue record.
func v7Record(i int) string {
	return fmt.Sprintf(`{"timestamp":"2026-10-05T03:%02d:00Z","model":"deepseek-flash","request_id":"q%d","api_key":"sk-q","tokens":{"input_tokens":100,"output_tokens":10}}`, i%60, i)
}

// rowsRead returns rows.read of a reconcile -o json.
func rowsRead(t *testing.T, r result) int {
	t.Helper()
	var doc struct {
		Rows struct{ Read, Rejected int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("reconcile -o json: %v\n%.1000s\n%.1000s", err, r.stdout, r.stderr)
	}
	return doc.Rows.Read
}

// counted is what outputs of one run must agree on.
type counted struct {
	calls, input, output int64
	recorded             string
}

func (c counted) equal(o counted) bool {
	return c.calls == o.calls && c.input == o.input && c.output == o.output && c.recorded == o.recorded
}

// countedRun reads the calls, tokens and recorded spend of a reconcile
// (totals and groups) or chargeback (gateway) -o json.
func countedRun(t *testing.T, r result) counted {
	t.Helper()
	type tokens struct{ Input, Output int64 }
	var doc struct {
		Totals *struct {
			Calls    int64
			Recorded string
		}
		Groups  []struct{ Tokens tokens }
		Gateway *struct {
			Calls    int64
			Tokens   tokens
			Recorded string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("-o json: %v\n%.1000s\n%.1000s", err, r.stdout, r.stderr)
	}
	var c counted
	switch {
	case doc.Gateway != nil:
		c = counted{calls: doc.Gateway.Calls, input: doc.Gateway.Tokens.Input, output: doc.Gateway.Tokens.Output, recorded: doc.Gateway.Recorded}
	case doc.Totals != nil:
		c = counted{calls: doc.Totals.Calls, recorded: doc.Totals.Recorded}
		for _, g := range doc.Groups {
			c.input, c.output = c.input+g.Tokens.Input, c.output+g.Tokens.Output
		}
	default:
		t.Fatalf("no totals or gateway in:\n%.1000s", r.stdout)
	}
	return c
}

// flashConfig is a LiteLLM config of n deepseek-flash entries, each with
// a raw key and three prices: 12 lines an entry.
func flashConfig(n int) []byte {
	var b bytes.Buffer
	b.WriteString("model_list:\n")
	for i := range n {
		fmt.Fprintf(&b, `  - model_name: flash-%d
    litellm_params:
      model: deepseek/deepseek-flash
      api_key: sk-live-%08dabcdefabcdef
      api_base: https://api.deepseek.com
      rpm: 2500
    model_info:
      id: flash-%d
      mode: chat
      input_cost_per_token: 3.0e-7
      output_cost_per_token: 1.2e-6
      cache_read_input_token_cost: 6.0e-9
`, i, i, i)
	}
	return b.Bytes()
}

// hugeAnchor is a YAML document with one anchored list of n items used
// uses times, under the given top-level keys' prefix.
func hugeAnchor(head string, n, uses int) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	b.WriteString("x-big: &big [" + strings.Repeat("x,", n-1) + "x]\n")
	for i := range uses {
		fmt.Fprintf(&b, "x-copy-%d: *big\n", i)
	}
	return b.Bytes()
}

// formulaCells returns the cells of CSV data a spreadsheet would run.
func formulaCells(t *testing.T, data string) []string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(data))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v", err)
	}
	var bad []string
	for _, row := range rows {
		for _, c := range row {
			if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) && !isNumber(c) {
				bad = append(bad, c)
			}
		}
	}
	return bad
}

func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789.") == ""
}

// terminalControls returns what in s would act on a terminal.
func terminalControls(s string) []string {
	var bad []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			bad = append(bad, fmt.Sprintf("byte %#x", s[i]))
		case r == '\n' || r == '\t':
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r):
			bad = append(bad, fmt.Sprintf("%U", r))
		}
		i += n
	}
	return bad
}

// corpus is every case, by the section of docs/hostile.md it belongs to.
var corpus = []hostileCase{
	// Counted twice, or lost.
	{name: "json after the end: appended queue pops", contract: "every top-level JSON value is read: 19 records in 4 appended arrays read as 19",
		run: func(t *testing.T, h *harness) {
			var b strings.Builder
			for i, n := range []int{5, 4, 6, 4} {
				recs := make([]string, n)
				for j := range recs {
					recs[j] = v7Record(i*10 + j)
				}
				b.WriteString("[" + strings.Join(recs, ",") + "]\n")
			}
			r := h.tokenfare("reconcile", "--calls", h.file("queue.json", []byte(b.String())), "-o", "json")
			r.want(t, 0, "", "")
			if n := rowsRead(t, r); n != 19 {
				t.Errorf("read %d rows, want 19", n)
			}
		}},
	{name: "json after the end: two spend logs arrays", contract: "two /spend/logs arrays in one file read as two",
		run: func(t *testing.T, h *harness) {
			row := func(id string) string {
				return `{"request_id":"` + id + `","startTime":"2026-10-05 03:00:00","spend":0.1,"prompt_tokens":1,"completion_tokens":1,"model":"deepseek-flash"}`
			}
			r := h.tokenfare("reconcile", "--calls", h.file("logs.json", []byte("["+row("a")+"]\n["+row("b")+"]\n")), "-o", "json")
			r.want(t, 0, "", "")
			if n := rowsRead(t, r); n != 2 {
				t.Errorf("read %d rows, want 2", n)
			}
		}},
	{name: "json after the end: stray value refused with its line", contract: "a value after the array that is no array of calls ends the file with its line, exit 2",
		run: func(t *testing.T, h *harness) {
			r := h.tokenfare("reconcile", "--calls", h.file("logs.json", []byte("["+v7Record(1)+"]\n\n{oops\n")))
			r.want(t, 2, "", "logs.json:3:")
		}},
	{name: "duplicate header columns", contract: "two spend columns are refused at the header line, exit 2",
		run: func(t *testing.T, h *harness) {
			data := "request_id,startTime,spend,prompt_tokens,completion_tokens,spend\nr,2026-10-05 03:00:00,0.1,1,1,99\n"
			h.tokenfare("reconcile", "--calls", h.file("dup.csv", []byte(data))).want(t, 2, "", `dup.csv:1: bad header: columns 3 and 6 are both "spend"`)
		}},
	{name: "a zip or xlsx given to --calls", contract: "a workbook, zip, gzip-inside-zip, PDF or binary file is named by its kind, never read as CSV",
		run: func(t *testing.T, h *harness) {
			csvData := []byte(spendHeader + spendRow("r1", "0.1", "deepseek-flash", "a", "t", "u"))
			zipOf := func(name string, body []byte) []byte {
				var buf bytes.Buffer
				zw := zip.NewWriter(&buf)
				w, _ := zw.Create(name)
				w.Write(body)
				zw.Close()
				return buf.Bytes()
			}
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write(csvData)
			zw.Close()
			wb := excelize.NewFile()
			wb.SetCellValue("Sheet1", "A1", "request_id;startTime;spend")
			var xlsx bytes.Buffer
			if err := wb.Write(&xlsx); err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct {
				name string
				data []byte
				want string
			}{
				{"spend.xlsx", xlsx.Bytes(), "an XLSX workbook"},
				{"spend.zip", zipOf("spend.csv", csvData), "a zip archive"},
				{"spend-gz.zip", zipOf("spend.csv.gz", gz.Bytes()), "a zip archive"},
				{"spend.pdf", []byte("%PDF-1.7\n1 0 obj\n"), "a PDF document"},
				{"spend.bin", append([]byte("request_id;x"), 0, 0, 1), "binary content"},
			} {
				r := h.tokenfare("reconcile", "--calls", h.file(f.name, f.data))
				r.want(t, 2, "", f.want)
				if strings.Contains(r.stderr, "semicolons") {
					t.Errorf("%s read as CSV: %s", f.name, r.stderr)
				}
			}
		}},

	// Bounded work on any input.
	{name: "a spend of 10,000 digits", contract: "a number beyond 40 significant digits or 128 characters is rejected as 1e308 is, the rest of the file read",
		run: func(t *testing.T, h *harness) {
			data := spendHeader + spendRow("r1", "1"+strings.Repeat("0", 9999), "deepseek-flash", "a", "t", "u") +
				spendRow("r2", "1e308", "deepseek-flash", "a", "t", "u") + spendRow("r3", "0.001", "deepseek-flash", "a", "t", "u")
			r := h.tokenfare("reconcile", "--calls", h.file("digits.csv", []byte(data)), "-o", "json")
			r.want(t, 0, `"rejected": 2`, "digits.csv:2: spend")
			if !strings.Contains(r.stderr, "too long") {
				t.Errorf("stderr does not say the number is too long:\n%s", r.stderr)
			}
		}},
	{name: "a 4 MB spend field", contract: "a 4 MB number costs no more than reading its bytes (it took 36 s of CPU)", timeout: 20 * time.Second,
		run: func(t *testing.T, h *harness) {
			data := spendHeader + spendRow("r1", "0."+strings.Repeat("7", 4<<20), "deepseek-flash", "a", "t", "u") + spendRow("r2", "0.001", "deepseek-flash", "a", "t", "u")
			r := h.tokenfare("reconcile", "--calls", h.file("big.csv", []byte(data)), "-o", "json")
			r.want(t, 0, `"rejected": 1`, "")
			if r.wall > 10*time.Second {
				t.Errorf("took %v", r.wall)
			}
		}},
	{name: "a tariff price of 10,000 digits", contract: "tariff prices are bounded as call logs are, refused with file:line",
		run: func(t *testing.T, h *harness) {
			tariff := "provider: p\ncurrency: USD\ntimezone: UTC\nbilling_time: end\nsources:\n  - {url: https://example.com, checked: 2026-11-30}\n" +
				"models:\n  - id: m\n    names: [m]\nversions:\n  - effective: 2026-01-01T00:00:00Z\n    prices: {m: {standard: {input: " + strings.Repeat("9", 10000) + ", output: 1}}}\n"
			h.tokenfare("tariffs", "validate", h.file("p.yaml", []byte(tariff))).want(t, 1, "p.yaml:12: m standard input price (10000 characters) is too long", "")
		}},
	{name: "config /dev/zero", contract: "a config is read up to 64 MiB, never until memory runs out",
		run: func(t *testing.T, h *harness) {
			h.tokenfare("check", "--config", "/dev/zero").want(t, 2, "", "larger than 64 MiB")
		}},
	{name: "tariffs /dev/zero", contract: "a tariff file is read up to 64 MiB",
		run: func(t *testing.T, h *harness) {
			h.tokenfare("tariffs", "validate", "/dev/zero").want(t, 2, "", "/dev/zero: file is larger than 64 MiB")
		}},
	{name: "provider usage /dev/zero", contract: "a provider export that is binary is refused at once",
		run: func(t *testing.T, h *harness) {
			r := h.tokenfare("report", "--calls", sample, "--month", "2026-10", "--xlsx", filepath.Join(h.dir, "o.xlsx"), "--provider-usage", "/dev/zero")
			r.want(t, 2, "", "binary content")
		}},
	{name: "calls /dev/zero", contract: "calls that are binary are refused at once",
		run: func(t *testing.T, h *harness) {
			h.tokenfare("reconcile", "--calls", "/dev/zero").want(t, 2, "", "binary content")
		}},
	{name: "yaml huge aliased anchor in a config", contract: "aliases add at most 200,000 nodes: a 100,000-item anchor used 100 times is refused at its line",
		run: func(t *testing.T, h *harness) {
			r := h.tokenfare("check", "--config", h.file("c.yaml", hugeAnchor("model_list: []\n", 100_000, 100)))
			r.want(t, 2, "", "c.yaml:4: aliases expand too far")
		}},
	{name: "yaml huge aliased anchor in a cliproxy config", contract: "the CLIProxyAPI config check bounds aliases too",
		run: func(t *testing.T, h *harness) {
			r := h.tokenfare("check", "--config", h.file("c.yaml", hugeAnchor("api-keys: [k1]\ndisable-cooling: false\n", 100_000, 100)))
			r.want(t, 2, "", "aliases expand too far")
		}},
	{name: "yaml billion laughs in a tariff", contract: "a tariff's aliases are bounded before it is decoded",
		run: func(t *testing.T, h *harness) {
			var b strings.Builder
			b.WriteString("provider: p\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
			for i := 1; i < 9; i++ {
				p := fmt.Sprintf("*a%d", i-1)
				fmt.Fprintf(&b, "x%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(p+", ", 10), ", "))
			}
			h.tokenfare("tariffs", "validate", h.file("laughs.yaml", []byte(b.String()))).want(t, 1, "aliases expand too far", "")
		}},
	{name: "blend --write is linear in the config", contract: "writing a config 4 times as large takes about 4 times as long, not 16", timeout: 150 * time.Second, maxRSS: 1 << 30,
		run: func(t *testing.T, h *harness) {
			var walls [2]time.Duration
			for i, n := range []int{5000, 20000} {
				path := h.file(fmt.Sprintf("c%d.yaml", n), flashConfig(n))
				r := h.tokenfare("blend", "--calls", sample, "--as-of", "2026-11-01", "--write", path)
				// Per entry: input, output and cache-read prices, and the
				// Search fee DeepSeek charges from 2026-11-01
				// (search_context_cost_per_query).
				r.want(t, 0, "", fmt.Sprintf("wrote %d value(s)", 4*n))
				walls[i] = r.wall
			}
			if walls[1] > 7*walls[0]+time.Second {
				t.Errorf("5,000 entries %v, 20,000 entries %v: not linear", walls[0], walls[1])
			}
		}},
	{name: "blend --dry-run diff of a large config", contract: "the diff of a 120,000-line config that differs in 30,000 price lines stays within 256 MiB (a 36,000-line one took 6 GB)", timeout: 120 * time.Second,
		maxRSS: 512 << 20,
		run: func(t *testing.T, h *harness) {
			path := h.file("c.yaml", flashConfig(10000))
			r := h.tokenfare("blend", "--calls", sample, "--as-of", "2026-11-01", "--write", path, "--dry-run")
			r.want(t, 0, "+      input_cost_per_token: ", "")
			if n := strings.Count(r.stdout, "\n-      output_cost_per_token: 1.2e-6"); n != 10000 {
				t.Errorf("diff removes %d output prices, want 10000", n)
			}
		}},

	// Output that cannot hurt its reader.
	{name: "formula injection", contract: "no CSV cell from input runs as a formula in reconcile, chargeback, price or the FOCUS file",
		run: func(t *testing.T, h *harness) {
			data := spendHeader + spendRow("=r1", "0.001", "deepseek-flash", `"=HYPERLINK(""http://x"",""y"")"`, "+SUM(A1)", "@u") +
				spendRow("r2", "0.001", `"-2+3*cmd|' /C calc'!A0"`, "\ttab", "-team", "\rcr")
			calls := h.file("calls.csv", []byte(data))
			focus := filepath.Join(h.dir, "focus.csv")
			for _, args := range [][]string{
				{"reconcile", "--calls", calls, "--by", "model,key,team,user", "-o", "csv"},
				{"chargeback", "--calls", calls, "--month", "2026-10", "--by", "key,team,user", "-o", "csv"},
				{"price", "--calls", calls, "-o", "csv"},
				{"report", "--calls", calls, "--month", "2026-10", "--focus", focus},
			} {
				r := h.tokenfare(args...)
				r.want(t, 0, "", "")
				out := r.stdout
				if args[0] == "report" {
					b, err := os.ReadFile(focus)
					if err != nil {
						t.Fatal(err)
					}
					out = string(b)
				}
				if bad := formulaCells(t, out); len(bad) > 0 {
					t.Errorf("%s: cells a spreadsheet would run: %q", args[0], bad)
				}
			}
		}},
	{name: "terminal injection", contract: "ANSI escapes, bidi overrides and invalid UTF-8 from input reach no table, check line or message raw",
		run: func(t *testing.T, h *harness) {
			data := spendHeader + spendRow("r1", "0.001", "\x1b[2J\x1b]0;pwned\x07model", "alias\u202eexe.txt", "team\xff", "user\u2066x\u2069") +
				spendRow("r2", "x\x1b[31m", "deepseek-flash", "a", "t", "u") +
				spendRow("r3", "0.001", "deepseek-flash", "\x1b[1mbold\u202e", "\u2067team\u009b", "\xc3user")
			calls := h.file("calls.csv", []byte(data))
			config := h.file("c.yaml", []byte("model_list:\n  - model_name: \"\\e[31mflash\\u202e\"\n    litellm_params: {model: \"deepseek/\\e]0;x\\adeepseek-flash\"}\n"))
			for _, args := range [][]string{
				{"reconcile", "--calls", calls, "--by", "model,key,team,user"},
				{"chargeback", "--calls", calls, "--month", "2026-10", "--by", "key,team,user"},
				{"price", "--calls", calls, "-o", "table"},
				{"check", "--config", config},
				{"reconcile", "--calls", calls, "--strict"},
			} {
				r := h.tokenfare(args...)
				if bad := terminalControls(r.stdout + r.stderr); len(bad) > 0 {
					t.Errorf("%s: output holds %v", argsText(args), bad)
				}
			}
		}},
	{name: "yaml output for a yaml 1.1 reader", contract: "PyYAML reads every key alias of -o yaml back as the string it is",
		run: func(t *testing.T, h *harness) {
			const python = "/usr/bin/python3"
			if err := exec.Command(python, "-c", "import yaml").Run(); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("PyYAML is required under CI (python3-yaml): %v", err)
				}
				t.Skipf("no PyYAML: %v", err)
			}
			aliases := []string{"yes", "No", "ON", "off", "y", "~", "null", "1_000", "0x1F", "0o17", "1:20", "2026-10-01", ".inf", ".NaN"}
			data := spendHeader
			for i, a := range aliases {
				data += spendRow(fmt.Sprintf("r%d", i), "0.001", "deepseek-flash", a, "t", "u")
			}
			r := h.tokenfare("reconcile", "--calls", h.file("calls.csv", []byte(data)), "--by", "key", "-o", "yaml")
			r.want(t, 0, "", "")
			cmd := exec.Command(python, "-c", `import sys, yaml
for g in yaml.safe_load(sys.stdin)["groups"]:
    a = g["keys"]["key_alias"]
    print(type(a).__name__, a)`)
			cmd.Stdin = strings.NewReader(r.stdout)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(got) != len(aliases) {
				t.Fatalf("PyYAML read %d groups, want %d:\n%s", len(got), len(aliases), out)
			}
			for _, l := range got {
				if !strings.HasPrefix(l, "str ") {
					t.Errorf("PyYAML reads %q", l)
				}
			}
		}},
	// Counting: nothing counted twice, nothing lost.
	{name: "counting: overlapping daily exports count once", contract: "a call read from two daily exports counts once in calls, tokens and recorded spend of reconcile and chargeback, and in rows.duplicate",
		run: func(t *testing.T, h *harness) {
			var day1, day2, month strings.Builder
			for _, b := range []*strings.Builder{&day1, &day2, &month} {
				b.WriteString(spendHeader)
			}
			for i := 1; i <= 200; i++ {
				row := spendRow(fmt.Sprintf("r%d", i), "0.001", "deepseek-flash", "a", "t", "u")
				month.WriteString(row)
				if i <= 110 {
					day1.WriteString(row)
				}
				if i > 100 { // rows 101 to 110 are in both
					day2.WriteString(row)
				}
			}
			one, two := h.file("month.csv", []byte(month.String())), []string{h.file("day1.csv", []byte(day1.String())), h.file("day2.csv", []byte(day2.String()))}
			for _, cmd := range [][]string{{"reconcile"}, {"chargeback", "--month", "2026-10"}} {
				whole := countedRun(t, h.tokenfare(append(append(cmd, "--calls", one), "-o", "json")...))
				split := countedRun(t, h.tokenfare(append(append(cmd, "--calls", two[0], "--calls", two[1]), "-o", "json")...))
				if whole.calls != 200 || !whole.equal(split) {
					t.Errorf("%s: one file %+v, two overlapping files %+v; want 200 calls in both", cmd[0], whole, split)
				}
			}
			r := h.tokenfare("reconcile", "--calls", two[0], "--calls", two[1], "-o", "json")
			r.want(t, 0, `"duplicate": 10`, "")
		}},
	{name: "counting: a row logged twice in one source counts once", contract: "a row written twice is one call: it counts once in calls, tokens and recorded spend; a repeat that disagrees is explained as conflicting_copies",
		run: func(t *testing.T, h *harness) {
			data := spendHeader + spendRow("r1", "0.001", "deepseek-flash", "a", "t", "u") + spendRow("r2", "0.001", "deepseek-flash", "a", "t", "u") +
				spendRow("r2", "0.001", "deepseek-flash", "a", "t", "u") + spendRow("r1", "0.005", "deepseek-flash", "a", "t", "u")
			path := h.file("twice.csv", []byte(data))
			// 2 calls of 1000 input and 200 output tokens; recorded 0.002:
			// the second r2 is the same row again, the second r1 a copy
			// that disagrees (0.005), left out and explained.
			want := counted{calls: 2, input: 2000, output: 400, recorded: "0.002"}
			for _, cmd := range [][]string{{"reconcile"}, {"chargeback", "--month", "2026-10"}} {
				r := h.tokenfare(append(append(cmd, "--calls", path), "-o", "json")...)
				if got := countedRun(t, r); !got.equal(want) {
					t.Errorf("%s: %+v, want %+v", cmd[0], got, want)
				}
			}
			h.tokenfare("reconcile", "--calls", path, "-o", "json").want(t, 0, `"kind": "conflicting_copies"`, "")
		}},
	{name: "counting: 300,000 distinct model names stay within the memory budget", contract: "memory is bounded by the budget of names (docs/scale.md), not by the number of distinct names: 300,000 names in under 640 MiB (about 13 KiB a name, 3.9 GB, without the budget), the names beyond grouped as (other names)",
		maxRSS: 640 << 20, timeout: 90 * time.Second,
		run: func(t *testing.T, h *harness) {
			var b bytes.Buffer
			b.WriteString(spendHeader)
			for i := range 300_000 {
				b.WriteString(spendRow(fmt.Sprintf("n%d", i), "0.001", fmt.Sprintf("acme-model-%06d", i), "a", "t", "u"))
			}
			b.WriteString(spendRow("p1", "0.001", "deepseek-flash", "a", "t", "u"))
			r := h.tokenfare("reconcile", "--calls", h.file("names.csv", b.Bytes()), "--by", "model", "-o", "json")
			r.want(t, 0, `"(other names)"`, "more than 65536 distinct model names")
			if got := countedRun(t, r); got.calls != 300_001 {
				t.Errorf("%d calls, want 300001", got.calls)
			}
		}},
	{name: "counting: -o yaml piped into head exits 0 quietly", contract: "a reader closing the output pipe ends the run with exit 0 and no error on stderr, in YAML as in every format",
		run: func(t *testing.T, h *harness) {
			for _, cmd := range [][]string{
				{"reconcile", "--calls", sample, "--by", "key,day,model", "-o", "yaml"},
				{"chargeback", "--calls", sample, "--month", "2026-10", "--by", "key,model", "-o", "yaml"},
				{"reconcile", "--calls", sample, "--by", "key,day,model", "-o", "csv"},
				{"price", "--calls", sample, "-o", "json"},
			} {
				// Notes about the input may come before; nothing about the pipe.
				r := h.tokenfareHead(5, cmd...)
				if r.code != 0 || strings.Contains(r.stderr, "Error") || strings.Contains(r.stderr, "pipe") {
					t.Errorf("tokenfare %s | head -n 5: exit %d, stderr %q; want exit 0, nothing said of the pipe", argsText(cmd), r.code, r.stderr)
				}
			}
		}},
	{name: "secrets in diffs", contract: "blend --write --dry-run's diff masks api_key values from its context lines; os.environ references stay",
		run: func(t *testing.T, h *harness) {
			config := "general_settings:\n  master_key: sk-master-0a1b2c3d4e\nmodel_list:\n  - model_name: flash\n    litellm_params:\n" +
				"      model: deepseek/deepseek-flash\n      api_key: sk-live-4f9a8b7c6d5e\n      input_cost_per_token: 3.0e-7\n" +
				"  - model_name: flash-env\n    litellm_params: {model: deepseek/deepseek-flash, api_key: os.environ/DEEPSEEK_API_KEY, input_cost_per_token: 3.0e-7}\n"
			path := h.file("c.yaml", []byte(config))
			r := h.tokenfare("blend", "--calls", sample, "--as-of", "2026-11-01", "--write", path, "--dry-run")
			r.want(t, 0, "api_key: os.environ/DEEPSEEK_API_KEY", "")
			if strings.Contains(r.stdout, "sk-live-") || strings.Contains(r.stdout, "sk-master-") {
				t.Errorf("diff shows a key:\n%s", r.stdout)
			}
		}},
}

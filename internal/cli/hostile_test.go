package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// hostileCalls is a LiteLLM spend log whose names, keys, teams and users
// are spreadsheet formulas, as an attacker who can name a key would write
// them.
const hostileCalls = `request_id,startTime,endTime,spend,prompt_tokens,completion_tokens,model,model_group,custom_llm_provider,api_key,key_alias,team_id,user
=r1,2026-10-05 03:00:00,2026-10-05 03:00:01,0.001,1000,200,deepseek-flash,deepseek-flash,deepseek,sk-aaa,"=HYPERLINK(""http://evil"",""x"")",+SUM(A1),@user
r2,2026-10-05 03:00:00,2026-10-05 03:00:01,0.001,1000,200,"-2+3*cmd|' /C calc'!A0",x,openai,sk-bbb,	tab,"` + "\r" + `cr",-team
`

// formulaCells returns the cells of a CSV that a spreadsheet would run:
// those starting with = + - @, tab or CR that are not numbers.
func formulaCells(t *testing.T, data string) []string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(data))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v\n%s", err, data)
	}
	var bad []string
	for _, row := range rows {
		for _, c := range row {
			if c == "" || !strings.ContainsRune("=+-@\t\r", rune(c[0])) {
				continue
			}
			if _, err := decimal.NewFromString(c); err != nil {
				bad = append(bad, c)
			}
		}
	}
	return bad
}

// TestFormulaInjection checks the contract "no CSV cell from input runs as
// a formula": model names, key aliases, teams, users and request ids
// that start with = + - @, tab or CR are written with a ' in front in the
// CSV of reconcile, chargeback and price and in the FOCUS file, while
// negative numbers tokenfare writes (gaps) stay numbers; --focus-raw-text
// keeps the FOCUS file's text as it is.
func TestFormulaInjection(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls.csv")
	if err := os.WriteFile(calls, []byte(hostileCalls), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string // an escaped cell the output must hold
	}{
		{"reconcile", []string{"reconcile", "--calls", calls, "--by", "model,key,team", "-o", "csv"}, `"'=HYPERLINK(""http://evil"",""x"")"`},
		{"reconcile by user", []string{"reconcile", "--calls", calls, "--by", "user", "-o", "csv"}, "'@user"},
		{"chargeback", []string{"chargeback", "--calls", calls, "--month", "2026-10", "--by", "key,team,user", "-o", "csv"}, "'+SUM(A1)"},
		{"price", []string{"price", "--calls", calls, "-o", "csv"}, "'-2+3*cmd|' /C calc'!A0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "", tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if bad := formulaCells(t, out); len(bad) > 0 {
				t.Errorf("cells a spreadsheet would run: %q\n%s", bad, out)
			}
			checkContains(t, "stdout", out, tt.want)
			checkContains(t, "stdout", out, ",-0.001,") // a gap is a number
		})
	}
	t.Run("focus", func(t *testing.T) {
		for _, raw := range []bool{false, true} {
			focus := filepath.Join(dir, "focus.csv")
			args := []string{"report", "--calls", calls, "--month", "2026-10", "--focus", focus}
			if raw {
				args = append(args, "--focus-raw-text")
			}
			if code, _, stderr := runCLI(t, "", args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			data, err := os.ReadFile(focus)
			if err != nil {
				t.Fatal(err)
			}
			bad := formulaCells(t, string(data))
			if raw != (len(bad) > 0) {
				t.Errorf("raw %v: cells a spreadsheet would run: %q", raw, bad)
			}
			if want := `"'=HYPERLINK(""http://evil"",""x"")"`; !raw && !strings.Contains(string(data), want) {
				t.Errorf("FOCUS file lacks the key alias as %s", want)
			}
		}
	})
}

// terminalControls returns what in s would act on a terminal: escape and
// other control characters (line breaks and tabs aside), bidi controls
// and bytes that are no UTF-8.
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

// TestTerminalInjection checks the contract "nothing from input acts on
// the reader's terminal": ANSI escapes, carriage returns, bidi overrides
// and invalid UTF-8 in log fields and config names reach neither the
// tables of reconcile, chargeback and price, nor check's lines, nor
// stderr, raw.
func TestTerminalInjection(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls.csv")
	data := "request_id,startTime,endTime,spend,prompt_tokens,completion_tokens,model,custom_llm_provider,api_key,key_alias,team_id,user\n" +
		"r1,2026-10-05 03:00:00,2026-10-05 03:00:01,0.001,1000,200,\x1b[2J\x1b]0;pwned\x07model,deepseek,sk-a,alias\u202eexe.txt,team\xff\xfe,user\u2066x\u2069\r\n" +
		"r2,2026-10-05 03:00:00,2026-10-05 03:00:01,abc\x1b[31m,1000,200,deepseek-flash,deepseek,sk-b,a,t,u\n" +
		"r3,2026-10-05 03:00:00,2026-10-05 03:00:01,0.001,1000,200,deepseek-flash,deepseek,sk-c,\x1b[1mbold\u202e,\u2067team\x9b,\xc3user\n"
	if err := os.WriteFile(calls, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "config.yaml")
	yml := "model_list:\n  - model_name: \"\\e[31mflash\\u202e\"\n    litellm_params: {model: \"deepseek/\\e]0;x\\adeepseek-flash\", input_cost_per_token: 9}\n"
	if err := os.WriteFile(config, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"reconcile table", []string{"reconcile", "--calls", calls, "--by", "model,key,team,user"}},
		{"chargeback table", []string{"chargeback", "--calls", calls, "--month", "2026-10", "--by", "key,team,user"}},
		{"price table", []string{"price", "--calls", calls, "-o", "table"}},
		{"check lines", []string{"check", "--config", config, "--at", "2026-10-05T03:00:00Z"}},
		{"strict error", []string{"reconcile", "--calls", calls, "--strict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, out, stderr := runCLI(t, "", tt.args...)
			if out+stderr == "" {
				t.Fatal("no output")
			}
			if bad := terminalControls(out); len(bad) > 0 {
				t.Errorf("stdout holds %v:\n%q", bad, out)
			}
			if bad := terminalControls(stderr); len(bad) > 0 {
				t.Errorf("stderr holds %v:\n%q", bad, stderr)
			}
		})
	}
}

// yaml11Aliases are key aliases a YAML 1.1 reader would read as something
// else if written plain: booleans in any case, nulls, YAML 1.1 integers
// and floats (underscores, octal, hex, sexagesimal), dates, infinity.
var yaml11Aliases = []string{"yes", "No", "ON", "off", "y", "N", "True", "FALSE", "~", "null", "NULL",
	"1_000", "0x1F", "0o17", "017", "0b101", "1:20", "190:20:30.15", "2026-10-01", "2026-10-01 03:00:00",
	".inf", "-.Inf", ".NaN", "1e5", "+12", "<<", "="}

// TestYAMLOutputForYAML11Readers checks the contract "-o yaml reads back
// as written in a YAML 1.1 reader": PyYAML, as LiteLLM and many scripts
// use, reads every key alias back as the string it is.
func TestYAMLOutputForYAML11Readers(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import yaml").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s with PyYAML is required under CI (Debian package python3-yaml): %v", python, err)
		}
		t.Skipf("%s with PyYAML not available (install python3-yaml): %v", python, err)
	}
	var b strings.Builder
	b.WriteString("request_id,startTime,endTime,spend,prompt_tokens,completion_tokens,model,custom_llm_provider,api_key,key_alias\n")
	for i, a := range yaml11Aliases {
		fmt.Fprintf(&b, "r%d,2026-10-05 03:00:00,2026-10-05 03:00:01,0.001,1000,200,deepseek-flash,deepseek,sk-%d,%s\n", i, i, a)
	}
	calls := filepath.Join(t.TempDir(), "calls.csv")
	if err := os.WriteFile(calls, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "reconcile", "--calls", calls, "--by", "key", "-o", "yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	script := `import json, sys, yaml
doc = yaml.safe_load(sys.stdin)
print(json.dumps([[type(g["keys"]["key_alias"]).__name__, str(g["keys"]["key_alias"])] for g in doc["groups"]]))`
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = strings.NewReader(out)
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("PyYAML: %v\n%s", err, out)
	}
	var read [][2]string
	if err := json.Unmarshal(got, &read); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range read {
		if r[0] != "str" {
			t.Errorf("PyYAML reads key alias %s as %s", r[1], r[0])
		}
		seen[r[1]] = true
	}
	for _, a := range yaml11Aliases {
		if !seen[a] {
			t.Errorf("key alias %q not read back as itself (read %v)", a, read)
		}
	}
}

// TestSecretsInDiffs checks the contract "no secret reaches a diff": the
// dry run's diff of a config with raw keys beside the prices it changes
// shows the changed prices and the environment references, never a key.
func TestSecretsInDiffs(t *testing.T) {
	secrets := []string{"sk-live-4f9a8b7c6d5e", "mk-master-0a1b2c3d4e", "hunter2-pass", "ghp_0123456789abcdefABCDEF0123456789abcd"}
	config := `general_settings:
  master_key: mk-master-0a1b2c3d4e
  database_url: postgres://litellm:hunter2-pass@db:5432/litellm
model_list:
  - model_name: deepseek-flash
    litellm_params:
      model: deepseek/deepseek-flash
      api_key: sk-live-4f9a8b7c6d5e
      input_cost_per_token: 3.0e-7
      output_cost_per_token: 1.2e-6
      github_token: ghp_0123456789abcdefABCDEF0123456789abcd
  - model_name: flash-env
    litellm_params: {model: deepseek/deepseek-flash, api_key: os.environ/DEEPSEEK_API_KEY, input_cost_per_token: 3.0e-7}
`
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "blend", "--calls", sample, "--as-of", "2026-11-01", "--write", path, "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkContains(t, "diff", out, "+      input_cost_per_token: ")
	checkContains(t, "diff", out, "api_key: os.environ/DEEPSEEK_API_KEY")
	checkContains(t, "diff", out, "      api_key: ********")
	for _, s := range secrets {
		if strings.Contains(out+stderr, s) {
			t.Errorf("output shows the secret %s:\n%s", s, out)
		}
	}
}

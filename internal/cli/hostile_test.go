package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

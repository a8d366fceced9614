package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTariffsNext(t *testing.T) {
	const edges = "../../tariffs/testdata"
	tests := []struct {
		name string
		args []string
		code int
		want []string // provider/version@effective of the JSON document, in order
	}{
		{name: "default after: the test clock (2026-09-01T02:00Z), past every version", args: nil},
		{name: "after a date", args: []string{"--after", "2025-03-01"},
			want: []string{"edgeco/flat@2025-09-05T16:00:00Z", "dstco/2026-01-01T05:00:00Z@2026-01-01T05:00:00Z"}},
		{name: "until bounds it, inclusive", args: []string{"--after", "2026-08-16T13:00:00Z", "--until", "2026-08-16T16:00:00Z"},
			want: []string{"edgeco/peak@2026-08-16T16:00:00Z"}},
		{name: "until a second short", args: []string{"--after", "2026-08-16T13:00:00Z", "--until", "2026-08-16T15:59:59Z"}},
		{name: "until before after", args: []string{"--after", "2026-08-16", "--until", "2026-08-15"}, code: exitUsage},
		{name: "a bad instant", args: []string{"--after", "soon"}, code: exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"tariffs", "next", "--tariffs", edges, "-o", "json"}, tt.args...)
			code, out, errs := runCLI(t, "", args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, errs)
			}
			if code != exitOK {
				return
			}
			var doc struct {
				Versions []struct{ Provider, Version, Effective, Source string }
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v:\n%s", err, out)
			}
			var got []string
			for _, v := range doc.Versions {
				got = append(got, v.Provider+"/"+v.Version+"@"+v.Effective)
				if !strings.Contains(v.Source, ".yaml:") {
					t.Errorf("source %q is not file:line", v.Source)
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("versions %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTariffsNextTable: the table names each version, or says there is none.
func TestTariffsNextTable(t *testing.T) {
	_, out, _ := runCLI(t, "", "tariffs", "next", "--tariffs", "../../tariffs/testdata", "--after", "2026-08-16T13:00:00Z")
	if !strings.Contains(out, "2026-08-16T16:00:00Z  edgeco") || !strings.Contains(out, "edges.yaml:") {
		t.Errorf("table lacks edgeco's next version:\n%s", out)
	}
	_, out, _ = runCLI(t, "", "tariffs", "next", "--tariffs", "../../tariffs/testdata")
	if want := "no tariff version is known to take effect after 2026-09-01T02:00:00Z\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// TestBlendWarnsOfNextVersion: a blend names each known version taking
// effect after the tariff it priced at, for models with calls, and only
// those.
func TestBlendWarnsOfNextVersion(t *testing.T) {
	const sample = "../../testdata/sample/spendlogs-2026-10.csv"
	// The first versions after 2026-11-01: Anthropic's of 2026-11-09 (Claude
	// Fable 5.2's launch, which lists the sample's claude-sonnet-4-5 too),
	// OpenAI's of 2026-11-17 (GPT-6.2's launch).
	const sonnet = "warning: anthropic version 2026-11-09-fable-5-2 takes effect at 2026-11-09T00:00:00Z, after the tariff this blend prices at (2026-11-01T00:00:00Z), for claude-sonnet-4-5"
	tests := []struct {
		name      string
		args      []string
		want, not []string
	}{
		{name: "at the window's end", args: []string{"--as-of", "2026-11-01"},
			want: []string{sonnet, "--tariff-at 2026-11-09T00:00:00Z", "openai version 2026-11-17-gpt-6.2"}},
		{name: "historical: after the window's end", args: []string{"--as-of", "2026-11-01", "--historical"},
			want: []string{sonnet}},
		{name: "tariff-at past the change", args: []string{"--as-of", "2026-11-01", "--tariff-at", "2026-12-01"},
			want: []string{"after the tariff this blend prices at (2026-12-01T00:00:00Z)"}, not: []string{"anthropic version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(t, "", append([]string{"blend", "--calls", sample}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(errs, n) {
					t.Errorf("stderr has %q:\n%s", n, errs)
				}
			}
		})
	}
}

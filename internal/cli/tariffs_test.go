package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTariffsSources checks where the catalog comes from: --tariffs as a
// file or a folder, and --tariffs-overlay replacing providers by name.
func TestTariffsSources(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // each expected on stdout
		stderr string   // expected on stderr, or anyOutput
	}{
		{"--tariffs names one file", []string{"tariffs", "show", "flash", "--tariffs", "../../tariffs/testdata/edges.yaml", "--at", "2026-10-12T02:00:00Z"}, exitOK,
			[]string{"model     flash (edgeco)", "period peak"}, anyOutput},
		{"--tariffs names a folder", []string{"tariffs", "show", "dst-model", "--tariffs", "../../tariffs/testdata"}, exitOK,
			[]string{"(dstco)"}, anyOutput},
		{"--tariffs names a folder without tariff files", []string{"tariffs", "list", "--tariffs", "testdata/calls"}, exitUsage,
			nil, "testdata/calls: no tariff files (*.yaml, *.yml) in the folder"},
		{"an overlay file replaces the provider of its name", []string{"tariffs", "show", "deepseek-flash", "--tariffs-overlay", "testdata/overlay/deepseek.yaml", "--at", "2026-10-12T02:00:00Z"}, exitOK,
			[]string{"* contract", "standard  ", "0.1", "0.4"}, anyOutput},
		{"validate the catalog with an overlay", []string{"tariffs", "validate", "--tariffs-overlay", "testdata/overlay"}, exitOK,
			[]string{"ok: "}, anyOutput},
		{"an overlay on a --tariffs file", []string{"tariffs", "list", "--tariffs", "../../tariffs/testdata/edges.yaml", "--tariffs-overlay", "testdata/overlay/acme.yaml"}, exitOK,
			[]string{"flash ", "acme-1 "}, anyOutput},
		{"an overlay model claiming a catalog name is refused", []string{"tariffs", "list", "--tariffs-overlay", "testdata/overlay-clash"}, exitUsage,
			nil, `testdata/overlay-clash/acme.yaml:10: name "gpt-4o" is claimed by models "gpt-4o" (tariffs/catalog/openai.yaml:`},
		{"a missing overlay", []string{"tariffs", "list", "--tariffs-overlay", "testdata/nope.yaml"}, exitUsage,
			nil, "testdata/nope.yaml: cannot read tariffs: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errs)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			checkContains(t, "stderr", errs, tt.stderr)
		})
	}
}

// TestOverlayReplacesWholeProvider lists the catalog with the overlay
// folder: DeepSeek's embedded models give way to the overlay's one, in
// DeepSeek's place; the other providers keep theirs; acme, which the
// embedded catalog lacks, comes last.
func TestOverlayReplacesWholeProvider(t *testing.T) {
	list := func(args ...string) []string {
		t.Helper()
		code, out, errs := runCLI(t, "", append([]string{"tariffs", "list", "-o", "json"}, args...)...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var entries []struct{ Model, Provider string }
		if err := json.Unmarshal([]byte(out), &entries); err != nil {
			t.Fatal(err)
		}
		var models []string
		for _, e := range entries {
			models = append(models, e.Provider+"/"+e.Model)
		}
		return models
	}
	var want []string
	embedded := list()
	if n := len(slices.DeleteFunc(slices.Clone(embedded), func(m string) bool { return !strings.HasPrefix(m, "deepseek/") })); n < 2 {
		t.Fatalf("the embedded catalog has %d DeepSeek model(s); the test needs several to show they are replaced", n)
	}
	for _, m := range embedded {
		switch {
		case !strings.HasPrefix(m, "deepseek/"):
			want = append(want, m)
		case !slices.Contains(want, "deepseek/deepseek-flash"):
			want = append(want, "deepseek/deepseek-flash")
		}
	}
	want = append(want, "acme/acme-1")
	if got := list("--tariffs-overlay", "testdata/overlay"); !slices.Equal(got, want) {
		t.Errorf("models = %v\nwant %v", got, want)
	}
}

// TestTariffsValidate checks validate's whole output and exit code: every
// problem in one pass, each instant named once, warnings findings only
// with --strict.
func TestTariffsValidate(t *testing.T) {
	const (
		onepass = "testdata/validate/onepass.yaml"
		warning = "testdata/validate/warning.yaml"
		bad     = "testdata/badtariffs/bad.yaml"
	)
	halfMinute := warning + ":11: warning: version 2026-01-01T00:00:30Z: effective 2026-01-01T00:00:30Z is not on a whole minute (tariffs change on whole minutes: a typo?)\n"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"a malformed effective does not stop the rest", []string{onepass}, exitFindings,
			onepass + `:11: effective "2026-01-01" is not an RFC 3339 instant with offset (e.g. 2026-08-16T16:00:00Z)` + "\n" +
				onepass + `:14: version 2026-01-01: model "op-1" period "standard": output price is required` + "\n" +
				onepass + `:20: version february (2026-02-01T00:00:00Z) is not after version march (2026-03-01T00:00:00Z): versions must be in order and may not overlap` + "\n" +
				onepass + `:22: unknown key "colour"` + "\n" +
				onepass + `:25: op-1 standard input price -1 is negative` + "\n",
			"Error: 5 error(s) in 1 file(s)\n"},
		{"a warning alone is not a finding", []string{warning}, exitOK,
			halfMinute + "ok: 1 file(s), 1 provider(s), 1 model(s), 1 version(s), 1 warning(s)\n", ""},
		{"--strict makes a warning a finding", []string{warning, "--strict"}, exitFindings,
			halfMinute, "Error: 1 warning(s) in 1 file(s)\n"},
		{"errors and warnings of two files", []string{bad, warning}, exitFindings,
			bad + `:2: currency "usd" is not a three-letter ISO 4217 code` + "\n" +
				bad + `:3: timezone "Nowhere/Land" is not an IANA time zone` + "\n" +
				bad + `:12: version 2026-01-01T00:00:00Z: period "peak": window "10:00-10:00" starts where it ends (write 00:00-24:00 for the whole day)` + "\n" +
				bad + `:14: version 2026-01-01T00:00:00Z: model "m" has no prices for period "peak"` + "\n" +
				bad + `:15: m standard output price -2 is negative` + "\n" +
				halfMinute,
			"Error: 5 error(s) and 1 warning(s) in 2 file(s)\n"},
		{"the catalog in use, with --tariffs", []string{"--tariffs", warning}, exitOK,
			halfMinute + "ok: 1 file(s), 1 provider(s), 1 model(s), 1 version(s), 1 warning(s)\n", ""},
		// testdata/overlay holds acme.yaml and deepseek.yaml, one model and
		// one version each; the overlay's deepseek.yaml replaces the
		// folder's: three files read, two providers left.
		{"an overlay replacing a provider: files are not providers", []string{"--tariffs", "testdata/overlay", "--tariffs-overlay", "testdata/overlay/deepseek.yaml"}, exitOK,
			"ok: 3 file(s), 2 provider(s), 2 model(s), 2 version(s)\n", ""},
		{"a folder of two files", []string{"testdata/overlay"}, exitOK,
			"ok: 2 file(s), 2 provider(s), 2 model(s), 2 version(s)\n", ""},
		{"a --tariffs-overlay that is not there", []string{"--tariffs-overlay", "testdata/validate/nope.yaml"}, exitUsage,
			"", "Error: testdata/validate/nope.yaml: cannot read tariffs: no such file or directory\nTry: give tariff files or folders that hold *.yaml files\n"},
		{"a path that is not there", []string{"testdata/validate/nope.yaml"}, exitUsage,
			"", "Error: testdata/validate/nope.yaml: cannot read tariffs: no such file or directory\nTry: give tariff files or folders that hold *.yaml files\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", append([]string{"tariffs", "validate"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if out != tt.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tt.stdout)
			}
			if errs != tt.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", errs, tt.stderr)
			}
		})
	}
}

// TestTariffsShowBeforeAnyVersion shows --at on the provider's clock when
// no version is in force yet, and no holiday line.
func TestTariffsShowBeforeAnyVersion(t *testing.T) {
	// edgeco's first version takes effect on 2025-02-26; its zone is
	// Asia/Shanghai (UTC+8), so 20:00 UTC on 2025-01-01 is 04:00 on the 2nd.
	code, out, errs := runCLI(t, "", "tariffs", "show", "flash", "--tariffs", "../../tariffs/testdata", "--at", "2025-01-01T20:00:00Z")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "at        2025-01-01T20:00:00Z: unpriced\nlocal     Thu 2025-01-02 04:00:00 +08:00 (Asia/Shanghai)\n\nversions\n   nightly"
	if !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
}

// TestOverlayLeavesOutModels reconciles the sample month with the DeepSeek
// overlay, which defines deepseek-flash only: the calls of DeepSeek's
// other models become unpriced, and no row is lost.
func TestOverlayLeavesOutModels(t *testing.T) {
	type rows struct{ Read, Priced, Unpriced int }
	reconcile := func(args ...string) rows {
		t.Helper()
		code, out, errs := runCLI(t, "", append([]string{"reconcile", "--calls", sample, "-o", "json"}, args...)...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var rec struct{ Rows rows }
		if err := json.Unmarshal([]byte(out), &rec); err != nil {
			t.Fatal(err)
		}
		return rec.Rows
	}
	base := reconcile()
	over := reconcile("--tariffs-overlay", "testdata/overlay/deepseek.yaml")
	if over.Read != base.Read || over.Priced+over.Unpriced != base.Priced+base.Unpriced || over.Unpriced <= base.Unpriced {
		t.Errorf("rows with the overlay %+v, without %+v: want the same calls, more of them unpriced", over, base)
	}
}

// TestTariffsShowRatesAligned: every line of a rates table, header and
// rows, a prompt-size tier's too, is as long as the others of its table,
// so that a price stands under its usage type: cache_write_1h (14
// letters) and "prompt > 200000: standard" (25) are wider than the
// columns' least widths.
func TestTariffsShowRatesAligned(t *testing.T) {
	code, out, stderr := runCLI(t, "", "tariffs", "show", "claude-sonnet-4-5", "--at", "2026-10-12T02:00:00Z")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tables := 0
	var lens []int
	check := func() {
		if len(lens) > 1 {
			tables++
			for _, n := range lens[1:] {
				if n != lens[0] {
					t.Errorf("rates table lines of %v characters, want all alike:\n%s", lens, out)
					break
				}
			}
		}
		lens = nil
	}
	in := false // inside a rates table: from its header to the first line not indented
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "period ") || strings.HasPrefix(trimmed, "prompt > 200000: period ") {
			check()
			in = true
		}
		if !in || !strings.HasPrefix(line, "  ") || trimmed == "" {
			check()
			in = false
			continue
		}
		lens = append(lens, utf8.RuneCountInString(line))
	}
	check()
	if tables < 2 {
		t.Errorf("found %d rates tables, want the standard one and the long-context tier's:\n%s", tables, out)
	}
}

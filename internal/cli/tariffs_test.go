package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestTariffsSources checks where the catalog comes from: --tariffs as a
// file or a folder, and --tariffs-overlay replacing providers by name.
func TestTariffsSources(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // each expected on stdout
		stderr string   // expected on stderr; "" when nothing particular is
	}{
		{"--tariffs names one file", []string{"tariffs", "show", "flash", "--tariffs", "../../tariffs/testdata/edges.yaml", "--at", "2026-10-12T02:00:00Z"}, exitOK,
			[]string{"model     flash (edgeco)", "period peak"}, ""},
		{"--tariffs names a folder", []string{"tariffs", "show", "dst-model", "--tariffs", "../../tariffs/testdata"}, exitOK,
			[]string{"(dstco)"}, ""},
		{"--tariffs names a folder without tariff files", []string{"tariffs", "list", "--tariffs", "testdata/calls"}, exitUsage,
			nil, "testdata/calls: no tariff files (*.yaml, *.yml) in the folder"},
		{"an overlay file replaces the provider of its name", []string{"tariffs", "show", "deepseek-flash", "--tariffs-overlay", "testdata/overlay/deepseek.yaml", "--at", "2026-10-12T02:00:00Z"}, exitOK,
			[]string{"* contract", "standard  ", "0.1", "0.4"}, ""},
		{"validate the catalog with an overlay", []string{"tariffs", "validate", "--tariffs-overlay", "testdata/overlay"}, exitOK,
			[]string{"ok: "}, ""},
		{"an overlay on a --tariffs file", []string{"tariffs", "list", "--tariffs", "../../tariffs/testdata/edges.yaml", "--tariffs-overlay", "testdata/overlay/acme.yaml"}, exitOK,
			[]string{"flash ", "acme-1 "}, ""},
		{"an overlay model claiming a catalog name is refused", []string{"tariffs", "list", "--tariffs-overlay", "testdata/overlay-clash"}, exitUsage,
			nil, `testdata/overlay-clash/acme.yaml:10: name "gpt-4o" is claimed by models "gpt-4o" (tariffs/catalog/openai.yaml:27) and "acme-1"`},
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
			if !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errs)
			}
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

package cli

import (
	"encoding/json"
	"testing"
)

const (
	driftData    = "../../tariffs/drift/testdata/"
	driftCatalog = driftData + "catalog"
)

// TestTariffsCompare runs the command on the drift package's small files:
// litellm.json has 10 differences from the test catalog at this instant and
// deepseek.yml 15 (each worked out in tariffs/drift's TestCompare).
func TestTariffsCompare(t *testing.T) {
	at := "2026-10-12T12:00:00Z"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"agreeing file", []string{"testdata/compare/agree.json"}, exitOK, "no differences at 2026-10-12T12:00:00Z", anyOutput},
		{"LiteLLM table", []string{driftData + "litellm.json"}, exitFindings,
			"cache_read (prompt > 200000)  standard  0.25     0.3125", "10 difference(s) between the catalog and 1 file(s)"},
		{"genai-prices file", []string{driftData + "deepseek.yml"}, exitFindings,
			"2026-10-10T01:00:00Z to 2026-10-10T04:00:00Z: catalog offpeak", "15 difference(s)"},
		{"models.dev's api.json", []string{driftData + "modelsdev/api.json", "--tariffs", driftData + "modelsdev/catalog"}, exitFindings,
			"cache_read (prompt > 200000)  standard  0.5      0.6", "4 difference(s) between the catalog and 1 file(s)"},
		{"both at once", []string{driftData + "litellm.json", driftData + "deepseek.yml"}, exitFindings,
			"25 difference(s) at 2026-10-12T12:00:00Z", "25 difference(s) between the catalog and 2 file(s)"},
		{"an entry that cannot be read is skipped, named with its line", []string{"testdata/compare/bad.json"}, exitOK,
			"testdata/compare/bad.json: litellm, 1 entries read, 1 skipped",
			"skipped testdata/compare/bad.json:2: \"m\": input_cost_per_token: \"cheap\" is not a number\n" +
				"testdata/compare/bad.json: 1 of 1 entries skipped (they cannot be read); the rest are compared\n"},
		{"a file that cannot be read does not stop the others", []string{"testdata/compare/broken.json", driftData + "litellm.json"}, exitUsage,
			"10 difference(s) at 2026-10-12T12:00:00Z",
			"Error: testdata/compare/broken.json:2: entry \"m\": invalid character"},
		{"an unknown scope", []string{"testdata/compare/agree.json", "--scope", "mine"}, exitUsage, anyOutput, `scope "mine" is not all or catalog`},
		{"scope catalog leaves out the models one side lacks", []string{driftData + "litellm.json", "--scope", "catalog"}, exitFindings,
			"7 difference(s) at 2026-10-12T12:00:00Z", "7 difference(s) between the catalog and 1 file(s)"},
		{"missing file", []string{"testdata/compare/none.json"}, exitUsage, anyOutput, "read testdata/compare/none.json: no such file"},
		{"a folder is not a price file", []string{"testdata/compare"}, exitUsage, anyOutput, "read testdata/compare: is a folder, not a price file\nTry:"},
		{"unknown output", []string{"testdata/compare/agree.json", "-o", "xml"}, exitUsage, anyOutput, `unknown output format "xml"`},
		{"CSV keeps a row per difference", []string{driftData + "litellm.json", "-o", "csv"}, exitFindings,
			"price,deepseek-v4-pro,../../tariffs/drift/testdata/litellm.json,deepseek/deepseek-v4-pro,../../tariffs/drift/testdata/litellm.json:26,input,,offpeak,0.66,1.32,,,,,,USD", anyOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"tariffs", "compare", "--tariffs", driftCatalog, "--at", at}, tt.args...)
			code, out, errs := runCLI(t, "", args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errs)
			}
			checkContains(t, "stdout", out, tt.stdout)
			checkContains(t, "stderr", errs, tt.stderr)
		})
	}
}

// compareDoc and differenceDoc decode the documented JSON shape.
type compareDoc struct {
	At    string `json:"at"`
	Files []struct {
		File    string `json:"file"`
		Format  string `json:"format"`
		Entries int    `json:"entries"`
	} `json:"files"`
	Differences []differenceDoc `json:"differences"`
}

type differenceDoc struct {
	Kind    string `json:"kind"`
	Model   string `json:"model"`
	File    string `json:"file"`
	Name    string `json:"name"`
	Source  string `json:"source"`
	Usage   string `json:"usage"`
	Above   int64  `json:"above"`
	Period  string `json:"period"`
	Catalog string `json:"catalog"`
	Other   string `json:"other"`
	From    string `json:"from"`
	Until   string `json:"until"`
	Note    string `json:"note"`
}

// TestTariffsCompareJSON checks the JSON contract: golden file, and a
// difference of each kind with its fields.
func TestTariffsCompareJSON(t *testing.T) {
	code, out, errs := runCLI(t, "", "tariffs", "compare", "--tariffs", driftCatalog, "--at", "2026-10-12T12:00:00Z",
		"-o", "json", driftData+"litellm.json", driftData+"deepseek.yml")
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "compare-drift.json", out)
	var v compareDoc
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]differenceDoc{}
	for _, d := range v.Differences {
		if _, ok := kinds[d.Kind]; !ok {
			kinds[d.Kind] = d
		}
	}
	want := map[string]differenceDoc{
		"only_in_other":   {Kind: "only_in_other", File: driftData + "litellm.json", Name: "deepseek/deepseek-v5-preview", Source: driftData + "litellm.json:33", Note: "no catalog model has this name"},
		"time_of_use":     {Kind: "time_of_use", Model: "deepseek-flash", File: driftData + "litellm.json", Name: "deepseek/deepseek-flash", Source: driftData + "litellm.json:7", Period: "offpeak", From: "2026-10-10T01:00:00Z", Until: "2026-10-10T04:00:00Z", Note: "catalog offpeak, litellm standard"},
		"price":           {Kind: "price", Model: "deepseek-v4-pro", File: driftData + "litellm.json", Name: "deepseek/deepseek-v4-pro", Source: driftData + "litellm.json:26", Usage: "input", Period: "offpeak", Catalog: "0.66", Other: "1.32"},
		"only_in_catalog": {Kind: "only_in_catalog", Model: "deepseek-v4-flash", File: driftData + "litellm.json", Period: "offpeak", Note: "litellm lists none of its names"},
	}
	for k, w := range want {
		if kinds[k] != w {
			t.Errorf("first %s difference = %+v\nwant %+v", k, kinds[k], w)
		}
	}
	if len(v.Files) != 2 || v.Files[1].Format != "genai-prices" || v.Files[1].Entries != 3 {
		t.Errorf("files = %+v", v.Files)
	}
}

// TestTariffsComparePublished runs the command on LiteLLM's whole table as
// published, against the embedded catalog: the entries it cannot read are
// named and skipped, and the run ends in findings (1) or none (0), never
// in bad input (2), whatever the scope.
func TestTariffsComparePublished(t *testing.T) {
	table := driftData + "litellm/model_prices_and_context_window.json.gz"
	for _, scope := range []string{"all", "catalog"} {
		t.Run(scope, func(t *testing.T) {
			code, out, errs := runCLI(t, "", "tariffs", "compare", table, "--scope", scope, "--at", "2026-12-01T12:00:00Z")
			if code != exitOK && code != exitFindings {
				t.Fatalf("exit %d\nstderr: %s", code, errs)
			}
			checkContains(t, "stdout", out, table+": litellm, 2983 entries read, 2 skipped")
			checkContains(t, "stderr", errs, `skipped `+table+`:15556: "exa_ai/search": tiered_pricing[0]: range is not [from, to]`)
		})
	}
}

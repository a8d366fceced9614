package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/gateway"
)

func sampleCheck() *Check {
	return &Check{File: "config.yaml", Gateway: "litellm", At: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), Findings: []gateway.Finding{
		{Rule: "price-bounds", Severity: gateway.Problem, ModelName: "deepseek-flash", File: "config.yaml", Line: 6,
			Field: "model_info.input_cost_per_token", Value: "1.4e-7", Bound: "1.5e-7 .. 3.0e-7", Message: "below"},
		{Rule: "untariffed", Severity: gateway.Warning, ModelName: "local-llama", File: "config.yaml", Line: 9,
			Field: "litellm_params.model", Value: "ollama/llama3.1", Bound: "a model of the tariff catalog", Message: "unknown"},
	}}
}

func TestFindingsTable(t *testing.T) {
	var b bytes.Buffer
	if err := Findings(&b, Table, sampleCheck()); err != nil {
		t.Fatal(err)
	}
	want := "config.yaml:6: finding: price-bounds: deepseek-flash: model_info.input_cost_per_token 1.4e-7 (want 1.5e-7 .. 3.0e-7): below\n" +
		"config.yaml:9: warning: untariffed: local-llama: litellm_params.model ollama/llama3.1 (want a model of the tariff catalog): unknown\n" +
		"config.yaml (litellm): 1 finding(s), 1 warning(s)\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestFindingsJSON(t *testing.T) {
	var b bytes.Buffer
	if err := Findings(&b, JSON, sampleCheck()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	fs := doc["findings"].([]any)
	first := fs[0].(map[string]any)
	if doc["at"] != "2026-11-02T00:00:00Z" || doc["problems"] != 1.0 || doc["warnings"] != 1.0 || len(fs) != 2 ||
		first["line"] != 6.0 || first["severity"] != "finding" || first["bound"] != "1.5e-7 .. 3.0e-7" || first["model_name"] != "deepseek-flash" {
		t.Errorf("JSON document: %s", b.String())
	}
	// Field order is the contract: config first, findings last.
	if !strings.HasPrefix(b.String(), "{\n  \"config\": \"config.yaml\",\n  \"gateway\": \"litellm\",") {
		t.Errorf("JSON starts %.80q", b.String())
	}
	if err := Findings(&b, CSV, sampleCheck()); err == nil {
		t.Error("CSV of a check: no error")
	}
}

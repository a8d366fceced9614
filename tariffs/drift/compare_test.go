package drift

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
)

// at is Monday 2026-10-12 20:00 Beijing: off-peak in the test catalog.
var at = time.Date(2026, 10, 12, 12, 0, 0, 0, time.UTC)

func testCatalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffs.Load("testdata/catalog")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return cat
}

func readDB(t *testing.T, name string) *Database {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, err := Read(context.Background(), name, f)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// describe writes a finding on one line for the tests to look for.
func describe(f Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", f.Kind)
	if f.Model != nil {
		fmt.Fprintf(&b, " %s", f.Model.ID)
	}
	if f.Entry != nil {
		fmt.Fprintf(&b, " [%s]", f.Entry.Name)
	}
	switch f.Kind {
	case PriceDiffers:
		fmt.Fprintf(&b, " %s>%d %s: %s vs %s", f.Usage, f.Above, f.Period, f.Catalog, f.Other)
	case RulesDiffer:
		if !f.From.IsZero() {
			fmt.Fprintf(&b, " %s..%s", f.From.Format("01-02T15:04"), f.Until.Format("01-02T15:04"))
		}
		fmt.Fprintf(&b, ": %s", f.Note)
	default:
		fmt.Fprintf(&b, ": %s", f.Note)
	}
	return b.String()
}

// TestCompare checks every finding on two small files, one of each shape,
// against the test catalog at Monday 2026-10-12 12:00 UTC (20:00 Beijing,
// off-peak). Catalog: deepseek-flash and deepseek-v4-flash 0.15 / 0.003 /
// 0.60 off-peak, twice that at peak (Mon-Fri 01:00-04:00 and 06:00-10:00
// UTC); deepseek-v4-pro 0.66 / 0.022 / 1.98 off-peak; 2026-10-01 a holiday
// and Saturday 2026-10-10 a make-up workday, both off-peak all day;
// deepseek-legacy retired; gemini-2.5-pro 1.25 / 0.125 / 10, above 200,000
// prompt tokens 2.50 / 0.25 / 15.
func TestCompare(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"litellm.json", []string{
			// Not a catalog name; the embedding and the azure/ entry are not compared.
			"only_in_other [deepseek/deepseek-v5-preview]: no catalog model has this name",
			// Off-peak block at half of 3e-07 / 6e-09 / 1.2e-06 per token = 0.15 /
			// 0.003 / 0.60 per 1M, as the catalog. But its override gives the
			// make-up workday weekday hours: 09:00-12:00 and 14:00-18:00 Beijing
			// are 01:00-04:00 and 06:00-10:00 UTC.
			"time_of_use deepseek-flash [deepseek/deepseek-flash] 10-10T01:00..10-10T04:00: catalog offpeak, litellm standard",
			"time_of_use deepseek-flash [deepseek/deepseek-flash] 10-10T06:00..10-10T10:00: catalog offpeak, litellm standard",
			// The peak price at every hour: 1.32e-06 × 1e6 = 1.32 against 0.66, etc.
			"price deepseek-v4-pro [deepseek/deepseek-v4-pro] input>0 offpeak: 0.66 vs 1.32",
			"price deepseek-v4-pro [deepseek/deepseek-v4-pro] cache_read>0 offpeak: 0.022 vs 0.044",
			"price deepseek-v4-pro [deepseek/deepseek-v4-pro] output>0 offpeak: 1.98 vs 3.96",
			"time_of_use deepseek-v4-pro [deepseek/deepseek-v4-pro]: the catalog charges by time of day (2 periods in version 2026-09-10T04:00:00Z); litellm has one price",
			"only_in_other deepseek-legacy [deepseek-legacy]: retired in the catalog since 2026-09-10T04:00:00Z (version 2026-09-10T04:00:00Z)",
			// 9.999999999999999e-06 reads as 10; 3.125e-07 above 200k is 0.3125, not 0.25.
			"price gemini-2.5-pro [gemini/gemini-2.5-pro] cache_read>200000 standard: 0.25 vs 0.3125",
			"only_in_catalog deepseek-v4-flash: litellm lists none of its names",
		}},
		{"deepseek.yml", []string{
			"only_in_other [deepseek-v9]: no catalog model has this name",
			// One dearer window, 01:00-04:00 UTC every day: it misses 06:00-10:00 on
			// the five weekdays of the week from 10-12 and wrongly charges more on
			// the weekend (10-17, 10-18), the holiday (10-01) and the make-up
			// workday (10-10). The removed deepseek-old is skipped.
			"time_of_use deepseek-flash [deepseek-flash] 10-01T01:00..10-01T04:00: catalog offpeak, genai-prices the dearer price (0.3 per 1M input)",
			"time_of_use deepseek-flash [deepseek-flash] 10-10T01:00..10-10T04:00: catalog offpeak, genai-prices the dearer price (0.3 per 1M input)",
			"time_of_use deepseek-flash [deepseek-flash] 10-12T06:00..10-12T10:00: catalog peak, genai-prices the cheaper price (0.15 per 1M input)",
			"time_of_use deepseek-flash [deepseek-flash] 10-13T06:00..10-13T10:00: catalog peak, genai-prices the cheaper price (0.15 per 1M input)",
			"time_of_use deepseek-flash [deepseek-flash] 10-14T06:00..10-14T10:00: catalog peak, genai-prices the cheaper price (0.15 per 1M input)",
			"time_of_use deepseek-flash [deepseek-flash] 10-15T06:00..10-15T10:00: catalog peak, genai-prices the cheaper price (0.15 per 1M input)",
			"time_of_use deepseek-flash [deepseek-flash] 10-16T06:00..10-16T10:00: catalog peak, genai-prices the cheaper price (0.15 per 1M input)",
			"time_of_use deepseek-flash [deepseek-flash] 10-17T01:00..10-17T04:00: catalog offpeak, genai-prices the dearer price (0.3 per 1M input)",
			"time_of_use deepseek-flash [deepseek-flash] 10-18T01:00..10-18T04:00: catalog offpeak, genai-prices the dearer price (0.3 per 1M input)",
			// The 2026-12-01 price is not yet in force: 0.435 / 0.003625 / 0.87.
			"price deepseek-v4-pro [deepseek-v4-pro] input>0 offpeak: 0.66 vs 0.435",
			"price deepseek-v4-pro [deepseek-v4-pro] cache_read>0 offpeak: 0.022 vs 0.003625",
			"price deepseek-v4-pro [deepseek-v4-pro] output>0 offpeak: 1.98 vs 0.87",
			"time_of_use deepseek-v4-pro [deepseek-v4-pro]: the catalog charges by time of day (2 periods in version 2026-09-10T04:00:00Z); genai-prices has one price",
			// starts_with deepseek-v4-pro does not match deepseek-v4-flash; google
			// is not covered by this file, so gemini-2.5-pro is not missing.
			"only_in_catalog deepseek-v4-flash: genai-prices lists none of its names",
		}},
	}
	cat := testCatalog(t)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var got []string
			for _, f := range Compare(cat, []*Database{readDB(t, tt.file)}, at, ScopeAll) {
				got = append(got, describe(f))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestCompareAgreeing checks that a file agreeing with the catalog gives no
// finding: the same LiteLLM flash entry without its make-up workday
// override, compared on a Monday.
func TestCompareAgreeing(t *testing.T) {
	const table = `{"deepseek-flash": {"input_cost_per_token": 3e-07, "output_cost_per_token": 1.2e-06,
	  "cache_read_input_token_cost": 6e-09, "litellm_provider": "deepseek", "mode": "chat",
	  "off_peak_pricing": {"weekday_timezone": "Asia/Shanghai", "input_cost_per_token": 1.5e-07,
	    "output_cost_per_token": 6e-07, "cache_read_input_token_cost": 3e-09,
	    "windows": [{"hours_utc": ["00:00-01:00", "04:00-06:00", "10:00-00:00"], "weekdays": [1, 2, 3, 4, 5]},
	                {"hours_utc": "00:00-00:00", "weekdays": ["Saturday", "Sunday"]},
	                {"hours_utc": "00:00-00:00", "override_dates": ["2026-10-01", "2026-10-10"]}]}}}`
	db, err := Read(context.Background(), "agree.json", strings.NewReader(table))
	if err != nil {
		t.Fatal(err)
	}
	cat := testCatalog(t)
	for _, f := range Compare(cat, []*Database{db}, at, ScopeAll) {
		if f.Model == nil || f.Model.ID == "deepseek-flash" {
			t.Errorf("unexpected finding: %s", describe(f))
		}
	}
}

// TestCompareReadsLikeWithLike checks the entries and prices that are not
// differences: an entry that states no price per token is not compared (nor
// "only in other"), and a cache-write price of 0 agrees with a catalog
// that bills cache writes as input (deepseek-v4-pro: 0.66 for both; the
// test catalog's gemini-2.5-pro lists no cache write, which falls back to
// input), but not with one that bills them apart (acme-large: 6.25).
func TestCompareReadsLikeWithLike(t *testing.T) {
	const table = `{
	  "deepseek/deepseek-v4-pro": {"input_cost_per_token": 6.6e-07, "output_cost_per_token": 1.98e-06,
	    "cache_read_input_token_cost": 2.2e-08, "cache_creation_input_token_cost": 0.0,
	    "litellm_provider": "deepseek", "mode": "chat"},
	  "deepseek/deepseek-context-only": {"max_input_tokens": 128000, "litellm_provider": "deepseek", "mode": "chat"},
	  "gemini/gemini-2.5-pro": {"input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05,
	    "input_cost_per_token_above_200k_tokens": 2.5e-06, "output_cost_per_token_above_200k_tokens": 1.5e-05,
	    "cache_creation_input_token_cost": 0.0, "litellm_provider": "gemini", "mode": "chat"},
	  "acme-large": {"input_cost_per_token": 5e-06, "output_cost_per_token": 2.5e-05,
	    "cache_creation_input_token_cost": 0.0, "litellm_provider": "acme", "mode": "chat"}}`
	db, err := Read(context.Background(), "like.json", strings.NewReader(table))
	if err != nil {
		t.Fatal(err)
	}
	acme, ps := tariffs.Parse("acme.yaml", []byte(`provider: acme
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://acme.example/, kind: official, checked: 2026-11-30}]
models: [{id: acme-large}]
versions:
  - effective: 2026-01-01T00:00:00Z
    prices: {acme-large: {standard: {input: 5, cache_write: 6.25, output: 25}}}
`))
	if acme == nil {
		t.Fatal(ps)
	}
	cat, ps := tariffs.New(append(testCatalog(t).Providers, acme))
	if cat == nil {
		t.Fatal(ps)
	}
	var got []string
	for _, f := range Compare(cat, []*Database{db}, at, ScopeAll) {
		got = append(got, describe(f))
	}
	want := []string{
		"time_of_use deepseek-v4-pro [deepseek/deepseek-v4-pro]: the catalog charges by time of day (2 periods in version 2026-09-10T04:00:00Z); litellm has one price",
		"price acme-large [acme-large] cache_write>0 standard: 6.25 vs 0",
		"only_in_catalog deepseek-flash: litellm lists none of its names",
		"only_in_catalog deepseek-v4-flash: litellm lists none of its names",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCompareScope checks that ScopeCatalog keeps the differences about
// the catalog's own models and leaves out the models only one side has.
func TestCompareScope(t *testing.T) {
	cat := testCatalog(t)
	db := readDB(t, "litellm.json")
	count := func(fs []Finding) map[Kind]int {
		n := map[Kind]int{}
		for _, f := range fs {
			n[f.Kind]++
		}
		return n
	}
	all, mine := count(Compare(cat, []*Database{db}, at, ScopeAll)), count(Compare(cat, []*Database{db}, at, ScopeCatalog))
	for _, k := range []Kind{PriceDiffers, RulesDiffer, UnknownName} {
		if mine[k] != all[k] {
			t.Errorf("%s: %d with scope catalog, %d with scope all; want the same", k, mine[k], all[k])
		}
	}
	if all[OnlyInOther] == 0 || all[OnlyInCatalog] == 0 || mine[OnlyInOther]+mine[OnlyInCatalog] != 0 {
		t.Errorf("only_in_other %d → %d, only_in_catalog %d → %d; want some with scope all, none with scope catalog",
			all[OnlyInOther], mine[OnlyInOther], all[OnlyInCatalog], mine[OnlyInCatalog])
	}
	if _, err := ParseScope("everything"); err == nil {
		t.Error(`ParseScope("everything"): no error`)
	}
}

// TestUnknownNames checks which names the other database gives a catalog
// model that the catalog does not know: snapshot and route forms of a
// catalog name, among the lists of the host the entry's file names.
func TestUnknownNames(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		name, provider string
		want           string // the model's id; "" for none
	}{
		{"deepseek-flash-2026-09-10", "deepseek", "deepseek-flash"},
		{"deepseek/deepseek-flash-20260910", "deepseek", "deepseek-flash"},
		{"gemini/gemini-2.5-pro-001", "google", "gemini-2.5-pro"},
		{"gemini-2.5-pro@20250617", "google", "gemini-2.5-pro"},
		{"gemini-2.5-pro-preview-06-2025", "google", ""}, // a preview is a model of its own
		{"deepseek-v5", "deepseek", ""},
		{"deepseek-flash-2026-09-10", "google", ""}, // another provider's entry
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if m := baseModel(cat, &Entry{Format: GenAIPrices, Name: tt.name, Provider: tt.provider, Host: genaiHost(tt.provider)}); m != nil {
				got = m.ID
			}
			if got != tt.want {
				t.Errorf("baseModel(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

// hostTariffs are a first party and three hosts' lists of the same models.
var hostTariffs = map[string]string{
	"openai.yaml": `provider: openai
hosts: [openai]
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://openai.example/, kind: official, checked: 2026-12-01}]
models: [{id: gpt-4o, names: [gpt-4o, openai/gpt-4o]}]
versions:
  - effective: 2026-01-01T00:00:00Z
    prices: {gpt-4o: {standard: {input: 2.5, cache_read: 1.25, output: 10}}}
`,
	"azure-openai.yaml": `provider: azure-openai
hosts: [azure]
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://azure.example/, kind: official, checked: 2026-12-01}]
models: [{id: azure-gpt-4o, names: [gpt-4o]}]
versions:
  - effective: 2026-01-01T00:00:00Z
    prices: {azure-gpt-4o: {standard: {input: 2.75, cache_read: 1.375, output: 11}}}
`,
	"vertex-ai.yaml": `provider: vertex-ai
hosts: [vertex_ai]
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://vertex.example/, kind: official, checked: 2026-12-01}]
models: [{id: vertex-claude-opus-4-6, names: [claude-opus-4-6]}]
versions:
  - effective: 2026-01-01T00:00:00Z
    prices: {vertex-claude-opus-4-6: {standard: {input: 5.5, output: 27.5}}}
`,
	"aws-bedrock.yaml": `provider: aws-bedrock
hosts: [bedrock]
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://bedrock.example/, kind: official, checked: 2026-12-01}]
models: [{id: bedrock-claude-opus-4-6, names: [anthropic.claude-opus-4-6-v1, us.anthropic.claude-opus-4-6-v1]}]
versions:
  - effective: 2026-01-01T00:00:00Z
    prices: {bedrock-claude-opus-4-6: {standard: {input: 5, output: 25}}}
`,
}

// TestCompareHosts checks that LiteLLM's azure/, vertex_ai/ and bedrock
// entries are compared with their host's list, never with the first
// party's; that a host no tariff prices is not compared; and that a name
// a host's list lacks is an unknown name of that host's model.
func TestCompareHosts(t *testing.T) {
	var providers []*tariffs.Provider
	for _, name := range []string{"openai.yaml", "azure-openai.yaml", "vertex-ai.yaml", "aws-bedrock.yaml"} {
		p, ps := tariffs.Parse(name, []byte(hostTariffs[name]))
		if p == nil {
			t.Fatal(ps)
		}
		providers = append(providers, p)
	}
	cat, ps := tariffs.New(providers)
	if cat == nil {
		t.Fatal(ps)
	}
	// LiteLLM lists the first party's 2.50 / 10 for Azure too, and Vertex
	// and Bedrock's Opus 4.6 at 5 / 25.
	const table = `{
	  "gpt-4o": {"input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 1.25e-06, "litellm_provider": "openai", "mode": "chat"},
	  "azure/gpt-4o": {"input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05, "litellm_provider": "azure", "mode": "chat"},
	  "azure/gpt-4o-2024-08-06": {"input_cost_per_token": 2.75e-06, "output_cost_per_token": 1.1e-05, "litellm_provider": "azure", "mode": "chat"},
	  "azure/gpt-4o-2024-05-13": {"input_cost_per_token": 5e-06, "output_cost_per_token": 1.5e-05, "litellm_provider": "azure", "mode": "chat"},
	  "vertex_ai/claude-opus-4-6": {"input_cost_per_token": 5e-06, "output_cost_per_token": 2.5e-05, "litellm_provider": "vertex_ai-anthropic_models", "mode": "chat"},
	  "us.anthropic.claude-opus-4-6-v1": {"input_cost_per_token": 5e-06, "output_cost_per_token": 2.5e-05, "litellm_provider": "bedrock_converse", "mode": "chat"},
	  "together_ai/openai/gpt-4o": {"input_cost_per_token": 9e-06, "output_cost_per_token": 9e-06, "litellm_provider": "together_ai", "mode": "chat"}}`
	db, err := Read(context.Background(), "hosts.json", strings.NewReader(table))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range Compare(cat, []*Database{db}, at, ScopeCatalog) {
		got = append(got, describe(f))
	}
	want := []string{
		// Azure's own list: 2.75 / 11, not OpenAI's 2.50 / 10.
		"price azure-gpt-4o [azure/gpt-4o] input>0 standard: 2.75 vs 2.5",
		"price azure-gpt-4o [azure/gpt-4o] output>0 standard: 11 vs 10",
		"unknown_name azure-gpt-4o [azure/gpt-4o-2024-08-06]: the catalog does not know this name of azure-gpt-4o: add it to the model's names if it is billed as azure-gpt-4o",
		// An older snapshot at an older price.
		"unknown_name azure-gpt-4o [azure/gpt-4o-2024-05-13]: the catalog does not know this name of azure-gpt-4o: add it to the model's names if it is billed as azure-gpt-4o; litellm prices its input at 5 against 2.75, so it may be a model of its own",
		// Vertex's list: 5.50 / 27.50 (a regional endpoint, say).
		"price vertex-claude-opus-4-6 [vertex_ai/claude-opus-4-6] input>0 standard: 5.5 vs 5",
		"price vertex-claude-opus-4-6 [vertex_ai/claude-opus-4-6] output>0 standard: 27.5 vs 25",
		// Bedrock's list agrees; together_ai has no tariff: not compared.
	}
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

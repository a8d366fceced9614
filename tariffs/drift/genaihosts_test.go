package drift

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
)

// openrouterTariff is an OpenRouter list whose names are OpenRouter's
// author/slug ids, as the catalog's openrouter.yaml writes them.
const openrouterTariff = `provider: openrouter
hosts: [openrouter]
currency: USD
timezone: UTC
billing_time: end
sources: [{url: https://openrouter.example/, kind: official, checked: 2026-12-01}]
models: [{id: openrouter-gpt-4o, names: [openai/gpt-4o, openai/gpt-4o-2024-11-20]}]
versions:
  - effective: 2026-01-01T00:00:00Z
    prices: {openrouter-gpt-4o: {standard: {input: 2.5, output: 10}}}
`

// TestGenAIHostFiles checks that genai-prices files of hosts are held to
// the catalog's list of the host their provider id names, whatever the
// catalog provider is called: aws.yml to Bedrock's (aws-bedrock), azure.yml
// to Azure OpenAI's (azure-openai), never to the first party's; and that
// its OpenRouter file, whose clauses name author/slug ids, matches the
// catalog's OpenRouter names as written. Before, all three files were
// read and silently compared with nothing.
func TestGenAIHostFiles(t *testing.T) {
	var providers []*tariffs.Provider
	for _, name := range []string{"openai.yaml", "azure-openai.yaml", "aws-bedrock.yaml", "openrouter.yaml"} {
		src := hostTariffs[name]
		if name == "openrouter.yaml" {
			src = openrouterTariff
		}
		p, ps := tariffs.Parse(name, []byte(src))
		if p == nil {
			t.Fatal(ps)
		}
		providers = append(providers, p)
	}
	cat, ps := tariffs.New(providers)
	if cat == nil {
		t.Fatal(ps)
	}
	files := map[string]string{
		// Bedrock's regional Opus 4.6 at 5.50 / 27.50 against the list's 5 / 25.
		"aws.yml": `id: aws
models:
  - id: us.anthropic.claude-opus-4-6-v1
    match: {contains: us.anthropic.claude-opus-4-6}
    prices: {input_mtok: 5.5, output_mtok: 27.5}
`,
		// Azure's gpt-4o at OpenAI's 2.50 / 10 against Azure's 2.75 / 11.
		"azure.yml": `id: azure
models:
  - id: gpt-4o
    match: {equals: gpt-4o}
    prices: {input_mtok: 2.5, output_mtok: 10}
`,
		// OpenRouter's gpt-4o with a cached price the list lacks, and a
		// slug the list does not name.
		"openrouter.yml": `id: openrouter
models:
  - id: openai/gpt-4o
    match:
      or:
        - equals: openai/gpt-4o
        - equals: openai/gpt-4o-2024-08-06
    prices: {input_mtok: 2.5, cache_read_mtok: 1.25, output_mtok: 10}
`,
	}
	var dbs []*Database
	for _, name := range []string{"aws.yml", "azure.yml", "openrouter.yml"} {
		db, err := Read(context.Background(), name, strings.NewReader(files[name]))
		if err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, db)
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var got []string
	for _, f := range Compare(cat, dbs, at, ScopeCatalog) {
		got = append(got, describe(f))
	}
	want := []string{
		"price bedrock-claude-opus-4-6 [us.anthropic.claude-opus-4-6-v1] input>0 standard: 5 vs 5.5",
		"price bedrock-claude-opus-4-6 [us.anthropic.claude-opus-4-6-v1] output>0 standard: 25 vs 27.5",
		"price azure-gpt-4o [gpt-4o] input>0 standard: 2.75 vs 2.5",
		"price azure-gpt-4o [gpt-4o] output>0 standard: 11 vs 10",
		// The list has no cached price: cached tokens at the input price.
		"price openrouter-gpt-4o [openai/gpt-4o] cache_read>0 standard: 2.5 vs 1.25",
	}
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

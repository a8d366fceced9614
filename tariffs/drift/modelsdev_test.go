package drift

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/tariffs"
)

// TestReadModelsDev reads the small api.json: every model is an entry of
// its provider's host, with the prices the file writes, exactly.
func TestReadModelsDev(t *testing.T) {
	db := readDB(t, "modelsdev/api.json")
	if db.Format != ModelsDev || db.Read != 6 || len(db.Entries) != 6 || len(db.Skipped) != 0 {
		t.Fatalf("format %s, read %d, entries %d, skipped %v; want models.dev, 6, 6, none", db.Format, db.Read, len(db.Entries), db.Skipped)
	}
	tests := []struct {
		name, host, provider string
		line                 int
		usage                tariffs.Usage
		prompt               int64
		want                 string
	}{
		{"anthropic/claude-sonnet-4.6", "openrouter", "openrouter", 10, tariffs.CacheWrite, 0, "3.75"},
		{"anthropic/claude-sonnet-4.6", "openrouter", "openrouter", 10, tariffs.Output, 200001, "22.5"},
		{"anthropic/claude-sonnet-4.6", "openrouter", "openrouter", 10, tariffs.Input, 200000, "3"},
		{"qwen/qwen3-max", "openrouter", "openrouter", 25, tariffs.CacheRead, 0, "0.156"},
		{"gemini-2.5-pro", "vertex_ai", "google-vertex", 46, tariffs.CacheRead, 300000, "0.25"},
		{"gpt-4.1-nano", "openai", "openai", 64, tariffs.Input, 0, "0.1"},
		{"llama-3.3-70b-versatile", "groq", "groq", 76, tariffs.Output, 0, "0.79"},
	}
	for _, tt := range tests {
		i := slices.IndexFunc(db.Entries, func(e *Entry) bool { return e.Name == tt.name })
		if i < 0 {
			t.Errorf("%s: no entry", tt.name)
			continue
		}
		e := db.Entries[i]
		if e.Host != tt.host || e.Provider != tt.provider || e.Line != tt.line {
			t.Errorf("%s: host %s, provider %s, line %d; want %s, %s, %d", tt.name, e.Host, e.Provider, e.Line, tt.host, tt.provider, tt.line)
		}
		if got, ok := e.priceAt(tt.usage, at, tt.prompt); !ok || got.String() != tt.want {
			t.Errorf("%s %s at prompt %d: %s (listed %v), want %s", tt.name, tt.usage, tt.prompt, got, ok, tt.want)
		}
	}
}

// TestModelsDevCost covers the shapes of a cost a whole table holds: the
// older context_over_200k alone, a tier by another measure, numbers with
// an exponent, and a model without a cost.
func TestModelsDevCost(t *testing.T) {
	tests := []struct {
		name, cost string
		usage      tariffs.Usage
		prompt     int64
		want, err  string
	}{
		{name: "context_over_200k without tiers", cost: `{"input": 1, "output": 2, "context_over_200k": {"input": 2, "output": 4}}`,
			usage: tariffs.Output, prompt: 200001, want: "4"},
		{name: "tiers win over context_over_200k", cost: `{"input": 1, "output": 2, "tiers": [{"tier": {"type": "context", "size": 272000}, "input": 2, "output": 3}], "context_over_200k": {"input": 2, "output": 3}}`,
			usage: tariffs.Output, prompt: 250000, want: "2"},
		{name: "an exponent is read as written", cost: `{"input": 1e-7, "output": 2.5E-1}`, usage: tariffs.Input, want: "0.0000001"},
		{name: "a float's long text is kept", cost: `{"input": 0.30000000000000004, "output": 1}`, usage: tariffs.Input, want: "0.30000000000000004"},
		{name: "no cost states no price", cost: `null`, usage: tariffs.Input, err: "no price"},
		{name: "a tier by another measure", cost: `{"input": 1, "output": 2, "tiers": [{"tier": {"type": "requests", "size": 5}, "input": 1}]}`,
			err: "cost.tiers[0]: tier is not by context size"},
		{name: "a negative price", cost: `{"input": -1, "output": 2}`, err: "cost.input: -1 is negative"},
		{name: "a price that is text", cost: `{"input": "cheap", "output": 2}`, err: "cost.input:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{"p": {"id": "p", "models": {"m": {"id": "m", "cost": ` + tt.cost + `}}}}`
			db, err := Read(context.Background(), "api.json", strings.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			if tt.err != "" && tt.err != "no price" {
				if len(db.Skipped) != 1 || !strings.Contains(db.Skipped[0].Reason, tt.err) {
					t.Fatalf("skipped %v, want one skipped for %q", db.Skipped, tt.err)
				}
				return
			}
			if len(db.Entries) != 1 {
				t.Fatalf("entries %d, skipped %v; want one entry", len(db.Entries), db.Skipped)
			}
			e := db.Entries[0]
			if tt.err == "no price" {
				if e.Priced() {
					t.Errorf("an entry without a cost states a price")
				}
				return
			}
			if got, ok := e.priceAt(tt.usage, at, tt.prompt); !ok || got.String() != tt.want {
				t.Errorf("%s at prompt %d: %s (listed %v), want %s", tt.usage, tt.prompt, got, ok, tt.want)
			}
		})
	}
}

// TestFormatByContent tells the three formats apart by what the file holds.
func TestFormatByContent(t *testing.T) {
	tests := []struct {
		name, doc string
		want      Format
	}{
		{"models.dev", `{"openai": {"id": "openai", "models": {}}}`, ModelsDev},
		{"LiteLLM", `{"gpt-4o": {"input_cost_per_token": 2.5e-06, "litellm_provider": "openai"}}`, LiteLLM},
		{"LiteLLM with its sample_spec first", `{"sample_spec": {"litellm_provider": "x"}, "m": {"input_cost_per_token": 1e-06}}`, LiteLLM},
		{"LiteLLM entry with a models key that is no object", `{"m": {"models": ["a"], "input_cost_per_token": 1e-06}}`, LiteLLM},
		{"genai-prices", "id: openai\nmodels: []\n", GenAIPrices},
	}
	for _, tt := range tests {
		db, err := Read(context.Background(), tt.name, strings.NewReader(tt.doc))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if db.Format != tt.want {
			t.Errorf("%s: read as %s, want %s", tt.name, db.Format, tt.want)
		}
	}
}

// TestCompareModelsDev compares api.json with a small OpenRouter list:
// models.dev's OpenRouter covers the host, so the catalog's gpt-4o is
// missing there and its Qwen and Kimi models are missing here; Sonnet
// 4.6's long-prompt cache read differs (0.5 against 0.6). The Vertex,
// OpenAI and Groq models are on hosts the list does not price.
func TestCompareModelsDev(t *testing.T) {
	cat, ps := tariffs.Load("testdata/modelsdev/catalog")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	var got []string
	for _, f := range Compare(cat, []*Database{readDB(t, "modelsdev/api.json")}, at, ScopeAll) {
		got = append(got, describe(f))
	}
	want := []string{
		"only_in_other [qwen/qwen3-max]: no catalog model has this name",
		"only_in_other [moonshotai/kimi-k2]: no catalog model has this name",
		"price openrouter-claude-sonnet-4-6 [anthropic/claude-sonnet-4.6] cache_read>200000 standard: 0.5 vs 0.6",
		"only_in_catalog openrouter-gpt-4o: models.dev lists none of its names",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

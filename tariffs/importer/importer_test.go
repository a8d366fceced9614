package importer_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
	"github.com/tokenfare/tokenfare/tariffs/drift"
	"github.com/tokenfare/tokenfare/tariffs/importer"
)

const driftData = "../drift/testdata/"

func table(t *testing.T, name string) *importer.Table {
	t.Helper()
	f, err := os.Open(filepath.Join(driftData, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, err := drift.Read(context.Background(), name, f)
	if err != nil {
		t.Fatal(err)
	}
	return &importer.Table{DB: db, URL: "https://example.com/" + name}
}

func catalog(t *testing.T, path string) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffs.Load(path)
	if cat == nil {
		t.Fatal(ps)
	}
	return cat
}

var effective = time.Date(2026, 7, 24, 18, 23, 0, 0, time.UTC)

// load lays the files over cat, as --tariffs-overlay does.
func load(t *testing.T, cat *tariffs.Catalog, res *importer.Result) *tariffs.Catalog {
	t.Helper()
	providers := slices.Clone(cat.Providers)
	for _, f := range res.Files {
		p, ps := tariffs.Parse(f.Name, f.Data)
		if p == nil {
			t.Fatalf("%s: %v\n%s", f.Name, ps, f.Data)
		}
		providers = append(providers, p)
	}
	c, ps := tariffs.New(providers)
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	return c
}

// price returns the price of u for a call of name on host at instant at
// with prompt tokens in service tier s, as the catalog prices it.
func price(t *testing.T, cat *tariffs.Catalog, host, name string, s tariffs.ServiceTier, prompt int64, u tariffs.Usage) string {
	t.Helper()
	m, _, ok := cat.ResolveOn(host, name)
	if !ok {
		return "unpriced"
	}
	q := m.At(effective.Add(time.Hour))
	if q.Status != tariffs.Priced {
		return m.ID + " " + q.Status.String()
	}
	mp, _ := q.Prices.Variant(s, "")
	return m.ID + " " + mp.For(q.Period, prompt).Price(u).String()
}

// TestImportLiteLLM imports the trimmed copy of LiteLLM's table (see
// ../drift/testdata/litellm/README.md) beside a catalog of DeepSeek and
// Gemini 2.5 Pro: the 25 entries are 17 imported and 8 skipped, each
// for its reason, and the imported prices are the table's per-token
// figures moved six places.
func TestImportLiteLLM(t *testing.T) {
	cat := catalog(t, driftData+"catalog")
	res, err := importer.Import(cat, []*importer.Table{table(t, "litellm/trimmed.json")}, importer.Options{Effective: effective, Checked: "2026-07-24"})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Counts[0]
	want := [importer.NumReasons]int{importer.Unreadable: 2, importer.NotPerToken: 1, importer.InCatalog: 4, importer.Duplicate: 1}
	if c.Read != 25 || c.Imported != 17 || c.Skipped != want {
		t.Errorf("read %d, imported %d, skipped %v; want 25, 17, %v", c.Read, c.Imported, c.Skipped, want)
	}
	var files []string
	for _, f := range res.Files {
		files = append(files, f.Name)
	}
	wantFiles := []string{"imported-anthropic.yaml", "imported-azure.yaml", "imported-azure_ai.yaml", "imported-bedrock.yaml",
		"imported-dashscope.yaml", "imported-gemini.yaml", "imported-openai.yaml", "imported-vertex_ai.yaml"}
	if !slices.Equal(files, wantFiles) {
		t.Errorf("files %q, want %q", files, wantFiles)
	}
	over := load(t, cat, res)
	tests := []struct {
		name, host, model string
		service           tariffs.ServiceTier
		prompt            int64
		usage             tariffs.Usage
		want              string
	}{
		// input_cost_per_token 2.5e-06, cache_read 1.25e-06, priority 4.25e-06 / 2.125e-06.
		{"first party", "openai", "gpt-4o", tariffs.Standard, 0, tariffs.Input, "imported/openai/gpt-4o 2.5"},
		{"cache read", "openai", "openai/gpt-4o", tariffs.Standard, 0, tariffs.CacheRead, "imported/openai/gpt-4o 1.25"},
		{"priority", "openai", "gpt-4o", tariffs.Priority, 0, tariffs.CacheRead, "imported/openai/gpt-4o 2.125"},
		// output 1.5e-05, above 272k 2.25e-05.
		{"prompt-size tier", "openai", "gpt-5.4", tariffs.Standard, 272001, tariffs.Output, "imported/openai/gpt-5.4 22.5"},
		{"at the tier's threshold", "openai", "gpt-5.4", tariffs.Standard, 272000, tariffs.Output, "imported/openai/gpt-5.4 15"},
		// tiered_pricing: 4e-07 to 256,000 prompt tokens, then 2e-06.
		{"tiered_pricing", "dashscope", "dashscope/qwen-flash", tariffs.Standard, 300000, tariffs.Output, "imported/dashscope/qwen-flash 2"},
		// cache_creation_input_token_cost_above_1hr 1.1e-05 (us. profile).
		{"1-hour writes", "bedrock", "us.anthropic.claude-opus-4-6-v1", tariffs.Standard, 0, tariffs.CacheWrite1h, "imported/bedrock/us.anthropic.claude-opus-4-6-v1 11"},
		{"a host's name without its prefix", "vertex_ai", "vertex_ai/claude-opus-4-6", tariffs.Standard, 0, tariffs.Output, "imported/vertex_ai/claude-opus-4-6 25"},
		// The catalog's first DeepSeek version is of 2026-08-22: its model is
		// kept, with its own history, not the table's.
		{"a catalog model is kept", "deepseek", "deepseek-v4-pro", tariffs.Standard, 0, tariffs.Input, "deepseek-v4-pro unpriced"},
		{"a model the tables lack stays unpriced", "openai", "gpt-4.1", tariffs.Standard, 0, tariffs.Input, "unpriced"},
	}
	for _, tt := range tests {
		if got := price(t, over, tt.host, tt.model, tt.service, tt.prompt, tt.usage); got != tt.want {
			t.Errorf("%s: %s on %s: %s %s = %s, want %s", tt.name, tt.model, tt.host, tt.service, tt.usage, got, tt.want)
		}
	}
	if m := over.Model("imported/openai/gpt-4o"); m.At(effective.Add(-time.Minute)).Status == tariffs.Priced {
		t.Errorf("gpt-4o is priced before the table's date")
	}
}

// TestImportSkipsNamed checks each reason an entry is left out names it.
func TestImportSkipsNamed(t *testing.T) {
	cat := catalog(t, driftData+"catalog")
	res, err := importer.Import(cat, []*importer.Table{table(t, "litellm/trimmed.json")}, importer.Options{Effective: effective, Checked: "2026-07-24"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Skipped {
		got = append(got, s.Name+": "+s.Reason.String()+": "+s.Detail)
	}
	want := []string{
		"exa_ai/search: unreadable: tiered_pricing[0]: range is not [from, to]",
		"firecrawl/search: unreadable: tiered_pricing[0]: range is not [from, to]",
		"1024-x-1024/dall-e-2: not_per_token: mode image_generation: not priced per token like a chat model",
		"vertex_ai/gemini-3.1-pro-preview: duplicate: gemini-3.1-pro-preview on host vertex_ai is imported already from litellm/trimmed.json:656",
		"deepseek-v4-flash: in_catalog: the catalog prices it on host deepseek as deepseek-v4-flash (--replace takes the table's price)",
		"deepseek-v4-pro: in_catalog: the catalog prices it on host deepseek as deepseek-v4-pro (--replace takes the table's price)",
		"deepseek/deepseek-v4-flash: in_catalog: the catalog prices it on host deepseek as deepseek-v4-flash (--replace takes the table's price)",
		"deepseek/deepseek-v4-pro: in_catalog: the catalog prices it on host deepseek as deepseek-v4-pro (--replace takes the table's price)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestImportReplace imports genai-prices' Anthropic file (a real copy,
// ../drift/testdata/genai-anthropic.yml) over the embedded catalog, which
// prices claude-sonnet-4-6: left out without Replace; with it, the
// model's every name on anthropic takes the table's prices. The file's
// second price, from 2026-03-13, is in force at the instant: flat, its
// long-context surcharge gone; before, the first one's tiers.
func TestImportReplace(t *testing.T) {
	cat := catalog(t, "")
	for _, replace := range []bool{false, true} {
		res, err := importer.Import(cat, []*importer.Table{table(t, "genai-anthropic.yml")}, importer.Options{Effective: effective, Checked: "2026-08-21", Replace: replace})
		if err != nil {
			t.Fatal(err)
		}
		over := load(t, cat, res)
		m, _, _ := over.ResolveOn("anthropic", "anthropic/claude-sonnet-4-6")
		switch {
		case !replace && (len(res.Files) != 0 || m.ID != "claude-sonnet-4-6" || res.Skipped[0].Reason != importer.InCatalog):
			t.Errorf("without replace: %d files, resolves to %s, skipped %v", len(res.Files), m.ID, res.Skipped)
		case replace && (len(res.Files) != 1 || m.ID != "imported/anthropic/claude-sonnet-4-6"):
			t.Errorf("with replace: %d files, resolves to %s", len(res.Files), m.ID)
		case replace:
			if got := price(t, over, "", "claude-sonnet-4-6", tariffs.Standard, 200001, tariffs.CacheWrite1h); got != m.ID+" 6" {
				t.Errorf("1-hour writes above 200k: %s, want 6", got)
			}
		}
	}
}

// TestImportConditional takes genai-prices' price in force at the
// effective instant: before 2026-03-13, Sonnet 4.6's long-context tier.
func TestImportConditional(t *testing.T) {
	cat := catalog(t, driftData+"catalog")
	before := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	res, err := importer.Import(cat, []*importer.Table{table(t, "genai-anthropic.yml")}, importer.Options{Effective: before, Checked: "2026-08-21"})
	if err != nil {
		t.Fatal(err)
	}
	want := "- above: 200000\n          prices:\n            standard: {input: 6, cache_read: 0.6, cache_write: 7.5, cache_write_1h: 12, output: 22.5}"
	if len(res.Files) != 1 || !strings.Contains(string(res.Files[0].Data), want) {
		t.Errorf("files %d, want one with\n%s", len(res.Files), want)
	}
}

// TestImportModelsDev imports the models.dev file over its small
// OpenRouter list, with the filters: --provider openrouter keeps the
// three OpenRouter models, of which the list prices Sonnet 4.6.
func TestImportModelsDev(t *testing.T) {
	cat := catalog(t, driftData+"modelsdev/catalog")
	tests := []struct {
		name      string
		opts      importer.Options
		imported  int
		notChosen int
		names     []string
	}{
		{"all", importer.Options{}, 4, 0, []string{"imported/openai/gpt-4.1-nano", "imported/openrouter/qwen/qwen3-max", "imported/openrouter/moonshotai/kimi-k2", "imported/vertex_ai/gemini-2.5-pro"}},
		{"a provider", importer.Options{Providers: []string{"openrouter"}}, 2, 3, []string{"imported/openrouter/qwen/qwen3-max", "imported/openrouter/moonshotai/kimi-k2"}},
		{"a models.dev provider id", importer.Options{Providers: []string{"google-vertex"}}, 1, 5, []string{"imported/vertex_ai/gemini-2.5-pro"}},
		{"a model pattern", importer.Options{Models: []string{"qwen/*"}}, 1, 5, []string{"imported/openrouter/qwen/qwen3-max"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Effective, tt.opts.Checked = effective, "2026-07-02"
			res, err := importer.Import(cat, []*importer.Table{table(t, "modelsdev/api.json")}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if c := res.Counts[0]; c.Imported != tt.imported || c.NotSelected != tt.notChosen {
				t.Errorf("imported %d, not selected %d; want %d, %d", c.Imported, c.NotSelected, tt.imported, tt.notChosen)
			}
			over := load(t, cat, res)
			var got []string
			for _, p := range over.Providers[1:] {
				for _, m := range p.Models {
					got = append(got, m.ID)
				}
			}
			if !slices.Equal(got, tt.names) {
				t.Errorf("models %q, want %q", got, tt.names)
			}
		})
	}
	res, _ := importer.Import(cat, []*importer.Table{table(t, "modelsdev/api.json")}, importer.Options{Effective: effective, Checked: "2026-07-02"})
	over := load(t, cat, res)
	if got := price(t, over, "openrouter", "qwen/qwen3-max", tariffs.Standard, 0, tariffs.CacheWrite); got != "imported/openrouter/qwen/qwen3-max 0.975" {
		t.Errorf("qwen3-max cache writes: %s", got)
	}
	if got := price(t, over, "vertex_ai", "gemini-2.5-pro", tariffs.Standard, 200001, tariffs.CacheRead); got != "imported/vertex_ai/gemini-2.5-pro 0.25" {
		t.Errorf("gemini-2.5-pro long-prompt cache reads: %s", got)
	}
	if s := res.Skipped; len(s) != 2 || s[1].Reason != importer.UnknownHost || s[0].Reason != importer.InCatalog {
		t.Errorf("skipped %v, want Sonnet in the catalog and Groq's host unknown", s)
	}
}

// TestImportMarksSecondary checks what a file says it rests on.
func TestImportMarksSecondary(t *testing.T) {
	cat := catalog(t, driftData+"catalog")
	tb := table(t, "modelsdev/api.json")
	tb.Commit = "f3fc692299671838c7c65fd8126bf84d81a2e817"
	res, err := importer.Import(cat, []*importer.Table{tb}, importer.Options{Effective: effective, Checked: "2026-07-02", Providers: []string{"openai"}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := tariffs.Parse(res.Files[0].Name, res.Files[0].Data)
	s := p.Sources[0]
	if p.Name != "imported-openai" || s.Kind != tariffs.SourceSecondary || s.Checked != "2026-07-02" || !strings.Contains(s.Note, "at commit f3fc692299671838c7c65fd8126bf84d81a2e817") {
		t.Errorf("provider %s, source %+v", p.Name, s)
	}
	if v := p.Versions[0]; v.Basis != tariffs.SourceSecondary || !v.Effective.Equal(effective) {
		t.Errorf("version basis %s, effective %v", v.Basis, v.Effective)
	}
	if n := p.Models[0].Note; !strings.Contains(n, "models.dev's api.json modelsdev/api.json:64 (gpt-4.1-nano), a secondary source") {
		t.Errorf("note %q", n)
	}
}

// FuzzImport: whatever a table holds, every entry is accounted for
// (imported, not selected or skipped) and Import never writes a file that
// does not load with the catalog (it would fail).
func FuzzImport(f *testing.F) {
	f.Add([]byte(`{"openrouter/x/y": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "litellm_provider": "openrouter"}}`))
	f.Add([]byte(`{"openai": {"models": {"gpt-x": {"cost": {"input": 1, "output": 2, "cache_write": 0, "tiers": [{"tier": {"size": 10}, "input": 3}]}}}}}`))
	f.Add([]byte("id: openrouter\nmodels:\n  - id: m\n    match: {equals: m}\n    prices: {input_mtok: {base: 1, tiers: [{start: 10, price: 2}]}, output_mtok: 3}\n"))
	cat, ps := tariffs.Load(driftData + "catalog")
	if cat == nil {
		f.Fatal(ps)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := drift.Read(context.Background(), "fuzz", strings.NewReader(string(data)))
		if err != nil {
			return
		}
		res, err := importer.Import(cat, []*importer.Table{{DB: db, URL: "https://example.com/t"}}, importer.Options{Effective: effective, Checked: "2026-07-24"})
		if err != nil {
			t.Fatalf("%v\nfrom %q", err, data)
		}
		c := res.Counts[0]
		n := c.Imported + c.NotSelected
		for _, k := range c.Skipped {
			n += k
		}
		if n != c.Read {
			t.Fatalf("%d of %d entries accounted for, from %q", n, c.Read, data)
		}
	})
}

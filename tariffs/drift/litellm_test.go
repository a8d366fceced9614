package drift

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

func TestReadLiteLLMPrices(t *testing.T) {
	db := readDB(t, "litellm.json")
	byName := map[string]*Entry{}
	for _, e := range db.Entries {
		byName[e.Name] = e
	}
	if _, ok := byName["sample_spec"]; ok {
		t.Error("sample_spec is read as a model")
	}
	g := byName["gemini/gemini-2.5-pro"]
	if g == nil || g.Host != "gemini" || g.Line != 57 {
		t.Fatalf("gemini entry = %+v, want host gemini at line 57", g)
	}
	tests := []struct {
		name   string
		usage  tariffs.Usage
		prompt int64
		want   string
	}{
		{"per token moved to per 1M", tariffs.Input, 0, "1.25"},              // 1.25e-06 × 1e6
		{"float artifact rounded to 12 places", tariffs.Output, 0, "10"},     // 9.999999999999999e-06 × 1e6
		{"threshold is exclusive", tariffs.Input, 200000, "1.25"},            // 200,000 is not above 200k
		{"above 200k replaces the whole call", tariffs.Input, 200001, "2.5"}, // 2.5e-06 × 1e6
		{"above-threshold cache read", tariffs.CacheRead, 200001, "0.3125"},  // 3.125e-07 × 1e6
		{"above-threshold output", tariffs.Output, 1000000, "15"},            // 1.5e-05 × 1e6
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := g.priceAt(tt.usage, at, tt.prompt)
			if !ok || !got.Equal(decimal.RequireFromString(tt.want)) {
				t.Errorf("price = %s (listed %v), want %s", got, ok, tt.want)
			}
		})
	}
	// A threshold written without k, and keys of other dimensions
	// (1-hour writes, priority) that are not compared.
	const plain = `{"m": {"input_cost_per_token": 2e-6, "input_cost_per_token_above_120_tokens": 3e-6,
	  "cache_creation_input_token_cost_above_1hr_above_120_tokens": 6e-6, "input_cost_per_token_priority": 9e-6}}`
	pdb, err := Read(context.Background(), "plain.json", strings.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	for prompt, want := range map[int64]string{120: "2", 121: "3"} { // 2e-6 and 3e-6 per token
		if got, _ := pdb.Entries[0].priceAt(tariffs.Input, at, prompt); !got.Equal(decimal.RequireFromString(want)) {
			t.Errorf("input at prompt %d = %s, want %s", prompt, got, want)
		}
	}
	if _, ok := pdb.Entries[0].priceAt(tariffs.CacheWrite, at, 121); ok {
		t.Error("a 1-hour cache-write price is read as cache_write")
	}
	if _, ok := g.priceAt(tariffs.CacheWrite, at, 0); ok {
		t.Error("cache write is listed, but the entry gives no cache_creation_input_token_cost")
	}
}

// TestOffPeakRules checks LiteLLM's off_peak_pricing semantics on the test
// file's deepseek-flash block (weekday windows in UTC, weekends whole days,
// two override dates, days judged in Asia/Shanghai).
func TestOffPeakRules(t *testing.T) {
	db := readDB(t, "litellm.json")
	op := db.Entries[0].offPeak
	if db.Entries[0].Name != "deepseek/deepseek-flash" || op == nil {
		t.Fatalf("first entry = %s with block %v", db.Entries[0].Name, op)
	}
	tests := []struct {
		name string
		at   string
		want bool
	}{
		{"weekday before peak", "2026-10-12T00:59:00Z", true},
		{"weekday peak start inclusive", "2026-10-12T01:00:00Z", false},
		{"weekday peak end exclusive", "2026-10-12T04:00:00Z", true},
		{"window to midnight", "2026-10-12T23:59:00Z", true},
		{"Friday 16:00 UTC is Saturday in Beijing", "2026-10-16T16:00:00Z", true},
		{"Saturday by ISO number 6", "2026-10-17T02:00:00Z", true},
		{"holiday override whole day", "2026-10-01T02:00:00Z", true},
		{"make-up workday override: weekday hours", "2026-10-10T02:00:00Z", false},
		{"make-up workday override: outside them", "2026-10-10T05:00:00Z", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, _ := time.Parse(time.RFC3339, tt.at)
			if got := op.at(ts); got != tt.want {
				t.Errorf("off-peak at %s = %v, want %v", tt.at, got, tt.want)
			}
		})
	}
	in, _ := db.Entries[0].priceAt(tariffs.Input, time.Date(2026, 10, 12, 2, 0, 0, 0, time.UTC), 0)
	if !in.Equal(decimal.RequireFromString("0.3")) {
		t.Errorf("peak input = %s, want 0.3 (3e-07 × 1e6)", in)
	}
}

// TestReadLiteLLMErrors checks that a file that cannot be read at all is
// an error naming its line, and that an entry that cannot be read is
// skipped with its name, line and reason while the others are read.
func TestReadLiteLLMErrors(t *testing.T) {
	fatal := []struct {
		name, data, want string
	}{
		{"syntax error", "{\n\"m\": {\n\"input_cost_per_token\": 1e-06,,\n}}", "bad.json:3: "},
		{"not an object", "[1, 2]", "neither a LiteLLM JSON table nor a genai-prices provider file"},
	}
	for _, tt := range fatal {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(context.Background(), "bad.json", strings.NewReader(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	const good = `, "ok": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}}`
	skipped := []struct {
		name, entry string
		line        int
		want        string
	}{
		{"price as a word", "{\n  \"m\": {\n    \"input_cost_per_token\": \"cheap\"}", 2, `input_cost_per_token: "cheap" is not a number`},
		{"negative price", `{"m": {"output_cost_per_token": -1e-06}`, 1, "output_cost_per_token: -0.000001 is negative"},
		{"bad price above a plain threshold", `{"m": {"input_cost_per_token_above_120_tokens": "x"}`, 1, `input_cost_per_token_above_120_tokens: "x" is not a number`},
		{"bad off-peak price", `{"m": {"off_peak_pricing": {"input_cost_per_token": "x"}}`, 1, "off_peak_pricing: input_cost_per_token"},
		// LiteLLM's exa_ai/search: tiers by result count, not by prompt tokens.
		{"tiers by another measure", `{"m": {"mode": "search", "tiered_pricing": [{"input_cost_per_query": 0.005, "max_results_range": [0, 25]}]}`, 1, "tiered_pricing[0]: range is not [from, to]"},
		{"a value that is not an object", `{"m": "2026-07-24"`, 1, "not an object of model facts"},
	}
	for _, tt := range skipped {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Read(context.Background(), "bad.json", strings.NewReader(tt.entry+good))
			if err != nil {
				t.Fatalf("the file was not read: %v", err)
			}
			if db.Read != 2 || len(db.Entries) != 1 || db.Entries[0].Name != "ok" || len(db.Skipped) != 1 {
				t.Fatalf("read %d, entries %d, skipped %v; want 2 read, ok kept, m skipped", db.Read, len(db.Entries), db.Skipped)
			}
			if s := db.Skipped[0]; s.Name != "m" || s.Line != tt.line || !strings.Contains(s.Reason, tt.want) {
				t.Errorf("skipped %+v, want m at line %d: %q", s, tt.line, tt.want)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"m": {"input_cost_per_token": 1e-06, "off_peak_pricing": {"hours_utc": "22:00-02:00"}}}`))
	f.Add([]byte(`{"p": {"models": {"m": {"cost": {"input": 1, "output": 2, "tiers": [{"tier": {"size": 10}, "input": 3}]}}}}}`))
	f.Add([]byte("id: x\nmodels:\n  - id: m\n    match: {equals: m}\n    prices: {input_mtok: {base: 1, tiers: [{start: 10, price: 2}]}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := Read(context.Background(), "fuzz", strings.NewReader(string(data)))
		if err != nil {
			return
		}
		for _, e := range db.Entries {
			for u := range tariffs.NumUsage {
				if p, ok := e.priceAt(tariffs.Usage(u), at, 1); ok && p.IsNegative() {
					t.Fatalf("negative price %s read from %q", p, data)
				}
			}
		}
	})
}

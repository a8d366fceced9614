package drift

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/tariffs"
)

func TestReadGenAIPrices(t *testing.T) {
	const file = `id: anthropic
models:
  - id: claude-sonnet-4-5
    match:
      and:
        - starts_with: claude-sonnet-4
        - contains: "4-5"
    prices:
      input_mtok: {base: 3, tiers: [{start: 200000, price: 6}]}
      cache_write_5m_mtok: 3.75
      cache_read_mtok: 0.3
      output_mtok: {base: 15, tiers: [{start: 200000, price: 22.5}]}
      requests_kcount: 2.5
`
	db, err := Read(context.Background(), "anthropic.yml", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	e := db.Entries[0]
	if e.Provider != "anthropic" || e.Line != 3 || db.Format != GenAIPrices {
		t.Fatalf("entry = %+v in %s", e, db.Format)
	}
	tests := []struct {
		usage  tariffs.Usage
		prompt int64
		want   string
	}{
		{tariffs.Input, 200000, "3"},
		{tariffs.Input, 200001, "6"},
		{tariffs.Output, 200001, "22.5"},
		{tariffs.CacheWrite, 0, "3.75"},    // the 5-minute write stands for cache_write
		{tariffs.CacheRead, 500000, "0.3"}, // not tiered: the base price for every prompt
		{tariffs.Request, 0, "0.0025"},     // 2.5 per 1,000 requests
	}
	for _, tt := range tests {
		got, ok := e.priceAt(tt.usage, at, tt.prompt)
		if !ok || !got.Equal(decimal.RequireFromString(tt.want)) {
			t.Errorf("%s at prompt %d = %s (listed %v), want %s", tt.usage, tt.prompt, got, ok, tt.want)
		}
	}
	for name, want := range map[string]bool{"claude-sonnet-4-5": true, "CLAUDE-SONNET-4-5-20250929": true, "claude-sonnet-4-6": false} {
		if e.match(name) != want {
			t.Errorf("match(%q) = %v, want %v", name, !want, want)
		}
	}
}

// TestGenAIPricesChoice checks which conditional price applies: the last
// whose constraints hold, else the first.
func TestGenAIPricesChoice(t *testing.T) {
	db := readDB(t, "deepseek.yml")
	flash, pro := db.Entries[0], db.Entries[1]
	tests := []struct {
		name string
		e    *Entry
		at   time.Time
		want string
	}{
		{"inside the time window", flash, time.Date(2026, 10, 12, 1, 0, 0, 0, time.UTC), "0.30"},
		{"window end exclusive", flash, time.Date(2026, 10, 12, 4, 0, 0, 0, time.UTC), "0.15"},
		{"before the start date", pro, time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC), "0.435"},
		{"from the start date", pro, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), "0.66"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := tt.e.priceAt(tariffs.Input, tt.at, 0)
			if !got.Equal(decimal.RequireFromString(tt.want)) {
				t.Errorf("input = %s, want %s", got, tt.want)
			}
		})
	}
	if len(db.Entries) != 3 {
		t.Errorf("%d entries, want 3 (the removed model is skipped)", len(db.Entries))
	}
}

// TestReadGenAIPricesErrors checks file-level errors, and models that
// cannot be read: skipped with their id, line and reason.
func TestReadGenAIPricesErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
		skipped          bool
	}{
		{"no models", "id: x\n", "p.yml:1: a genai-prices provider file needs id and a list of models", false},
		{"bad price", "id: x\nmodels:\n  - id: m\n    match: {equals: m}\n    prices: {input_mtok: lots}\n", `model m: line 5: input_mtok: "lots" is not a number`, true},
		{"bad clause", "id: x\nmodels:\n  - id: m\n    match: {like: m}\n    prices: {input_mtok: 1}\n", `model m: match: unknown clause "like"`, true},
		{"bad start date", "id: x\nmodels:\n  - id: m\n    match: {equals: m}\n    prices:\n      - constraint: {start_date: soon}\n        prices: {input_mtok: 1}\n", `start_date "soon" is not YYYY-MM-DD`, true},
		{"yaml syntax", "id: [x\n", "p.yml: yaml:", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Read(context.Background(), "p.yml", strings.NewReader(tt.data))
			switch {
			case !tt.skipped && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			case tt.skipped && err != nil:
				t.Errorf("error = %v, want the model skipped", err)
			case tt.skipped && (db.Read != 1 || len(db.Skipped) != 1 || db.Skipped[0].Name != "m" || db.Skipped[0].Line != 3 ||
				!strings.Contains(db.Skipped[0].Reason, tt.want)):
				t.Errorf("read %d, skipped %+v; want m at line 3: %q", db.Read, db.Skipped, tt.want)
			}
		})
	}
}

package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func testConfig(format string) config {
	return config{
		Rows:   20000,
		Seed:   7,
		Start:  time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
		Days:   30,
		Format: format,
	}
}

func render(t *testing.T, cfg config) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := generate(&buf, cfg); err != nil {
		t.Fatalf("generate: %v", err)
	}
	return buf.Bytes()
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, format := range []string{"flat", "dump"} {
		t.Run(format, func(t *testing.T) {
			cfg := testConfig(format)
			first, second := render(t, cfg), render(t, cfg)
			if !bytes.Equal(first, second) {
				t.Fatalf("two runs with the same flags differ (%d vs %d bytes)", len(first), len(second))
			}
			cfg.Seed++
			if bytes.Equal(first, render(t, cfg)) {
				t.Fatalf("seeds %d and %d gave the same bytes", cfg.Seed-1, cfg.Seed)
			}
		})
	}
}

// flatRow is one parsed flat row, by column name.
type flatRow map[string]string

func parseFlat(t *testing.T, data []byte) []flatRow {
	t.Helper()
	records, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("not valid CSV: %v", err)
	}
	header := strings.Join(records[0], ",") + "\n"
	if header != flatHeader {
		t.Fatalf("header = %q, want %q", header, flatHeader)
	}
	rows := make([]flatRow, 0, len(records)-1)
	for _, rec := range records[1:] {
		row := flatRow{}
		for i, name := range records[0] {
			row[name] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows
}

func (r flatRow) int(t *testing.T, col string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(r[col], 10, 64)
	if err != nil {
		t.Fatalf("request %s: %s %q: %v", r["request_id"], col, r[col], err)
	}
	return n
}

func (r flatRow) time(t *testing.T, col string) time.Time {
	t.Helper()
	ts, err := time.Parse("2006-01-02 15:04:05.000", r[col])
	if err != nil {
		t.Fatalf("request %s: %s %q: %v", r["request_id"], col, r[col], err)
	}
	return ts
}

func TestFlatRowInvariants(t *testing.T) {
	cfg := testConfig("flat")
	rows := parseFlat(t, render(t, cfg))
	if len(rows) != cfg.Rows {
		t.Fatalf("got %d rows, want %d", len(rows), cfg.Rows)
	}
	end := cfg.Start.AddDate(0, 0, cfg.Days)
	var prevStart time.Time
	for _, r := range rows {
		prompt, completion := r.int(t, "prompt_tokens"), r.int(t, "completion_tokens")
		cached, creation, reasoning := r.int(t, "cached_tokens"), r.int(t, "cache_creation_tokens"), r.int(t, "reasoning_tokens")
		if prompt < cached+creation {
			t.Errorf("request %s: prompt %d < cached %d + creation %d", r["request_id"], prompt, cached, creation)
		}
		if completion < reasoning {
			t.Errorf("request %s: completion %d < reasoning %d", r["request_id"], completion, reasoning)
		}
		if got := r.int(t, "total_tokens"); got != prompt+completion {
			t.Errorf("request %s: total %d, want %d", r["request_id"], got, prompt+completion)
		}
		start, first, stop := r.time(t, "startTime"), r.time(t, "completionStartTime"), r.time(t, "endTime")
		if start.Before(cfg.Start) || !start.Before(end) || start.Before(prevStart) {
			t.Errorf("request %s: startTime %s out of range or out of order", r["request_id"], start)
		}
		if first.Before(start) || stop.Before(first) {
			t.Errorf("request %s: want start <= first token <= end, got %s %s %s", r["request_id"], start, first, stop)
		}
		prevStart = start
		spend, err := decimal.NewFromString(r["spend"])
		if err != nil || spend.IsNegative() || strings.ContainsAny(r["spend"], "eE") {
			t.Errorf("request %s: spend %q is not a plain non-negative decimal", r["request_id"], r["spend"])
		}
		if r["status"] == "failure" && !spend.IsZero() {
			t.Errorf("request %s: failed call with spend %s", r["request_id"], spend)
		}
		if len(r["api_key"]) != 64 {
			t.Errorf("request %s: api_key %q is not a SHA-256 hex", r["request_id"], r["api_key"])
		}
	}
}

func TestFlatMix(t *testing.T) {
	rows := parseFlat(t, render(t, testConfig("flat")))
	var failed, cached, repeated, zeroSpend, usOnly int
	models := map[string]int{}
	keys := map[string]bool{}
	seen := map[string]bool{}
	for _, r := range rows {
		models[r["model_group"]]++
		keys[r["api_key"]] = true
		if seen[r["request_id"]] {
			repeated++
		}
		seen[r["request_id"]] = true
		switch {
		case r["status"] == "failure":
			failed++
		case r["spend"] == "0":
			zeroSpend++
		}
		if r["cached_tokens"] != "0" {
			cached++
		}
		if r["inference_geo"] == "us" {
			usOnly++
		}
	}
	n := len(rows)
	checks := []struct {
		name   string
		got    int
		lo, hi int // inclusive bounds
	}{
		{"failures (~2%)", failed, n / 100, n * 3 / 100},
		{"rows with cached tokens", cached, n / 4, n * 3 / 4},
		{"repeated request ids (~0.1%)", repeated, 1, n / 200},
		{"successes with spend 0", zeroSpend, 1, n / 50},
		{"deepseek-flash calls", models["deepseek-flash"], n / 3, n},
		{"legacy flash name calls", models["deepseek/deepseek-v4-flash"], 1, n / 3},
		{"unknown model calls", models["kimi-k2-thinking"], 1, n / 100},
		{"distinct keys", len(keys), 20, 40},
		// The sample's only Claude model, Sonnet 4.5, refuses US-only
		// inference (Anthropic answers 400 on 4.5 models).
		{"US-only inference calls", usOnly, 0, 0},
	}
	for _, c := range checks {
		if c.got < c.lo || c.got > c.hi {
			t.Errorf("%s = %d, want in [%d, %d]", c.name, c.got, c.lo, c.hi)
		}
	}
}

func TestDumpMetadataIsJSON(t *testing.T) {
	records, err := csv.NewReader(bytes.NewReader(render(t, testConfig("dump")))).ReadAll()
	if err != nil {
		t.Fatalf("not valid CSV: %v", err)
	}
	col := map[string]int{}
	for i, name := range records[0] {
		col[name] = i
	}
	for _, rec := range records[1:] {
		var meta struct {
			UserAPIKey string `json:"user_api_key"`
			Usage      struct {
				Prompt struct {
					Cached   int64 `json:"cached_tokens"`
					Creation int64 `json:"cache_creation_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"additional_usage_values"`
		}
		if err := json.Unmarshal([]byte(rec[col["metadata"]]), &meta); err != nil {
			t.Fatalf("request %s: metadata: %v", rec[col["request_id"]], err)
		}
		prompt, _ := strconv.ParseInt(rec[col["prompt_tokens"]], 10, 64)
		if meta.UserAPIKey != rec[col["api_key"]] || prompt < meta.Usage.Prompt.Cached+meta.Usage.Prompt.Creation {
			t.Fatalf("request %s: metadata disagrees with the row: %+v", rec[col["request_id"]], meta)
		}
		if _, err := decimal.NewFromString(rec[col["spend"]]); err != nil {
			t.Fatalf("request %s: spend %q: %v", rec[col["request_id"]], rec[col["spend"]], err)
		}
	}
}

func TestAppendFloat8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"},
		{"0.0001", "0.0001"},
		{"0.00228008", "0.00228008"},
		{"0.000014", "1.4e-05"},
		{"0.000077536", "7.7536e-05"},
		{"0.000000001", "1e-09"},
		{"0.0000000000123", "1.23e-11"},
		{"12.5", "12.5"},
	}
	for _, tt := range tests {
		if got := string(appendFloat8(nil, decimal.RequireFromString(tt.in))); got != tt.want {
			t.Errorf("appendFloat8(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSlotCountsSumAndShape(t *testing.T) {
	start := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC) // a Tuesday
	counts := slotCounts(start, 30*24, 1_000_003)
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != 1_000_003 {
		t.Fatalf("counts sum to %d, want 1000003", total)
	}
	// 02:00 UTC is 10:00 in Beijing: a Tuesday morning beats the Saturday
	// morning (Sep 5), the mid-autumn holiday (Friday Sep 25) and 19:00 UTC
	// (03:00 Beijing). Sunday Sep 20 is a make-up workday.
	busy := counts[2]
	for name, h := range map[string]int{"saturday": 4*24 + 2, "holiday": 24*24 + 2, "night": 19} {
		if counts[h]*3 > busy {
			t.Errorf("%s hour has %d calls, weekday peak %d: want it much lighter", name, counts[h], busy)
		}
	}
	if makeup := counts[19*24+2]; makeup*2 < busy {
		t.Errorf("make-up workday hour has %d calls, weekday peak %d: want it as busy", makeup, busy)
	}
}

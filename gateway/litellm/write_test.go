package litellm

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/tokenfare/tokenfare/reports/textdiff"
	"github.com/tokenfare/tokenfare/tariffs"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testCatalog loads the stable test tariffs of testdata/tariffs.
func testCatalog(t *testing.T) *tariffs.Catalog {
	t.Helper()
	cat, ps := tariffsForFuzz()
	if cat == nil {
		t.Fatalf("load test tariffs: %v", ps)
	}
	return cat
}

func tariffsForFuzz() (*tariffs.Catalog, tariffs.Problems) {
	return tariffs.Load("testdata/tariffs")
}

// rates builds per-1M rates from usage=price pairs.
func rates(pairs ...string) *tariffs.Rates {
	var r tariffs.Rates
	for i := 0; i < len(pairs); i += 2 {
		u, err := tariffs.ParseUsage(pairs[i])
		if err != nil {
			panic(err)
		}
		r.Set(u, decimal.RequireFromString(pairs[i+1]))
	}
	return &r
}

// blendPrices are the prices the blend tests write, per 1M tokens.
func blendPrices(cat *tariffs.Catalog) map[*tariffs.Model]*tariffs.Rates {
	return map[*tariffs.Model]*tariffs.Rates{
		cat.Model("deepseek-flash"):  rates("input", "0.213456789", "cache_read", "0.004123", "output", "0.85"),
		cat.Model("deepseek-v4-pro"): rates("input", "0.9", "cache_read", "0.03", "output", "2.7"),
		cat.Model("gpt-4o"):          rates("input", "2.5", "cache_read", "1.25", "output", "10"),
		// Azure's own gpt-4o: the azure/ deployment gets these, never OpenAI's.
		cat.Model("azure-gpt-4o"): rates("input", "2.75", "cache_read", "1.375", "output", "11"),
	}
}

var testAt = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// golden compares got with the file, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what was written:\n%s", path, textdiff.Unified(path, "got", want, got))
	}
}

func readConfig(t *testing.T, path string) (*Config, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return c, data
}

func TestUpdateGolden(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		name    string
		dir     string
		offPeak bool
		at      time.Time
	}{
		{name: "blended prices", dir: "testdata/blend", at: testAt},
		// Before the October holidays, so that they and the make-up
		// workday of 2026-10-10 are among the override dates.
		{name: "off-peak block from the tariff", dir: "testdata/offpeak", offPeak: true, at: time.Date(2026, 9, 28, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, before := readConfig(t, filepath.Join(tc.dir, "before.yaml"))
			opts := UpdateOptions{Catalog: cat, Prices: blendPrices(cat), OffPeakPricing: tc.offPeak, At: tc.at}
			u, err := c.Update(opts)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(tc.dir, "after.yaml"), u.Data)
			// Byte diff: every line that changed is a price line, an added
			// key or part of an off_peak_pricing block; the rest is identical.
			checkOnlyPrices(t, before, u.Data, tc.offPeak)
			// Idempotence: a second run on the result changes nothing.
			c2, err := Parse("after", u.Data)
			if err != nil {
				t.Fatal(err)
			}
			u2, err := c2.Update(opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(u2.Data, u.Data) || len(u2.Changes) != 0 {
				t.Errorf("second run changed %d values:\n%s", len(u2.Changes), textdiff.Unified("first", "second", u.Data, u2.Data))
			}
		})
	}
}

var (
	pricePair  = regexp.MustCompile(`(, *)?\b(input_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost|output_cost_per_token|output_cost_per_reasoning_token): [^\s,}#]+`)
	beforeHash = regexp.MustCompile(` +#`)
	blockLine  = regexp.MustCompile(`^ *(off_peak_pricing:|weekday_timezone:|windows:|- hours_utc:|weekdays:|override_dates:|model_info:)`)
)

// checkOnlyPrices is the byte diff: each changed line, with its price
// pairs taken out and the spaces before a comment collapsed, is the old
// line byte for byte; each added line is a price (or, with offPeak, a
// line of an off_peak_pricing block).
func checkOnlyPrices(t *testing.T, before, after []byte, offPeak bool) {
	t.Helper()
	strip := func(l string) string {
		return strings.TrimRight(beforeHash.ReplaceAllString(pricePair.ReplaceAllString(l, ""), " #"), " ")
	}
	var minus, plus []string
	flush := func() {
		for i, p := range plus {
			switch {
			case i < len(minus) && strip(minus[i]) == strip(p):
			case strings.TrimSpace(strip(p)) == "":
			case offPeak && (blockLine.MatchString(p) || strings.TrimSpace(p) == ""):
			default:
				t.Errorf("a line other than a price changed:\n-%s\n+%s", at(minus, i), p)
			}
		}
		for i := len(plus); i < len(minus); i++ {
			if !offPeak {
				t.Errorf("line removed: %q", minus[i])
			}
		}
		minus, plus = nil, nil
	}
	for _, l := range strings.Split(textdiff.Unified("a", "b", before, after), "\n") {
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
		case strings.HasPrefix(l, "-"):
			if len(plus) > 0 {
				flush()
			}
			minus = append(minus, l[1:])
		case strings.HasPrefix(l, "+"):
			plus = append(plus, l[1:])
		default:
			flush()
		}
	}
	flush()
}

func at(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return ""
}

func TestUpdateRefusesOffPeakBlock(t *testing.T) {
	cat := testCatalog(t)
	c, _ := readConfig(t, "testdata/offpeak/before.yaml")
	_, err := c.Update(UpdateOptions{Catalog: cat, Prices: blendPrices(cat), At: testAt})
	var ee *EntryError
	if !errors.As(err, &ee) {
		t.Fatalf("Update: %v, want an *EntryError", err)
	}
	// The deepseek-flash entry starts on line 3; its block is on line 14.
	if ee.Line != 3 || ee.ModelName != "deepseek-flash" || !strings.Contains(ee.Msg, "off_peak_pricing block (line 14)") || !strings.Contains(ee.Msg, "--off-peak-pricing") {
		t.Errorf("refusal %v: want line 3, deepseek-flash, the block's line and the flag named", ee)
	}
}

func TestUpdateEdgeCases(t *testing.T) {
	cat := testCatalog(t)
	prices := blendPrices(cat)
	tests := []struct {
		name, src, want, err string
	}{
		{
			name: "CRLF line endings kept",
			src:  "model_list:\r\n  - model_name: f\r\n    litellm_params:\r\n      model: deepseek/deepseek-flash\r\n",
			want: "model_list:\r\n  - model_name: f\r\n    litellm_params:\r\n      model: deepseek/deepseek-flash\r\n      input_cost_per_token: 2.13456789e-7\r\n      cache_read_input_token_cost: 4.123e-9\r\n      output_cost_per_token: 8.5e-7\r\n",
		},
		{
			name: "anchored price shared by two entries of one model is written once",
			src:  "model_list:\n  - model_name: a\n    litellm_params: {model: deepseek-flash, input_cost_per_token: &in 1.0e-7}\n  - model_name: b\n    litellm_params: {model: deepseek/deepseek-flash, input_cost_per_token: *in}\n",
			want: "model_list:\n  - model_name: a\n    litellm_params: {model: deepseek-flash, input_cost_per_token: &in 2.13456789e-7, cache_read_input_token_cost: 4.123e-9, output_cost_per_token: 8.5e-7}\n  - model_name: b\n    litellm_params: {model: deepseek/deepseek-flash, input_cost_per_token: 2.13456789e-7, cache_read_input_token_cost: 4.123e-9, output_cost_per_token: 8.5e-7}\n",
		},
		{
			name: "one mapping shared by entries of two models is refused",
			src:  "x: &p {input_cost_per_token: 1.0e-7}\nmodel_list:\n  - model_name: a\n    litellm_params: {model: deepseek-flash}\n    model_info: *p\n  - model_name: b\n    litellm_params: {model: gpt-4o}\n    model_info: *p\n",
			err:  "two different values would be written at the same place",
		},
		{
			name: "prices in both mappings are both written; missing keys go to model_info",
			src:  "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: 2.0e-6\n    model_info:\n      output_cost_per_token: 9.0e-6\n",
			want: "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: 2.5e-6\n    model_info:\n      output_cost_per_token: 1.0e-5\n      input_cost_per_token: 2.5e-6\n      cache_read_input_token_cost: 1.25e-6\n",
		},
		{
			name: "quoted price becomes a number",
			src:  "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: \"2.5e-6\"\n      cache_read_input_token_cost: 1.25e-6\n      output_cost_per_token: 0.00001\n",
			want: "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: 2.5e-6\n      cache_read_input_token_cost: 1.25e-6\n      output_cost_per_token: 0.00001\n",
		},
		{
			name: "price tagged !!float is replaced after its tag",
			src:  "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: !!float 3e-6\n      cache_read_input_token_cost: !!float 1.0e-6 # tagged\n      output_cost_per_token: 0.00001",
			want: "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: !!float 2.5e-6\n      cache_read_input_token_cost: !!float 1.25e-6 # tagged\n      output_cost_per_token: 0.00001",
		},
		{
			name: "price read from the environment is refused, not cut off",
			src:  "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: os.environ/GPT4O_IN\n",
			err:  "line 5: litellm_params.input_cost_per_token is os.environ/GPT4O_IN, a price read from the environment",
		},
		{
			name: "price tagged !!str is refused: the number written would stay a string",
			src:  "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: !!str 2.0e-6\n",
			err:  "line 5: value tagged !!str cannot hold a price",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("config.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			u, err := c.Update(UpdateOptions{Catalog: cat, Prices: prices, At: testAt})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Update: %v, want an error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(u.Data) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", u.Data, tc.want)
			}
		})
	}
}

// TestMergeChains: merge keys naming one mapping many times over a few
// levels (6^5 paths here) are searched once per mapping; a chain whose
// expansion no YAML reader could hold (6^30 nodes, which PyYAML would try
// to build) is refused at once, with the alias that goes too far.
func TestMergeChains(t *testing.T) {
	chain := func(levels int) string {
		var b strings.Builder
		b.WriteString("a0: &a0 {input_cost_per_token: 1.0e-6}\n")
		for i := 1; i < levels; i++ {
			prev := fmt.Sprintf("*a%d", i-1)
			fmt.Fprintf(&b, "a%d: &a%d {<<: [%s, %s, %s, %s, %s, %s]}\n", i, i, prev, prev, prev, prev, prev, prev)
		}
		fmt.Fprintf(&b, "model_list:\n  - model_name: m\n    litellm_params: {model: gpt-4o, <<: *a%d}\n", levels-1)
		return b.String()
	}
	cat := testCatalog(t)
	c, err := Parse("merge.yaml", []byte(chain(6)))
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.Update(UpdateOptions{Catalog: cat, Prices: blendPrices(cat), At: testAt})
	if err != nil {
		t.Fatal(err)
	}
	// The merged price 1.0e-6 is overridden in the entry itself: gpt-4o
	// input 2.5 per 1M = 2.5e-6 per token.
	if !strings.Contains(string(u.Data), "{model: gpt-4o, <<: *a5, input_cost_per_token: 2.5e-6, ") {
		t.Errorf("entry not overridden:\n%s", u.Data)
	}
	_, err = Parse("merge.yaml", []byte(chain(30)))
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "aliases expand too far") || pe.Line < 2 {
		t.Errorf("30 levels: error %v, want a ParseError at the alias that expands too far", err)
	}
}

// TestUpdateWritesModifierFields: a blend with a 1-hour write price and a
// web search fee writes LiteLLM's own keys for them:
// cache_creation_input_token_cost_above_1hr per token, and
// search_context_cost_per_query per search for each context size.
func TestUpdateWritesModifierFields(t *testing.T) {
	cat := testCatalog(t)
	prices := map[*tariffs.Model]*tariffs.Rates{
		cat.Model("gpt-4o"): rates("input", "2.5", "output", "10", "cache_write_1h", "5", "web_search", "0.01"),
	}
	tests := []struct{ name, src, want string }{
		{
			name: "added",
			src:  "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n",
			want: "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: 2.5e-6\n      output_cost_per_token: 1.0e-5\n" +
				"      cache_creation_input_token_cost_above_1hr: 5.0e-6\n      search_context_cost_per_query:\n" +
				"        search_context_size_low: 0.01\n        search_context_size_medium: 0.01\n        search_context_size_high: 0.01\n",
		},
		{
			name: "a stale fee is rewritten, a current 1-hour price kept",
			src: "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: 2.5e-6\n      output_cost_per_token: 1.0e-5\n" +
				"      cache_creation_input_token_cost_above_1hr: 5.0e-6\n      search_context_cost_per_query:\n        search_context_size_medium: 0.025\n",
			want: "model_list:\n  - model_name: g\n    litellm_params:\n      model: gpt-4o\n      input_cost_per_token: 2.5e-6\n      output_cost_per_token: 1.0e-5\n" +
				"      cache_creation_input_token_cost_above_1hr: 5.0e-6\n      search_context_cost_per_query:\n" +
				"        search_context_size_low: 0.01\n        search_context_size_medium: 0.01\n        search_context_size_high: 0.01\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("config.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			u, err := c.Update(UpdateOptions{Catalog: cat, Prices: prices, At: testAt})
			if err != nil {
				t.Fatal(err)
			}
			if string(u.Data) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", u.Data, tc.want)
			}
			// Written again, nothing changes.
			c2, err := Parse("config.yaml", u.Data)
			if err != nil {
				t.Fatal(err)
			}
			if u2, err := c2.Update(UpdateOptions{Catalog: cat, Prices: prices, At: testAt}); err != nil || len(u2.Changes) > 0 {
				t.Errorf("second write: %v, changes %+v", err, u2.Changes)
			}
		})
	}
}

package cli

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// driftConfig is a LiteLLM config pricing three of the sample's models,
// a fee per web search among them, each price off the tariff.
const driftConfig = `model_list:
  - model_name: sonnet
    litellm_params:
      model: anthropic/claude-sonnet-4-5-20250929
      input_cost_per_token: 3.1e-6
      output_cost_per_token: 1.6e-5
      cache_read_input_token_cost: 2.9e-7
      search_context_cost_per_query:
        search_context_size_low: 0.012
        search_context_size_medium: 0.012
        search_context_size_high: 0.012
  - model_name: pro
    litellm_params:
      model: deepseek/deepseek-v4-pro
      input_cost_per_token: 1.0e-6
      output_cost_per_token: 2.0e-6
  - model_name: flash
    litellm_params:
      model: deepseek/deepseek-flash
      input_cost_per_token: 2.0e-7
      output_cost_per_token: 4.0e-7
`

// driftFields are the config's price keys by the usage blend names, and
// the configured prices per 1M tokens (per search for the fee).
var driftFields = map[string]map[string]struct{ usage, price string }{
	"sonnet": {
		"litellm_params.input_cost_per_token":          {"input", "3.1"},
		"litellm_params.output_cost_per_token":         {"output", "16"},
		"litellm_params.cache_read_input_token_cost":   {"cache_read", "0.29"},
		"litellm_params.search_context_cost_per_query": {"web_search", "0.012"},
	},
	"pro": {
		"litellm_params.input_cost_per_token":  {"input", "1"},
		"litellm_params.output_cost_per_token": {"output", "2"},
	},
	"flash": {
		"litellm_params.input_cost_per_token":  {"input", "0.2"},
		"litellm_params.output_cost_per_token": {"output", "0.4"},
	},
}

// TestServeConfigDrift: serve --config reports each configured price off
// the blend that blend --state gives from the same state at the same
// instant, (configured - blended) / blended to the last digit the text
// format carries, the fee per web search included, whatever billing
// instant the calls were read with. Worked by hand for one: the sample's
// Sonnet calls blend web search at its tariff's fee, 10 per 1,000
// searches, so 0.012 configured is (0.012 - 0.01) / 0.01 = 0.2 off.
func TestServeConfigDrift(t *testing.T) {
	models := map[string]string{"sonnet": "claude-sonnet-4-5", "pro": "deepseek-v4-pro", "flash": "deepseek-flash"}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, billing := range []string{"", "first_token", "start"} {
		t.Run("billing "+billing, func(t *testing.T) {
			dir := t.TempDir()
			config, st := filepath.Join(dir, "config.yaml"), filepath.Join(dir, "state.db")
			if err := os.WriteFile(config, []byte(driftConfig), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"--calls", sample, "--state", st, "--config", config}
			if billing != "" {
				args = append(args, "--billing-time", billing)
			}
			addr, stderr, stop := startServeAt(t, func() time.Time { return now }, args...)
			got := scrapedDrift(t, addr)
			if code := stop(); code != 0 {
				t.Fatalf("serve: exit %d\n%s", code, stderr.String())
			}
			blendArgs := []string{"--state", st, "--as-of", "2026-11-01"}
			if billing != "" {
				blendArgs = append(blendArgs, "--billing-time", billing)
			}
			blended := blendedPrices(t, blendArgs...)
			n := 0
			for name, fields := range driftFields {
				for field, c := range fields {
					p := blended[models[name]+"/"+c.usage]
					if p == "" {
						t.Errorf("%s %s: blend --state gives no price", name, c.usage)
						continue
					}
					b := decimal.RequireFromString(p)
					want := decimal.RequireFromString(c.price).Sub(b).Div(b).InexactFloat64()
					if g, ok := got[name+" "+field]; !ok || g != want {
						t.Errorf("%s %s: drift %v (present %v), want (%s - %s) / %s = %v", name, field, g, ok, c.price, b, b, want)
					}
					n++
				}
			}
			if w := got["sonnet litellm_params.search_context_cost_per_query"]; w != 0.2 {
				t.Errorf("sonnet's web search fee: drift %v, want 0.2", w)
			}
			if len(got) != n {
				t.Errorf("%d drift series, want %d: %v", len(got), n, got)
			}
		})
	}
}

// scrapedDrift returns serve's tokenfare_config_price_off_ratio series by
// "model_name field", as exposed.
func scrapedDrift(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, "tokenfare_config_price_off_ratio{")
		if !ok {
			continue
		}
		labels, value, _ := strings.Cut(rest, "} ")
		var field, model string
		for _, l := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(l, "=")
			v = strings.Trim(v, `"`)
			switch k {
			case "field":
				field = v
			case "model_name":
				model = v
			}
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		out[model+" "+field] = f
	}
	return out
}

package litellm

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/gateway"
)

// checkAt is a Monday, in the 2026-09-10 version of the test tariff.
var checkAt = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

func checkOpts(strict bool) CheckOptions {
	return CheckOptions{At: checkAt, MaxCooldown: 15 * time.Second, MinAllowedFails: 3, Strict: strict,
		MinRateLimitRetries: 1, Private: []string{"private/*"}, PrivateDomains: []string{"corp.internal"}}
}

// addrBound is the bound of private-address with the test's domain.
const addrBound = "a loopback, RFC 1918, link-local or ULA address, or a host in corp.internal"

// TestCheckRules runs each rule on its failing fixture (findings of that
// rule only, at the lines given) and on its passing one (no finding).
func TestCheckRules(t *testing.T) {
	cat := testCatalog(t)
	tests := []struct {
		rule   string
		strict bool
		want   []string // "line field value bound" of each finding
		models []string // the model_name of each finding, when checked
	}{
		{RuleUntariffed, true, []string{"2 litellm_params.model ollama/llama3.1 a model of the tariff catalog"}, nil},
		{RulePriceFormat, false, []string{"6 litellm_params.output_cost_per_token 1e-5 a number with a dot, e.g. 3.0e-7"}, nil},
		// deepseek-flash input lies in [0.15, 0.30] per 1M = [1.5e-7, 3.0e-7].
		{RulePriceBounds, false, []string{"6 model_info.input_cost_per_token 1.4e-7 1.5e-7 .. 3.0e-7"}, nil},
		{RuleZeroPrice, false, []string{"5 litellm_params.input_cost_per_token 0 2.5e-6 .. 2.5e-6"}, nil},
		{RuleNoCustom, false, []string{"2 model_info.input_cost_per_token  a custom price"}, nil},
		{RuleInconsistent, false, []string{`6 input_cost_per_token 2.1e-7 2.0e-7 as in "deepseek-flash" at line 4`}, nil},
		// Off-peak output 0.60 per 1M = 6.0e-7 per token.
		{RuleOffPeak, false, []string{"20 model_info.off_peak_pricing.output_cost_per_token 6.5e-7 6.0e-7"}, nil},
		{RuleHealthCheck, false, []string{"2 model_info.disable_background_health_check  true"}, nil},
		{RuleCooldown, false, []string{"6 router_settings.allowed_fails 1 >= 3", "7 router_settings.cooldown_time 60 <= 15"}, nil},
		// gpt-4o takes the router's policy; gpt-4o-batch's own policy says
		// nothing of rate limits, so num_retries decides, read from
		// litellm_settings as router_settings does not set it.
		{RuleRateLimit, false, []string{
			"11 router_settings.retry_policy.RateLimitErrorRetries 0 >= 1",
			"15 litellm_settings.num_retries 0 >= 1"}, []string{"gpt-4o", "gpt-4o-batch"}},
		// private/qwen leaves directly; private/llama in the second hop of
		// its chain, through private/qwen. gpt-4o falling back into
		// private/llama is fine.
		{RulePrivateFall, false, []string{
			"16 router_settings.context_window_fallbacks gpt-4o a group matching private/*",
			"16 router_settings.context_window_fallbacks gpt-4o a group matching private/*"}, []string{"private/llama", "private/qwen"}},
		{RulePrivateAlias, false, []string{
			"12 router_settings.model_group_alias.fast private/llama both names inside or both outside private/*",
			"13 router_settings.model_group_alias.private/big gpt-4o both names inside or both outside private/*",
			"15 litellm_settings.model_alias_map.cheap private/llama both names inside or both outside private/*"},
			[]string{"private/llama", "gpt-4o", "private/llama"}},
		{RulePrivateAddr, false, []string{
			"6 litellm_params.api_base http://203.0.113.7:11434 " + addrBound,
			"7 litellm_params.api_base  " + addrBound,
			"13 litellm_params.api_base https://llm.example.com/v1 " + addrBound,
			"17 litellm_params.api_base http://[2001:db8::5]:8000/v1 " + addrBound}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			opts := checkOpts(tc.strict)
			opts.Catalog = cat
			c, _ := readConfig(t, filepath.Join("testdata/check", tc.rule+"-fail.yaml"))
			var got, models []string
			for _, f := range c.Check(opts) {
				if f.Severity != gateway.Problem {
					continue
				}
				if f.Rule != tc.rule {
					t.Errorf("finding of another rule: %v", f)
					continue
				}
				if !strings.HasSuffix(f.File, tc.rule+"-fail.yaml") {
					t.Errorf("finding names file %q", f.File)
				}
				got = append(got, strings.TrimSpace(fmt.Sprintf("%d %s %s %s", f.Line, f.Field, f.Value, f.Bound)))
				models = append(models, f.ModelName)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if tc.models != nil && strings.Join(models, " ") != strings.Join(tc.models, " ") {
				t.Errorf("findings name %q, want %q", models, tc.models)
			}
			c, _ = readConfig(t, filepath.Join("testdata/check", tc.rule+"-pass.yaml"))
			for _, f := range c.Check(opts) {
				if f.Severity == gateway.Problem {
					t.Errorf("passing fixture: %v", f)
				}
			}
		})
	}
}

func TestCheckUntariffedIsWarningUnlessStrict(t *testing.T) {
	cat := testCatalog(t)
	c, _ := readConfig(t, "testdata/check/untariffed-fail.yaml")
	opts := checkOpts(false)
	opts.Catalog = cat
	fs := c.Check(opts)
	if len(fs) != 1 || fs[0].Severity != gateway.Warning || fs[0].Line != 2 {
		t.Errorf("findings %v, want one warning at line 2", fs)
	}
}

// TestCheckWrittenConfigs: what the update writes passes the price rules.
func TestCheckWrittenConfigs(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		file string
		at   time.Time
	}{{"testdata/blend/after.yaml", testAt}, {"testdata/offpeak/after.yaml", time.Date(2026, 9, 28, 0, 0, 0, 0, time.UTC)}} {
		c, _ := readConfig(t, tc.file)
		opts := checkOpts(false)
		opts.Catalog, opts.At = cat, tc.at
		for _, f := range c.Check(opts) {
			switch f.Rule {
			case RuleHealthCheck, RuleCooldown, RuleUntariffed, RuleNoCustom:
				continue
			}
			t.Errorf("%s: %v", tc.file, f)
		}
	}
}

// TestCheckPriceDigitsBounded checks the contract "a config price is
// bounded as call logs are": a price of 10,000 digits is a price-format
// finding at its line, quoted short, not a number read.
func TestCheckPriceDigitsBounded(t *testing.T) {
	cat := testCatalog(t)
	data := "model_list:\n  - model_name: deepseek-flash\n    litellm_params: {model: deepseek/deepseek-flash, input_cost_per_token: 0." + strings.Repeat("1", 10000) + "}\n"
	c, err := Parse("c.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	opts := checkOpts(false)
	opts.Catalog = cat
	var found bool
	for _, f := range c.Check(opts) {
		if f.Rule == RulePriceFormat {
			found = f.Line == 3 && strings.Contains(f.Message, "too long") && len(f.Value) < 100
		}
	}
	if !found {
		t.Errorf("findings %v, want a short price-format finding at line 3", c.Check(opts))
	}
}

// TestCheckWording checks check's words on a new user's config: each name
// once, "1 failure" in the singular, and paid health checks found on
// models the catalog does not know when the config prices them or their
// host bills by use (a local model without a price stays free).
func TestCheckWording(t *testing.T) {
	cat := testCatalog(t)
	const probes = "general_settings:\n  background_health_checks: true\n"
	tests := []struct {
		name, config string
		rule         string
		line         int
		want         string // the finding's message
	}{
		{"a name once", "model_list:\n  - model_name: gpt-3.5-turbo\n    litellm_params: {model: gpt-3.5-turbo}\n",
			RuleUntariffed, 2, `no tariff model is known by "gpt-3.5-turbo"`},
		{"one failure", "model_list:\n  - model_name: gpt-4o\n    litellm_params: {model: openai/gpt-4o}\nrouter_settings:\n  allowed_fails: 1\n",
			RuleCooldown, 5, `group "gpt-4o" has one deployment and no fallback: 1 failure takes the whole group out`},
		{"two failures", "model_list:\n  - model_name: gpt-4o\n    litellm_params: {model: openai/gpt-4o}\nrouter_settings:\n  allowed_fails: 2\n",
			RuleCooldown, 5, `group "gpt-4o" has one deployment and no fallback: 2 failures take the whole group out`},
		{"unknown model the config prices", "model_list:\n  - model_name: mystery\n    litellm_params:\n      model: acme/mystery-large\n      api_base: https://api.acme.example/v1\n      input_cost_per_token: 2.0e-6\n" + probes,
			RuleHealthCheck, 2, "background_health_checks is on (line 8) and each probe of this metered deployment is a paid call (the config prices it: input_cost_per_token 2.0e-6, line 6)"},
		{"unknown model of a host that bills", "model_list:\n  - model_name: next\n    litellm_params: {model: openai/gpt-99}\n" + probes,
			RuleHealthCheck, 2, "background_health_checks is on (line 5) and each probe of this metered deployment is a paid call (host openai bills by use)"},
		{"local model without a price", "model_list:\n  - model_name: local\n    litellm_params: {model: ollama/llama3.1, input_cost_per_token: 0}\n" + probes,
			RuleHealthCheck, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("c.yaml", []byte(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			opts := checkOpts(false)
			opts.Catalog = cat
			var got []string
			for _, f := range c.Check(opts) {
				if f.Rule == tc.rule {
					got = append(got, fmt.Sprintf("%d %s", f.Line, f.Message))
				}
			}
			want := []string{}
			if tc.want != "" {
				want = append(want, fmt.Sprintf("%d %s", tc.line, tc.want))
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s findings:\n%s\nwant:\n%s", tc.rule, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

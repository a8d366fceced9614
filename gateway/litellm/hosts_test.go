package litellm

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/gateway"
	"github.com/tokenfare/tokenfare/tariffs"
)

// TestCheckHosts holds each deployment to its host's tariff: the
// first-party DeepSeek deployment is asked for time-of-use prices; the
// Azure OpenAI one is held to Azure's flat 2.75 / 11.00 per 1M (so
// OpenAI's 2.50 / 10.00 is out of bounds), and asked nothing of time of
// use; the Azure AI Foundry and Bedrock ones, whose hosts no test tariff
// prices, are reported as such and held to no other host's price.
func TestCheckHosts(t *testing.T) {
	c, _ := readConfig(t, "testdata/check/hosts.yaml")
	opts := checkOpts(true)
	opts.Catalog = testCatalog(t)
	var got []string
	for _, f := range c.Check(opts) {
		got = append(got, strings.TrimSpace(fmt.Sprintf("%s %s %d %s %s %s", f.Rule, f.ModelName, f.Line, f.Field, f.Value, f.Bound)))
	}
	want := []string{
		"no-custom-price deepseek-v4-pro 5 model_info.input_cost_per_token  a custom price",
		"untariffed-host deepseek-v4-pro-foundry 8 litellm_params.model azure_ai/deepseek-v4-pro a host the tariff catalog prices",
		"price-bounds gpt-4o 16 litellm_params.input_cost_per_token 2.5e-6 2.75e-6 .. 2.75e-6",
		"price-bounds gpt-4o 17 litellm_params.output_cost_per_token 1.0e-5 1.1e-5 .. 1.1e-5",
		"untariffed-host claude-sonnet 19 litellm_params.model bedrock/us.anthropic.claude-sonnet-4-6 a host the tariff catalog prices",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	opts.Strict = false
	for _, f := range c.Check(opts) {
		if f.Rule == RuleUntariffedHost && f.Severity != gateway.Warning {
			t.Errorf("without --strict, %v is not a warning", f)
		}
	}
}

// TestUpdateHosts writes each deployment its own host's prices: Azure's
// blend into the Azure deployment, OpenAI's into OpenAI's, an
// off_peak_pricing block into the first-party DeepSeek deployment only,
// and nothing into deployments whose host no tariff prices.
func TestUpdateHosts(t *testing.T) {
	cat := testCatalog(t)
	c, orig := readConfig(t, "testdata/check/hosts.yaml")
	for _, offPeak := range []bool{false, true} {
		t.Run(fmt.Sprintf("off-peak pricing %v", offPeak), func(t *testing.T) {
			u, err := c.Update(UpdateOptions{Catalog: cat, Prices: blendPrices(cat), OffPeakPricing: offPeak, At: checkAt})
			if err != nil {
				t.Fatal(err)
			}
			var skipped []string
			for _, s := range u.Skipped {
				skipped = append(skipped, fmt.Sprintf("%s %d %s", s.ModelName, s.Line, s.Reason))
			}
			wantSkipped := []string{
				"deepseek-v4-pro-foundry 8 no tariff prices host azure_ai: left unchanged",
				"claude-sonnet 19 no tariff prices host bedrock: left unchanged",
			}
			if !slices.Equal(skipped, wantSkipped) {
				t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(skipped, "\n"), strings.Join(wantSkipped, "\n"))
			}
			changed := map[string][]string{}
			for _, ch := range u.Changes {
				changed[ch.ModelName] = append(changed[ch.ModelName], ch.Field+"="+ch.New)
			}
			// blendPrices: azure-gpt-4o 2.75 / 1.375 / 11, gpt-4o 2.5 / 1.25 / 10 per 1M.
			if got := strings.Join(changed["gpt-4o"], " "); !strings.Contains(got, "input_cost_per_token=2.75e-6") || !strings.Contains(got, "output_cost_per_token=1.1e-5") {
				t.Errorf("azure deployment written %q, want Azure's prices", got)
			}
			if got := strings.Join(changed["gpt-4o-direct"], " "); !strings.Contains(got, "cache_read_input_token_cost=1.25e-6") {
				t.Errorf("openai deployment written %q, want OpenAI's prices", got)
			}
			block := strings.Contains(string(u.Data), "off_peak_pricing")
			if block != offPeak || len(changed["deepseek-v4-pro"]) == 0 {
				t.Errorf("off_peak_pricing written %v (want %v); deepseek-v4-pro changes %q", block, offPeak, changed["deepseek-v4-pro"])
			}
			for _, name := range []string{"deepseek-v4-pro-foundry", "claude-sonnet"} {
				if changed[name] != nil {
					t.Errorf("%s written %q, want it left unchanged", name, changed[name])
				}
			}
			for _, keep := range []string{"      model: azure_ai/deepseek-v4-pro\n      api_base: https://myco.services.ai.azure.com/models\n",
				"      model: bedrock/us.anthropic.claude-sonnet-4-6\n      aws_region_name: us-east-1\n"} {
				if !strings.Contains(string(orig), keep) || !strings.Contains(string(u.Data), keep+"  - model_name") {
					t.Errorf("the entry with %q was changed:\n%s", keep, u.Data)
				}
			}
		})
	}
}

// TestCheckHostsEmbedded holds deployments to the embedded catalog's host
// lists: Bedrock's US inference profile of Claude Sonnet 4.6 costs 3.30 /
// 16.50 per 1M (Anthropic's own 3 / 15 is out of bounds); Azure AI
// Foundry bills DeepSeek V4 Pro flat, so only the first-party deployment
// is asked for a time-of-use price.
func TestCheckHostsEmbedded(t *testing.T) {
	cat, ps := tariffs.Load("")
	if len(ps.Errors()) > 0 {
		t.Fatal(ps)
	}
	c, _ := readConfig(t, "testdata/check/hosts-embedded.yaml")
	opts := checkOpts(true)
	opts.Catalog = cat
	var got []string
	for _, f := range c.Check(opts) {
		got = append(got, strings.TrimSpace(fmt.Sprintf("%s %s %d %s %s %s", f.Rule, f.ModelName, f.Line, f.Field, f.Value, f.Bound)))
	}
	want := []string{
		"no-custom-price deepseek-v4-pro 4 model_info.input_cost_per_token  a custom price",
		"price-bounds claude-sonnet 14 litellm_params.input_cost_per_token 3.0e-6 3.3e-6 .. 3.3e-6",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

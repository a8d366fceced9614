package litellm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tokenfare/tokenfare/gateway"
)

// TestRouterSettingsWhereLiteLLMReadsThem: a rule reads a router setting
// from every place LiteLLM reads it, and from no other, so moving a key
// changes a finding exactly when it changes what LiteLLM does.
func TestRouterSettingsWhereLiteLLMReadsThem(t *testing.T) {
	const lone = "model_list:\n  - model_name: gpt-4o\n    litellm_params: {model: openai/gpt-4o}\n"
	const priv = "model_list:\n" +
		"  - model_name: private/llama\n    litellm_params: {model: ollama/llama3.1, api_base: \"http://10.0.0.5:11434\"}\n" +
		"  - model_name: gpt-4o\n    litellm_params: {model: openai/gpt-4o}\n"
	tests := []struct {
		name, src string
		want      []string // "rule field value" of each finding
	}{
		{"allowed_fails in litellm_settings", lone + "litellm_settings: {allowed_fails: 1}\n",
			[]string{"cooldown litellm_settings.allowed_fails 1"}},
		{"allowed_fails in router_settings wins over litellm_settings", lone + "router_settings: {allowed_fails: 5}\nlitellm_settings: {allowed_fails: 1}\n", nil},
		{"a deployment's own cooldown_time",
			"model_list:\n  - model_name: gpt-4o\n    litellm_params: {model: openai/gpt-4o, cooldown_time: 60}\nrouter_settings: {cooldown_time: 5}\n",
			[]string{"cooldown litellm_params.cooldown_time 60"}},
		{"a deployment's cooldown_time under model_info (newer LiteLLM)",
			"model_list:\n  - model_name: gpt-4o\n    litellm_params: {model: openai/gpt-4o}\n    model_info: {cooldown_time: 90}\n",
			[]string{"cooldown model_info.cooldown_time 90"}},
		{"a deployment's short cooldown in one place leaves the Router's in the other",
			"model_list:\n  - model_name: gpt-4o\n    litellm_params: {model: openai/gpt-4o, cooldown_time: 5}\nrouter_settings: {cooldown_time: 60}\n",
			[]string{"cooldown router_settings.cooldown_time 60"}},
		{"a deployment's short cooldown in both places",
			"model_list:\n  - model_name: gpt-4o\n    litellm_params: {model: openai/gpt-4o, cooldown_time: 5}\n    model_info: {cooldown_time: 5}\nrouter_settings: {cooldown_time: 60}\n", nil},
		{"cooldown_time in litellm_settings: the Router ignores it", lone + "litellm_settings: {cooldown_time: 60}\n", nil},
		{"fallbacks in litellm_settings cover a lone deployment",
			lone + "router_settings: {allowed_fails: 1, fallbacks: []}\nlitellm_settings: {fallbacks: [{gpt-4o: [gpt-4o-mini]}]}\n", nil},
		{"num_retries 0 on a deployment", "model_list:\n  - model_name: gpt-4o\n    litellm_params: {model: openai/gpt-4o, num_retries: 0}\n",
			[]string{"rate-limit-retry litellm_params.num_retries 0"}},
		{"num_retries in router_settings wins over litellm_settings", lone + "router_settings: {num_retries: 2}\nlitellm_settings: {num_retries: 0}\n", nil},
		{"retry_policy in litellm_settings: the Router ignores it",
			lone + "router_settings: {num_retries: 0}\nlitellm_settings: {retry_policy: {RateLimitErrorRetries: 3}}\n",
			[]string{"rate-limit-retry router_settings.num_retries 0"}},
		{"default_fallbacks in litellm_settings leave the perimeter", priv + "litellm_settings: {default_fallbacks: [gpt-4o]}\n",
			[]string{"private-fallback litellm_settings.default_fallbacks gpt-4o"}},
		{"content_policy_fallbacks in litellm_settings", priv + "litellm_settings: {content_policy_fallbacks: [{private/llama: [gpt-4o]}]}\n",
			[]string{"private-fallback litellm_settings.content_policy_fallbacks gpt-4o"}},
		{"a \"*\" fallback covers private groups too", priv + "router_settings: {fallbacks: [{\"*\": [gpt-4o]}]}\n",
			[]string{"private-fallback router_settings.fallbacks gpt-4o"}},
		{"a fallback to an alias of a public group", priv + "router_settings: {fallbacks: [{private/llama: [big]}], model_group_alias: {big: gpt-4o}}\n",
			[]string{"private-fallback router_settings.fallbacks big"}},
		{"a fallback to an alias of a private group", priv + "router_settings: {fallbacks: [{private/llama: [local]}], model_group_alias: {local: private/llama}}\n",
			[]string{"private-alias router_settings.model_group_alias.local private/llama"}},
		{"an api_base from the environment",
			"model_list:\n  - model_name: private/llama\n    litellm_params: {model: ollama/llama3.1, api_base: os.environ/LLAMA_BASE}\n",
			[]string{"private-address litellm_params.api_base os.environ/LLAMA_BASE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("c.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			opts := checkOpts(false)
			opts.Catalog = testCatalog(t)
			var got []string
			for _, f := range c.Check(opts) {
				if f.Severity == gateway.Problem {
					got = append(got, fmt.Sprintf("%s %s %s", f.Rule, f.Field, f.Value))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

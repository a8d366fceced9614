package failures

import (
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
	"github.com/tokenfare/tokenfare/pricing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		gw     ledger.Gateway
		f      ledger.Failure
		class  Class
		reason Reason
	}{
		{"provider's 429 in its own words: its quota", ledger.LiteLLM, ledger.Failure{Class: "RateLimitError", Provider: "openai",
			Text: "litellm.RateLimitError: OpenAIException - Rate limit exceeded for requests"}, Upstream, ReasonQuota},
		{"provider's 503", ledger.LiteLLM, ledger.Failure{Class: "ServiceUnavailableError", Provider: "openai", HTTPStatus: 503}, Upstream, ReasonProvider},
		{"provider refused the key", ledger.LiteLLM, ledger.Failure{Class: "AuthenticationError", Provider: "anthropic"}, Upstream, ReasonCredential},
		{"model at end of life: 410 whatever the class", ledger.LiteLLM, ledger.Failure{Class: "NotFoundError", Provider: "openai", HTTPStatus: 410}, Upstream, ReasonRetired},
		{"router cooldown", ledger.LiteLLM, ledger.Failure{Class: "RouterRateLimitError",
			Text: "No deployments available for selected model, Try again in 5 seconds. Passed model=m. pre-call-checks=False, cooldown_list=[('d', {})]"}, Gateway, ReasonCooldown},
		{"router with nothing cooling: limits", ledger.LiteLLM, ledger.Failure{Class: "RouterRateLimitError",
			Text: "No deployments available for selected model, Try again in 5 seconds. Passed model=m. pre-call-checks=False, cooldown_list=[]"}, Gateway, ReasonRateLimit},
		{"rpm/tpm pre-call check", ledger.LiteLLM, ledger.Failure{Class: "RouterRateLimitErrorBasic", Text: "No deployments available for selected model."}, Gateway, ReasonRateLimit},
		{"provider budget", ledger.LiteLLM, ledger.Failure{Class: "ValueError", Text: "No deployments available - crossed budget for provider: Exceeded budget for provider openai: 0.00073 >= 1e-12"}, Gateway, ReasonBudget},
		{"key budget", ledger.LiteLLM, ledger.Failure{Class: "BudgetExceededError", Text: "Budget has been exceeded! Current cost: 10.2, Max budget: 10.0"}, Gateway, ReasonBudget},
		{"proxy rate limit", ledger.LiteLLM, ledger.Failure{Text: "litellm.RateLimitError: Rate limit exceeded for api_key: 9c1e. Limit type: requests."}, Gateway, ReasonRateLimit},
		{"connection error: the provider may never have been reached", ledger.LiteLLM, ledger.Failure{Class: "APIConnectionError", Provider: "openai"}, Unknown, ReasonNone},
		{"nothing logged", ledger.LiteLLM, ledger.Failure{}, Unknown, ReasonNone},
		{"upstream class without a provider", ledger.LiteLLM, ledger.Failure{Class: "InternalServerError"}, Upstream, ReasonProvider},
		{"CLIProxyAPI record", ledger.CLIProxy, ledger.Failure{HTTPStatus: 500, Text: `{"error":{"message":"mock api_error"}}`}, Upstream, ReasonProvider},
		{"CLIProxyAPI record of a 410", ledger.CLIProxy, ledger.Failure{HTTPStatus: 410, Text: `{"error":{"message":"model retired"}}`}, Upstream, ReasonRetired},
		{"CLIProxyAPI record of a 429 from the provider", ledger.CLIProxy, ledger.Failure{HTTPStatus: 429, Text: `{"error":{"type":"rate_limit_error"}}`}, Upstream, ReasonQuota},
		{"CLIProxyAPI record of a 403", ledger.CLIProxy, ledger.Failure{HTTPStatus: 403, Text: `{"error":{"type":"permission_error"}}`}, Upstream, ReasonCredential},
		{"CLIProxyAPI record of its own refusal", ledger.CLIProxy, ledger.Failure{HTTPStatus: 429, Text: `{"error":{"code":"model_cooldown"}}`}, Gateway, ReasonCooldown},
		{"canonical row", ledger.Canonical, ledger.Failure{}, Unknown, ReasonNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ledger.Call{Gateway: tt.gw, Status: ledger.StatusFailure, Failure: tt.f}
			class, reason := Classify(&c)
			if class != tt.class || reason != tt.reason {
				t.Errorf("Classify = %s %q, want %s %q", class, reason, tt.class, tt.reason)
			}
		})
	}
}

func TestClassifyAccess(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		latency time.Duration
		class   Class
		reason  Reason
	}{
		{"fast 503: no credential", 503, 6 * time.Millisecond, Gateway, ReasonNoCredential},
		{"fast 429: model cooldown", 429, 2 * time.Millisecond, Gateway, ReasonCooldown},
		{"fast 401: client key refused", 401, 0, Gateway, ReasonAuth},
		{"slow 503 without a record: upstream by latency", 503, 812 * time.Millisecond, Upstream, ReasonProvider},
		{"at the threshold is slow", 503, DefaultFast, Upstream, ReasonProvider},
		{"just below the threshold is the gateway's", 503, DefaultFast - time.Millisecond, Gateway, ReasonNoCredential},
		{"slow 410: the model is retired", 410, 240 * time.Millisecond, Upstream, ReasonRetired},
		{"slow 429: the provider's quota", 429, 1204 * time.Millisecond, Upstream, ReasonQuota},
		{"slow 401: the provider refused the key", 401, 380 * time.Millisecond, Upstream, ReasonCredential},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			class, reason := ClassifyAccess(&ledger.AccessLine{Status: tt.status, Latency: tt.latency}, DefaultFast)
			if class != tt.class || reason != tt.reason {
				t.Errorf("ClassifyAccess = %s %q, want %s %q", class, reason, tt.class, tt.reason)
			}
		})
	}
}

func TestTallySplit(t *testing.T) {
	var tl Tally
	calls := []struct {
		f       ledger.Failure
		outcome pricing.Outcome
	}{
		{ledger.Failure{Class: "ServiceUnavailableError", Provider: "openai"}, pricing.Failed},
		{ledger.Failure{Text: "No deployments available for selected model."}, pricing.Failed},
		{ledger.Failure{Text: "No deployments available for selected model."}, pricing.Failed},
		{ledger.Failure{}, pricing.Failed},
		{ledger.Failure{Class: "ServiceUnavailableError", Provider: "openai"}, pricing.Duplicate},
	}
	for _, c := range calls {
		call := ledger.Call{Gateway: ledger.LiteLLM, Status: ledger.StatusFailure, Failure: c.f}
		if err := tl.Observe(&call, &pricing.PricedCall{Outcome: c.outcome}); err != nil {
			t.Fatal(err)
		}
	}
	// Six failed in all: four seen one by one, two summed unseen.
	if u, g, k := tl.Split(6); u != 1 || g != 2 || k != 3 {
		t.Errorf("split = %d upstream, %d gateway, %d unknown; want 1, 2, 3", u, g, k)
	}
}

func TestCooldownByStatus(t *testing.T) {
	cfg := &Config{Gateway: ledger.CLIProxy, Cooldown: 20 * time.Second}
	tests := []struct {
		name   string
		cfg    *Config
		gw     ledger.Gateway
		status int
		want   time.Duration
	}{
		{"CLIProxyAPI 503, default", nil, ledger.CLIProxy, 503, time.Minute},
		{"CLIProxyAPI 503, transient-error-cooldown-seconds", cfg, ledger.CLIProxy, 503, 20 * time.Second},
		{"CLIProxyAPI 401", cfg, ledger.CLIProxy, 401, 30 * time.Minute},
		{"CLIProxyAPI 404", nil, ledger.CLIProxy, 404, 12 * time.Hour},
		{"CLIProxyAPI 429: the longest backoff", nil, ledger.CLIProxy, 429, 30 * time.Minute},
		{"CLIProxyAPI, status not logged", nil, ledger.CLIProxy, 0, time.Minute},
		{"LiteLLM, default", nil, ledger.LiteLLM, 503, 5 * time.Second},
		{"LiteLLM, another gateway's config", cfg, ledger.LiteLLM, 401, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.cooldown(tt.gw, tt.status); got != tt.want {
				t.Errorf("cooldown = %v, want %v", got, tt.want)
			}
		})
	}
}

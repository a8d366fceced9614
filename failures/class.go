package failures

import (
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// Class is the cause class of a failed call.
type Class uint8

// Cause classes.
const (
	Unknown Class = iota
	Upstream
	Gateway
	NumClasses
)

var classNames = [NumClasses]string{"unknown", "upstream", "gateway"}

// String returns the class as reports spell it.
func (c Class) String() string { return classNames[c] }

// Evidence is what a failure's class rests on.
type Evidence uint8

// Evidence kinds.
const (
	// ByRecord: a usage record or spend-log row of the call.
	ByRecord Evidence = iota
	// ByLogLine: CLIProxyAPI's upstream-failure log line.
	ByLogLine
	// ByLatency: an access line's latency alone, against the fast
	// threshold: proven neither by a record nor by a log line.
	ByLatency
	numEvidence
)

var evidenceNames = [numEvidence]string{"record", "upstream_line", "latency"}

// String returns the evidence as reports spell it.
func (e Evidence) String() string { return evidenceNames[e] }

// Reason says more of a failure's cause, within its class.
type Reason uint8

// Reasons. An upstream failure has ReasonProvider; a gateway refusal one
// of the others; an unknown failure ReasonNone.
const (
	ReasonNone Reason = iota
	// ReasonProvider: the provider answered with an error (a 5xx, with
	// its body where logged): a real upstream failure, which may pass.
	ReasonProvider
	// ReasonCooldown: every credential or deployment was resting after
	// failures (LiteLLM's cooldown list, CLIProxyAPI's model_cooldown).
	ReasonCooldown
	// ReasonNoCredential: no credential could serve (CLIProxyAPI's
	// auth_unavailable), or a fast refusal the access log alone shows.
	ReasonNoCredential
	// ReasonBudget: a budget set in the gateway ran out (a key's,
	// team's, provider's or deployment's, daily caps included).
	ReasonBudget
	// ReasonRateLimit: a rate or concurrency limit set in the gateway,
	// or a deployment filtered out by its rpm/tpm limits.
	ReasonRateLimit
	// ReasonAuth: the gateway refused the client's key.
	ReasonAuth
	// ReasonRequest: the gateway refused the request itself (a model it
	// does not serve).
	ReasonRequest
	// ReasonRetired: the provider answered 410 Gone: the model is at its
	// end of life. No retry will ever succeed.
	ReasonRetired
	// ReasonQuota: the provider answered 429: a quota or rate limit of
	// the provider's, not a passing fault.
	ReasonQuota
	// ReasonCredential: the provider answered 401 or 403: it refused the
	// gateway's key or account.
	ReasonCredential
	numReasons
)

var reasonNames = [numReasons]string{"", "provider", "cooldown", "no_credential", "budget", "rate_limit", "auth", "request",
	"retired", "quota", "credential"}

// String returns the reason as reports spell it; "" for none.
func (r Reason) String() string { return reasonNames[r] }

// Class returns the class a reason belongs to: every reason is of one.
func (r Reason) Class() Class {
	switch r {
	case ReasonNone:
		return Unknown
	case ReasonProvider, ReasonRetired, ReasonQuota, ReasonCredential:
		return Upstream
	}
	return Gateway
}

// upstreamReason is the reason of an upstream failure from the status
// the provider answered: the statuses no retry mends have their own.
func upstreamReason(status int) Reason {
	switch status {
	case 410:
		return ReasonRetired
	case 429:
		return ReasonQuota
	case 401, 403:
		return ReasonCredential
	}
	return ReasonProvider
}

// Opens reports whether a refusal of this reason can be part of an
// episode: the gateway rested what would have served it.
func (r Reason) Opens() bool { return r == ReasonCooldown || r == ReasonNoCredential }

// DefaultFast is the latency below which a failed request the gateway
// answered with no usage record never reached a provider. A provider's
// error takes a network round trip and the provider's own work, hundreds
// of milliseconds; a gateway's refusal from its own state takes a few.
const DefaultFast = 100 * time.Millisecond

// Classify returns the cause class of a failed call and its reason, from
// what its gateway logged (docs/calls.md, "Failed calls").
func Classify(c *ledger.Call) (Class, Reason) {
	switch c.Gateway {
	case ledger.LiteLLM:
		return classifyLiteLLM(&c.Failure)
	case ledger.CLIProxy:
		return classifyCLIProxy(&c.Failure)
	}
	return Unknown, ReasonNone
}

// gatewayTexts are the starts of messages LiteLLM's proxy and router
// write when they refuse a call themselves, with their reason; the first
// that the message contains wins.
var gatewayTexts = []struct {
	text   string
	reason Reason
}{
	{"crossed budget", ReasonBudget},           // router_strategy/budget_limiter.py
	{"Budget has been exceeded", ReasonBudget}, // proxy/auth/auth_checks.py BudgetExceededError
	{"ExceededBudget", ReasonBudget},
	{"cooldown_list=[]", ReasonRateLimit},                             // RouterRateLimitError with nothing cooling: filtered by limits
	{"cooldown_list=[", ReasonCooldown},                               // RouterRateLimitError naming the deployments resting
	{"No deployments available for selected model.", ReasonRateLimit}, // RouterRateLimitErrorBasic: rpm/tpm pre-call checks
	{"No deployments available", ReasonCooldown},
	{"No healthy deployment available", ReasonCooldown},
	{"Rate limit exceeded for", ReasonRateLimit}, // proxy rate limiter (key, team, user limits)
	{"Max parallel request limit reached", ReasonRateLimit},
	{"Crossed TPM", ReasonRateLimit},
	{"Authentication Error", ReasonAuth},
	{"Not allowed to access model", ReasonAuth},
	{"Invalid model name passed in model=", ReasonRequest},
}

// upstreamClasses are the exception classes LiteLLM maps a provider's
// error answer to (litellm/exceptions.py); APIConnectionError is not
// among them: the provider may never have been reached.
var upstreamClasses = map[string]bool{
	"RateLimitError": true, "InternalServerError": true, "ServiceUnavailableError": true, "Timeout": true,
	"BadRequestError": true, "AuthenticationError": true, "PermissionDeniedError": true, "NotFoundError": true,
	"ContextWindowExceededError": true, "ContentPolicyViolationError": true, "UnprocessableEntityError": true,
	"APIError": true, "BadGatewayError": true, "APIResponseValidationError": true,
}

// gatewayClasses are exception classes only LiteLLM's proxy and router
// raise.
var gatewayClasses = map[string]Reason{
	"RouterRateLimitError": ReasonCooldown, "RouterRateLimitErrorBasic": ReasonRateLimit,
	"BudgetExceededError": ReasonBudget, "ProxyRateLimitError": ReasonRateLimit,
}

// upstreamClassReasons are the reasons of the provider exceptions that
// tell more than "the provider failed", where no status was logged.
var upstreamClassReasons = map[string]Reason{
	"RateLimitError": ReasonQuota, "AuthenticationError": ReasonCredential, "PermissionDeniedError": ReasonCredential,
}

// litellmUpstream is the reason of a LiteLLM row the provider failed:
// from its status, else from its exception class.
func litellmUpstream(f *ledger.Failure) (Class, Reason) {
	if f.HTTPStatus != 0 {
		return Upstream, upstreamReason(f.HTTPStatus)
	}
	if r, ok := upstreamClassReasons[f.Class]; ok {
		return Upstream, r
	}
	return Upstream, ReasonProvider
}

func classifyLiteLLM(f *ledger.Failure) (Class, Reason) {
	if upstreamClasses[f.Class] && f.Provider != "" {
		return litellmUpstream(f) // a provider's own words may say "rate limit" too
	}
	for _, g := range gatewayTexts {
		if strings.Contains(f.Text, g.text) {
			return Gateway, g.reason
		}
	}
	if r, ok := gatewayClasses[f.Class]; ok {
		return Gateway, r
	}
	if upstreamClasses[f.Class] {
		return litellmUpstream(f)
	}
	return Unknown, ReasonNone
}

// cliproxyRefusals are the error codes of CLIProxyAPI's own refusals
// (sdk/cliproxy/auth: auth_unavailable, auth_not_found, model_cooldown).
var cliproxyRefusals = []struct {
	text   string
	reason Reason
}{
	{"model_cooldown", ReasonCooldown},
	{"cooling down", ReasonCooldown},
	{"auth_unavailable", ReasonNoCredential},
	{"auth_not_found", ReasonNoCredential},
	{"no auth available", ReasonNoCredential},
}

// classifyCLIProxy classifies a usage record. CLIProxyAPI publishes a
// record only from an executor, which runs once a credential is picked,
// to call the provider: a failed record is an upstream failure unless its
// body is one of the gateway's own refusals.
func classifyCLIProxy(f *ledger.Failure) (Class, Reason) {
	for _, g := range cliproxyRefusals {
		if strings.Contains(f.Text, g.text) {
			return Gateway, g.reason
		}
	}
	return Upstream, upstreamReason(f.HTTPStatus)
}

// ClassifyAccess returns the class of a failed access-log line that no
// usage record or upstream-failure line tells: its latency is the
// evidence. A fast answer (below fast) came from the gateway's own state:
// no executor ran for it. A slow one took a provider's round trip and
// work: it is upstream, inferred from its latency (its record, if any,
// may have been lost: the usage queue is lossy, and off by default).
func ClassifyAccess(a *ledger.AccessLine, fast time.Duration) (Class, Reason) {
	return classifyLatency(a.Latency, a.Status, fast)
}

// classifyLatency is ClassifyAccess of a line that took latency and was
// answered status.
func classifyLatency(latency time.Duration, status int, fast time.Duration) (Class, Reason) {
	if latency >= fast {
		return Upstream, upstreamReason(status)
	}
	switch status {
	case 429:
		return Gateway, ReasonCooldown
	case 401, 403:
		return Gateway, ReasonAuth
	case 400, 404:
		return Gateway, ReasonRequest
	}
	return Gateway, ReasonNoCredential
}

package failures

import (
	"strings"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// Pool is what a gateway's configuration says serves one provider
// (CLIProxyAPI) or model group (LiteLLM).
type Pool struct {
	// Name is the provider as CLIProxyAPI's config names it ("claude",
	// an openai-compatibility entry's name), or LiteLLM's model_name.
	Name string
	// Keys is how many API keys (CLIProxyAPI) or deployments (LiteLLM)
	// serve it.
	Keys int
	// Cooling: the gateway rests a failing key or deployment.
	Cooling bool
	Line    int    // where the pool is in the file
	Field   string // the config path that sets it, e.g. "claude-api-key"
	// CoolingField is where a CLIProxyAPI provider's block turns cooling
	// off ("claude-api-key[0].disable-cooling").
	CoolingField string
}

// Config is the part of a gateway's configuration episodes are read
// against: the pools and the rest the gateway gives a failing key.
type Config struct {
	File    string
	Gateway ledger.Gateway
	Pools   []Pool
	// Cooldown is the configured rest (CLIProxyAPI's
	// transient-error-cooldown-seconds, LiteLLM's router cooldown_time);
	// 0 for the gateway's default.
	Cooldown time.Duration
	// Rule names the `tokenfare check` rule that flags a pool of one.
	Rule string
	// AllowedFails is LiteLLM's allowed_fails, the failures a deployment
	// may have in a minute before it rests, when the config sets it.
	AllowedFails    int
	AllowedFailsSet bool
}

// pool finds the configuration's pool of an episode: by provider for
// CLIProxyAPI (whose records name an openai-compatibility entry
// "openai-compatible-<name>" since v7.2.21), by model group for LiteLLM.
func (c *Config) pool(g ledger.Gateway, provider, group string) *Pool {
	if c == nil || c.Gateway != g {
		return nil
	}
	name := group
	if g == ledger.CLIProxy {
		name = providerName(provider)
	}
	for i := range c.Pools {
		p := &c.Pools[i]
		if g == ledger.CLIProxy && providerName(p.Name) == name || g != ledger.CLIProxy && p.Name == name {
			return p
		}
	}
	return nil
}

// eliminate is the pool of an episode whose log names no provider: the
// config's only provider that one key serves with cooling on (a provider
// of several keys rotates past one failure: its refusals need every key
// failing). With several such providers, none, and their names.
func (c *Config) eliminate() (*Pool, []string) {
	if c == nil || c.Gateway != ledger.CLIProxy {
		return nil, nil
	}
	var found []*Pool
	for i := range c.Pools {
		if p := &c.Pools[i]; p.Keys == 1 && p.Cooling {
			found = append(found, p)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, p := range found {
		names[i] = p.Name
	}
	return nil, names
}

// providerName is a CLIProxyAPI provider as its config names it,
// lowercased.
func providerName(s string) string {
	return strings.TrimPrefix(strings.ToLower(s), "openai-compatible-")
}

// Default rests, when the configuration does not set one.
const (
	// CLIProxyAPI rests a credential for a model one minute after a 408,
	// 500, 502, 503 or 504 (transientErrorCooldown, sdk/cliproxy/auth).
	DefaultCLIProxyCooldown = time.Minute
	// LiteLLM's router cools a deployment for 5 seconds unless
	// cooldown_time says otherwise (DEFAULT_COOLDOWN_TIME_SECONDS).
	DefaultLiteLLMCooldown = 5 * time.Second
)

// Rests CLIProxyAPI gives a credential after other statuses (MarkResult,
// sdk/cliproxy/auth/conductor_cooldown.go): 30 minutes after 401, 402 and
// 403; 12 hours after 404; after 429 the Retry-After, else a backoff
// from 1 second doubling to 30 minutes, bounded here by its longest.
const (
	cliproxyAuthRest  = 30 * time.Minute
	cliproxyFoundRest = 12 * time.Hour
	cliproxyQuotaRest = 30 * time.Minute
)

// cooldown is the rest after an upstream failure of the given HTTP
// status (0 when not logged) on gateway g.
func (c *Config) cooldown(g ledger.Gateway, status int) time.Duration {
	if g == ledger.CLIProxy {
		switch status {
		case 401, 402, 403:
			return cliproxyAuthRest
		case 404:
			return cliproxyFoundRest
		case 429:
			return cliproxyQuotaRest
		}
	}
	if c != nil && c.Gateway == g && c.Cooldown > 0 {
		return c.Cooldown
	}
	if g == ledger.LiteLLM {
		return DefaultLiteLLMCooldown
	}
	return DefaultCLIProxyCooldown
}

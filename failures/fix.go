package failures

import (
	"slices"

	"github.com/tokenfare/tokenfare/ledger"
)

// Action is what the episodes of one pool call for.
type Action uint8

// Actions.
const (
	// ActionGiveConfig: no config was given, so how many keys or
	// deployments serve the pool is not known.
	ActionGiveConfig Action = iota
	// ActionNoPool: the config has no pool of that name; or, the log
	// naming no provider, no single one could be told.
	ActionNoPool
	// ActionDisableCooling: a CLIProxyAPI provider that holds one key:
	// disable-cooling: true on that provider's block, never globally, or
	// a second key (check rule single-key-cooling).
	ActionDisableCooling
	// ActionAddDeployment: a LiteLLM group of one deployment: a second
	// deployment or a fallback, or a shorter cooldown_time or a higher
	// allowed_fails (check rule cooldown).
	ActionAddDeployment
	// ActionLeave: two or more keys or deployments: the cooldown is the
	// rotation that takes a failing one out; leave it.
	ActionLeave
)

// Fix is what the episodes of one pool call for: one per provider
// (CLIProxyAPI) or model group (LiteLLM), however many episodes it had.
type Fix struct {
	Gateway ledger.Gateway
	// Name is the provider or model group; "" when the log named none
	// and the config could not tell it.
	Name       string
	Pool       *Pool
	Candidates []string
	// ByElimination: the log named no provider; Pool is the config's
	// only provider whose single key cools.
	ByElimination bool
	Episodes      int
	Refused       int64
	Action        Action
}

// Fixes returns what the episodes call for, one per pool, in the order
// the pools' first episodes began.
func (r *Result) Fixes() []Fix {
	var out []Fix
	for i := range r.Episodes {
		ep := &r.Episodes[i]
		name := ep.Provider
		if ep.Gateway == ledger.LiteLLM {
			name = ep.ModelGroup
		}
		j := slices.IndexFunc(out, func(f Fix) bool { return f.Gateway == ep.Gateway && f.Name == name })
		if j < 0 {
			j = len(out)
			out = append(out, Fix{Gateway: ep.Gateway, Name: name, Pool: ep.Pool, Candidates: ep.Candidates,
				Action: action(ep, r.Config)})
		}
		out[j].Episodes++
		out[j].Refused += ep.Refused
		out[j].ByElimination = out[j].ByElimination || ep.ByElimination
	}
	return out
}

// action is what an episode's pool calls for.
func action(ep *Episode, cfg *Config) Action {
	switch {
	case ep.Pool == nil && cfg == nil:
		return ActionGiveConfig
	case ep.Pool == nil:
		return ActionNoPool
	case ep.Pool.Keys > 1:
		return ActionLeave
	case ep.Gateway == ledger.LiteLLM:
		return ActionAddDeployment
	}
	return ActionDisableCooling
}

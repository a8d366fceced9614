// Package cliproxy checks a CLIProxyAPI config.yaml for the gateway
// behaviour that turns one upstream error into refused requests.
//
// CLIProxyAPI holds no prices, so its checks are about availability: a
// provider with a single API key whose cooling is on stops serving every
// request for the cooldown (60 s by default for a 5xx) after one
// transient error.
//
// # Invariants
//
//   - Every finding names the file and line of the provider entry.
//   - Detect reads only top-level keys; a LiteLLM config is never taken
//     for a CLIProxyAPI one (model_list marks LiteLLM).
package cliproxy

// Package cliproxy checks a CLIProxyAPI config.yaml for the gateway
// behaviour that turns one upstream error into refused requests, or keeps
// a failing key in rotation.
//
// CLIProxyAPI holds no prices, so its checks are about availability, and
// both turn on one switch, disable-cooling, sized to the keys a provider
// holds: a provider with a single API key whose cooling is on stops
// serving every request for the cooldown (60 s by default for a 5xx)
// after one transient error; a provider with several keys needs its
// cooldown, which takes a failing key out of the rotation, so turning
// cooling off globally is wrong for it. The fix is per provider (or per
// key), never the global switch.
//
// # Invariants
//
//   - Every finding names the file and line of the provider entry.
//   - Detect reads only top-level keys; a LiteLLM config is never taken
//     for a CLIProxyAPI one (model_list marks LiteLLM).
//   - A provider is checked by at most one of the two rules: below the
//     pool size by single-key-cooling, at or above it by
//     global-cooling-off.
package cliproxy

// Package gateway holds what every gateway config checker shares: the
// finding a check reports. Its subpackages read one gateway's config each:
// gateway/litellm (LiteLLM's config.yaml: read, check, write prices back)
// and gateway/cliproxy (CLIProxyAPI's config.yaml: check).
//
// # Invariants
//
//   - Every finding names the file and line of the value it is about.
//   - A rule lives in the package of the gateway it checks, next to the
//     other rules of that gateway.
package gateway

// Package failures tells failed calls apart by cause and finds the
// episodes in which a gateway refused calls by itself.
//
// A failed call is of one of three classes:
//
//   - Upstream: a provider was called and answered with an error (or did
//     not answer in time). Such a call may be billed.
//   - Gateway: the gateway refused the call before calling any provider:
//     a cooldown, no usable credential or deployment, a budget or rate
//     limit set in the gateway, the client's key refused. It is never
//     billed by a provider.
//   - Unknown: what was logged does not tell.
//
// A class rests on evidence: a usage record or spend-log row, the
// gateway's upstream-failure log line, or, for an access-log line
// nothing else tells, its latency (below the fast threshold the
// gateway's own refusal, at or above it a provider's answer). An upstream
// failure by latency is counted apart from a proven one.
//
// A reason says more within the class. An upstream failure's comes from
// the provider's status: 410 a retired model, 429 its quota, 401/403 a
// credential refused, else a real failure (provider); none of the first
// three is mended by a retry.
//
// An episode is a run of gateway refusals for one provider (CLIProxyAPI)
// or model group (LiteLLM) that follows an upstream failure there within
// the gateway's cooldown: the gateway rested its only credential or
// deployment after the failure and answered every request locally until
// the rest ran out. The rules and thresholds, and the gateways' source
// each rests on, are in docs/calls.md ("Failed calls").
//
// # Invariants
//
//   - Every failed call the run sees, and every failed access-log line
//     joined to no usage record, is counted in exactly one class.
//   - A refusal belongs to at most one episode; an episode holds at least
//     one refusal and begins with exactly one upstream failure.
//   - An episode's pool is named by its trigger; a trigger the log names
//     no provider of is given the config's only single-key provider with
//     cooling on, marked as by elimination, or none.
//   - Fixes are one per pool, whatever the number of its episodes.
//   - The management API's lines are no failure.
//   - Money is exact: recorded spend and official cost are sums of
//     decimals, never floats.
//
// The package reads no file and no clock: the command layer gives it the
// access log's lines and a summary of the gateway's configuration.
package failures

// Package state keeps what tokenfare serve has read, so that a refresh
// reads only what is new and a restart neither misses nor double counts a
// call: per source a watermark (the newest billing instant read), the
// identities of the calls read near it, and integer sums of tokens and
// tool uses, exact sums of recorded spend and call counts per (model,
// host, 15-minute slot, key alias, team, outcome, service tier, region,
// prompt-size class). The sums hold no price: a tariff change re-prices
// them (Price) without reading the sources again.
//
// The store is one bbolt file. A refresh of a source (Batch) gathers its
// calls in memory and commits them with the source's new watermark in one
// transaction: a process killed mid-refresh leaves the state as it was
// before it, and the next refresh reads the same rows again.
//
// # Invariants
//
//   - A call (gateway, request id, start) is counted once over every
//     refresh and source, as long as it arrives no later than Overlap after
//     the newest call of its source read before it.
//   - Every row a refresh reads is counted once: in the sums by outcome,
//     as a duplicate, as rejected, or as outside (before the watermark's
//     overlap, read and counted before).
//   - Price of a slot's sums equals the sum of its calls' official costs
//     when the tariff's periods and versions change on the 15-minute grain
//     (tariffs validate warns otherwise) and its prompt-size tiers keep
//     their thresholds.
package state

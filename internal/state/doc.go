// Package state keeps what tokenfare serve has read, so that a refresh
// reads only what is new and a restart neither misses nor double counts a
// call: per source a watermark (the newest billing instant read), the
// identities of the calls read near it, and integer sums of tokens and
// tool uses, exact sums of recorded spend and call counts per (model,
// host, 15-minute slot, key, team, user, tags, outcome, service tier,
// region, prompt-size band, and what else the engine keeps calls apart
// by: Detail). The sums hold no price: a tariff change re-prices them
// (Pricer for serve's metrics; Summer and Fill hand them to an engine of
// internal/run's) without reading the sources again.
//
// The package is storage: it reads no source and builds no engine. A
// refresh is internal/run's (run.Refresh), driving the primitives the
// state exports, one Batch per source: Begin, the window (Since, Floor,
// Known), the marks of a feed of files (PlanFiles, StartPass), the calls
// observed (Observe, a pricing.Observer of the run's), then Commit or
// Abort; Release and Store.Recover deferred, so that a page bbolt panics
// on is a DamagedError naming the file, the transaction ended.
//
// The store is one bbolt file. A refresh of a source (Batch) gathers its
// calls in memory and commits them with the source's new watermark in one
// transaction: a process killed mid-refresh leaves the state as it was
// before it, and the next refresh reads the same rows again. A refresh of
// more keys than a part (131,072) adds each part to a pending bucket as it
// goes and moves them into the sums after its commit, a part per
// transaction (parts.go): memory holds a part whatever the refresh reads,
// and the figures are those of one transaction, killed anywhere.
//
// The file's layout (every bucket, key layout, record format and the
// ordered migrations) is schema.go; storage.go alone calls bbolt, and the
// rest of the package reaches the buckets through schema.go's accessors.
// docs/state-format.md describes the format and how to change it.
// A feed of files is read past the marks the last refresh left: the
// package ledger/tail plans what to read from them, the state stores them.
//
// # Invariants
//
//   - A call (gateway, request id, start) is counted once over every
//     refresh and source, as long as it arrives no later than Overlap after
//     the newest call of its source read before it.
//   - Every row a refresh reads is counted once: in the sums by outcome,
//     as a duplicate, as rejected, or as outside (before the watermark's
//     overlap, read and counted before).
//   - Pricer.Price of a slot's sums equals the sum of its calls' official costs
//     when the tariff's periods and versions change on the 15-minute grain
//     (OffGrains names the boundaries that do not) and its prompt-size
//     tiers keep their thresholds.
//   - A run over Summer (and Fill) gives an engine the figures of one run
//     over every row the state read, or an error: never another figure.
//   - A call read for the first time and billed no earlier than a day and
//     Overlap before its source's watermark is counted in its own slot
//     (late); an earlier one is counted as outside.
package state

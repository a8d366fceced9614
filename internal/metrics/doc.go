// Package metrics turns tokenfare serve's state into Prometheus metrics:
// the official cost and the recorded spend by provider, model, key alias
// and team, the gap between them over the last hour, day and the month to
// date, the peak share per model, calls by outcome and the age of the
// newest row of each source.
//
// A Collector holds the figures of its last Update, priced from the
// state's sums at the catalog given then, so that a scrape costs no
// pricing and a tariff change (a new catalog) re-prices the whole history.
// What an engine prices (the blend a LiteLLM config is held against, the
// month's saving per lever) is handed to it as functions (Options.Blend,
// Options.MonthSaving: internal/run's StateBlend and StateSaving, wired
// by the command): the package builds no engine and reads no file.
//
// # Invariants
//
//   - The cardinality is bounded: at most Options.TopKeys key aliases are
//     named (by official cost, all time), the others are "other".
//   - Money is summed as exact decimals; it becomes a float only in the
//     exposition, as the text format carries it.
package metrics

// Package postgres reads LiteLLM's "LiteLLM_SpendLogs" straight from its
// PostgreSQL database. It is the only package of tokenfare that imports a
// database driver (pgx).
//
// A Source is one database. Open streams its rows as ledger calls through
// ledger.SpendLogMapper, the same code that reads a table dump, so a
// database and its CSV export give the same calls. Aggregate pushes the
// heavy work down instead: the database sums the calls between the
// instants where a price or a reported day or hour changes, by model,
// status, prompt-size band and the asked groupings, and
// pricing.Engine.AddAggregate checks and prices the sums.
//
// # Invariants
//
//   - Read-only: every query runs in one read-only, repeatable-read
//     transaction, with a statement timeout and application_name
//     tokenfare; user values reach SQL only as parameters.
//   - Streamed: rows are read as the server sends them, one batch at a
//     time; the context cancels the query.
//   - Exact: the database splits tokens only for rows whose metadata has
//     the plain Chat Completions shape and whose counts add up; every other
//     row is sent whole to the mapper, which reads or rejects it as it would
//     from a file. Spend is summed as numeric from each double's shortest
//     text, the text the mapper parses.
//   - Private: no error or name shows the password of the URL.
package postgres

// Package ledger reads the calls logged by LLM gateways and normalises
// them into one record, Call.
//
// A Source is where calls come from: FileSource (a file) and StreamSource
// (stdin) here, a database elsewhere. Opening a file source detects the
// format from the content (gzip is read transparently) and returns a
// Reader that streams Batches of calls in input order, until its context
// is done:
//
//   - LiteLLM "LiteLLM_SpendLogs" as CSV, whole-table dump (token split in
//     the metadata JSON column) or flat export (cached_tokens,
//     cache_creation_tokens, reasoning_tokens columns);
//   - LiteLLM /spend/logs JSON arrays, /spend/logs/v2 pages and JSON lines
//     of the same rows;
//   - CLIProxyAPI v6 usage exports and v7 usage-queue records (JSON
//     array or JSON lines);
//   - tokenfare's canonical CSV and JSON lines.
//
// The formats, their columns and token semantics are documented in
// docs/calls.md. The LiteLLM UI usage export is refused: it has no
// per-call times.
//
// The LiteLLM CSV is the large input (tens of millions of rows), so it
// has its own path: the input is cut into chunks on record boundaries,
// chunks are split by a hand-written RFC 4180 splitter and parsed by
// Options.Workers goroutines without per-field allocations, and batches
// are delivered in input order. Memory is bounded by a few chunks.
//
// JSON in rows (LiteLLM's metadata, the members of a /spend/logs row) and
// the elements of /spend/logs arrays are read by a scanner over the bytes
// (jsonScanner) that visits only the members tokenfare reads and passes
// over the rest, accepting exactly what encoding/json accepts and
// wording its syntax errors alike; the fields read are the ones
// encoding/json decoded, held to it by differential fuzz tests, but for
// the metadata's member names: those are matched exactly as written
// (escapes resolved), as LiteLLM writes them and PostgreSQL's jsonb looks
// them up, where encoding/json matches names without regard to case. An array
// element the scanner does not read (malformed, cut short, near the
// longest record) and all after it are read by encoding/json's decoder,
// which words and locates the error.
//
// # Invariants
//
//   - Every input row becomes exactly one Call or one Rejection: for every
//     Batch, Rows == len(Calls) + len(Rejected). Blank lines are not rows.
//   - A Rejection names its row with fields, File and Line (or Item:
//     "[7] request_id \"abc\"", "usage.apis #2 models[\"gpt-5\"] details[3]"),
//     and the field and value at fault. Errors that stop reading are
//     *InputError values, with the file and line as fields. A bad row never stops the stream; only
//     unreadable input (I/O errors, broken JSON syntax) does.
//   - Token buckets never overlap and are never negative: Input excludes
//     cached and cache-write tokens; Output includes Reasoning.
//   - Instants are UTC. Zone-less timestamps are UTC.
//   - Recorded spend is an exact decimal parsed from its text, never a float:
//     an Amount, two integers when its coefficient fits in an int64.
//   - Reading allocates per batch and per distinct value, not per row: a
//     batch's request ids and locations share one string, repeated values
//     (models, keys, users) are interned, spends are Amounts.
//   - Call.Key is never a raw API key: raw keys are hashed with SHA-256
//     (hex, as LiteLLM stores them) on ingest, and never appear in
//     locations or messages.
//   - Calls are delivered in input order, whatever the number of workers.
package ledger

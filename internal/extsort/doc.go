// Package extsort is an external sort of records of any type: sorted runs
// written to a store, a binary record codec, and a k-way merge that
// combines the parts of one record (equal keys) as it reads them back. It
// does no I/O of its own: a run is a file of a RunStore, which the caller
// hands it (the command line's is internal/spillfs, a folder under the
// system's temporary folder, with its crash clean-up and file budget;
// tests use one in memory).
//
// # Records
//
// A Codec writes a record's fields through an Encoder and reads them back
// through a Decoder: unsigned and signed varints, bytes, length-prefixed
// texts and exact decimals (a flag, the coefficient as a varint or, past
// int64, its decimal text, then the exponent as a varint), so that a
// decimal reads back with the digits it was written with. A run is a
// sequence of records, each its length (a uvarint) and then its bytes; a
// record is read whole and decoded from memory. A run cut inside a record,
// or a record with bytes left over or too few, is an error naming the run.
// A codec is made for each run read (Config.Codec), so that it may keep
// state across a run's records, as the last texts read.
//
// # Runs and merging
//
// Runs are the sorted runs of one kind (Config.Prefix names them,
// "run-000000", "run-000001"), written from a sorted source (Runs.Write) or
// from records held and sorted in memory (Sorter). Runs.Merge reads them
// back with further sorted sources (records not spilled) as one sorted
// stream: a heap of each source's next record, each read into memory of
// its own and handed out in place (Merge.All), so that a source writes
// every field of a record (Source, Codec); records that are parts of one
// (Config.Same) are combined into the first (Config.Combine) as they
// come. Without Combine every record comes out, equal ones included.
//
// # Cost model
//
// For N records spilled in R runs of at most M records each (R about N/M),
// with K the runs kept before they are compacted (Config.MaxRuns, from the
// store's file budget: MaxRuns):
//
//   - Written: each record once when R <= K. Past K runs, the K runs are
//     merged into one before the next is written, so each compaction
//     rewrites every record spilled so far: about R/K compactions, N*R/(2K)
//     records rewritten in all. Ten million groups in 300 runs of 33,000
//     rewrite none at K = 256.
//   - Read: each record once per merge of the runs (each pass of the
//     caller over its results), plus once per compaction it took part in.
//   - CPU: the codec's work per record written or read, and about log2(k)
//     comparisons per record merged from k sources.
//   - Memory: a 64 KiB buffer per run open (K of them, 16 MiB at K = 256,
//     while a merge reads them), a record per source, and the buffer of one
//     record being written or read; the records held by a Sorter (M).
//   - Files: at most K + 1 open at once (K read while one is written by a
//     compaction), within an eighth of the process's limit (MaxRuns).
//
// # What does not go through it
//
// ledger/dedup keeps its own spill: a set of 64-bit fingerprints looked up
// one at a time as rows come, not a sort read back once. Its segments are
// read by block at an offset (a probe reads 4 KiB of one segment), which a
// run read from its start cannot do, are raw little-endian words written
// from memory in one call (a random word is 9 or 10 bytes as a varint,
// and a record's length one more: about a third more bytes, and a decode
// of each word where there is a copy), and live in one unlinked file,
// where runs would be a file for each of up to eight segments an hour of
// the input, past any budget of open files.
//
// # Counters
//
// Runs.Stats counts the runs written, the records and bytes written to
// them, the compactions and the records compacted.
package extsort

// Package dedup is an exact set of call fingerprints that stays within a
// memory budget by spilling to a temporary file, so that duplicate rows can
// be found in streams of any length.
//
// # Model
//
// A fingerprint is a 64-bit hash of a call's identity, start instant
// included, computed by the caller: equal fingerprints are taken as the same
// call, and the same call always comes with the same start instant. The set
// is partitioned by the UTC hour of the start instant, since a duplicate row
// can only ever meet fingerprints of its own hour.
//
// A partition is hot while it has tables in memory: fresh, an open-addressing
// table of fingerprints not yet on disk, and base, copies of segments loaded
// back from disk. When the memory charged would exceed the budget, the least
// recently used hot partitions are evicted: fresh is written, sorted, as a
// segment appended to one spill file, and both tables are freed. A segment
// keeps in memory its offset, its length, the bounds of the start instants
// of its calls and, when longer than one block of 512, one fence (first
// fingerprint) per block. The last evicted table is kept, charged, for the
// next new hour, which also starts at the size of the last evicted table.
//
// A lookup checks the partition's tables, then the segments not loaded
// whose bounds include the start instant. Those are loaded into base when
// they fit in the budget, up to four times per partition; after that, or
// when they do not fit, each is probed by reading one 4 KiB block. A
// partition with more than eight segments has its two smallest neighbours
// merged, streaming from disk.
//
// # Cost by input order
//
// Sorted input (exports ordered by start) touches one hot partition at a
// time and never reads the file back: an evicted hour is not seen again, and
// when one hour alone outgrows the budget its segments end at or before the
// next start, so only calls sharing that exact instant consult them.
// Several sorted exports concatenated reload each hour about once per
// export. Random order stays exact but costs reads: once partitions have
// been loaded four times, a row whose hour is not hot costs a block read
// per segment of that hour (at most eight; the page cache usually has them).
//
// # Invariants
//
//   - Exact: FirstSeen(fp, t) is true exactly once per fp, whatever the order
//     or the budget, provided equal fingerprints come with equal instants.
//   - A fingerprint is stored once, base copies aside: in its partition's
//     fresh table or in exactly one of its segments. Merged segments stay in
//     the file as garbage, so the file's size is Stats.BytesSpilled.
//   - A fresh table never exceeds 3/4 load; memory charged counts table
//     slots (capacity, not entries), buffers, fences and per-partition and
//     per-segment bookkeeping, and Stats.PeakBytes is its maximum.
//   - Tables are evicted before the charge would exceed the budget, keeping
//     room for the spill file's two 4 KiB buffers. Bookkeeping (about 72
//     bytes per hour seen, 56 bytes per segment and 1/512 of the spilled
//     bytes for fences) is never evicted, so the budget is exceeded only
//     when bookkeeping alone fills it: a year of hours costs about 1.1 MB.
//     A hot partition then still gets the smallest table (128 bytes).
//   - No file exists until the budget is first exceeded; Close removes it.
//
// A Set is not safe for concurrent use.
package dedup

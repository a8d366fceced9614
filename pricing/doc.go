// Package pricing prices logged calls at the tariff in force at their
// billing instant, and builds reconciliations and blended prices from the
// result. With Options.TariffAt every call is priced instead at the
// tariff in force at one instant, as if that version had applied at the
// call's own instant: the blend a gateway should carry from then on. It
// does no I/O, reads no clock and imports no edge package (no export
// reader, driver, renderer or command; imports_test.go walks the graph),
// nor os, syscall, path/filepath, io/fs or a YAML library: an engine that
// spills writes its runs to the RunStore it is handed (Options.Runs; on
// disk, internal/spillfs), and a budgets file reaches it as a BudgetPlan
// (read by internal/budgets).
//
// An Engine classifies each call (priced, unpriced, retired, failed,
// duplicate, outside the window, answered from the gateway's response
// cache) and adds its integer quantities into a bucket keyed by model,
// tariff version, period, tier, outcome and the groupings asked for. A bucket is priced once, at report time, by
// multiplying its quantities by the decimal prices.
//
// An Observer watches the priced calls of a run go by: per-call output,
// the workbook's month, FOCUS, the three-way reconciliation with the
// providers' own exports (package pricing/threeway).
//
// Results are typed and carry no file format: amounts are decimal.Decimal,
// ratios and shares decimal.NullDecimal (not valid when undefined),
// explanation kinds, outcomes and blend modes are enums, and a group is
// named by a comparable GroupKey whose fields follow the dimensions. The
// reports package renders them; nothing here formats money for output.
//
// # Long results
//
// A result that can be long (the groups of a Reconciliation, the lines
// of a Chargeback, an engine's Charges) is read through one idiom, the
// standard library's iter.Seq2 of a record and an error: Groups, Lines
// and Charges.All yield each record in order, then at most one error, last,
// with no record. Callers range over it whether the records are listed
// in memory or streamed from the runs of an engine that spilled
// (Options.Runs), and never learn which. iter.Seq2 rather than a type of
// our own: range, break and iter.Pull work on it as on any sequence, a
// loop left early runs the iterator's deferred clean-up (the runs it
// opened are closed), and the error comes with the records, where a
// Scanner-like Err method is easily left unread. Groups and lines come as
// pointers valid until the next, as a million of them are not copied
// (Collect copies a short result into a list); Charges, made one at a
// time, come as values.
//
// A result streamed from the runs owns them with its engine: the store
// of the runs is reference-counted, the engine holding one reference
// and each Reconciliation, Chargeback or Charges that streams from it
// another.
// Close on either lets go of its own; the runs are removed with the
// last. A command closes the engine as soon as it has its results and
// closes them once rendered. Reading a closed result yields ErrClosed,
// never an empty stream; so do the spilled results of an engine closed
// before they were made. A streamed result reads the engine's buckets as
// they are when it is read: it is made once every call is added.
//
// # Invariants
//
//   - A call is priced among its host's price lists only; a call whose
//     host no tariff prices is unpriced, and explained by host.
//   - Money is exact: a bucket's official cost equals the sum of its calls'
//     own costs to the last digit, whatever the order of the input.
//   - Every call added is counted once in Rows; Rows.Read is the sum of the
//     other counts.
//   - The amounts of a reconciliation's explanations, "unexplained"
//     included, add up to its gap (official minus recorded).
//   - An engine rolled up to fewer dimensions (Rollup) gives exactly what
//     an engine grouped by those dimensions alone gives on the same calls;
//     a month's views are rolled up from one pass.
//   - A group's charges (Charges) cost its official cost, and their
//     apportioned recorded spend adds up to its recorded spend exactly.
//   - A chargeback's lines by tag add up to the gateway's official cost
//     and recorded spend exactly: a call of several tags is split among
//     them, the first taking the remainder. Lines kept plus the excluded
//     calls' line (Options.Apart, TakeApart) are every call.
//   - A blended price lies between the lowest and highest price that applied
//     in its window; per model, the window's quantities at blended prices
//     give its official cost to within half a unit of the BlendPlaces-th
//     decimal per 1M tokens.
package pricing

// Package run owns one run over logged calls: the sources of a command,
// read once each in order against one duplicate set, summed where that is
// exact, faster, and nothing needs the calls one by one (a ledger.Summer:
// a distributed database's push-down, a state's sums), else read row by
// row, priced by
// one pricing.Engine, shown to the run's observers, and accounted for per
// source. A report's month (Month: its blend, the month compared with,
// three-way rows, budgets) is built by the run beside its engine.
//
// The run also refreshes serve's state (Refresh): per feed one
// internal/state Batch, the window read (past the watermark, back to the
// floor for calls logged late, with what the state knows of the day
// before for a database), the passes of a feed of files (read again, or
// fresh past their marks), each pass one run whose calls the batch
// observes, then the commit, or the abort on an error. The state stores;
// it reads no source and builds no engine. The figures serve's metrics
// take from the state are priced here too, by engines of the run's
// filled from its sums: the blend a gateway's configured prices are held
// against (StateBlend) and the month's saving per lever (StateSaving).
// No package but this one and pricing builds an engine (pricing.New):
// TestEnginesOnlyInRun (cmd/tokenfare/rules_test.go) reads the module's code for it.
//
// The command line (internal/cli) turns flags into an Input (globs
// already expanded, files checked, databases opened), calls Run, and turns
// the Result or the error into words on stderr and an exit code. Run
// itself writes nothing: what it meets as it goes (a rejected row, the
// sums given up for rows) reaches the caller through Input's callbacks,
// and everything else through the Result.
//
// # Invariants
//
//   - Every row read is counted once in the engine's pricing.Rows, and each
//     source's rows (Result.Sources) add up to the whole: their Read is the
//     sum of their other fields, cache hits included.
//   - An observer's error ends the run at once: no further call is shown to
//     any observer, no further batch is read, and Run returns that error as
//     it is (so errors.Is finds syscall.EPIPE in it).
//   - Databases sum their calls (push-down, ledger.Summer) only when every
//     source is a database, no observer is given, Input.Rows is false, and
//     Input.PushDown asks for the sums or one database is distributed
//     (ledger.Distributed: Citus), where summing is the fast way; one
//     PostgreSQL sends its rows faster than it sums them (Choice). When
//     the sums cannot give the exact answer the rows are read instead.
//     A summer that keeps no rows (a state's sums) is always summed, and
//     fails where its sums cannot be exact.
//   - A run that prices no call returns its Result with a
//     *NothingPricedError saying why.
package run

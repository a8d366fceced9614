// Package cli is tokenfare's command line: the cobra command tree, one file
// per command, each a constructor, an options struct and a run function.
//
// What lives here: flags and their parsing (instants, windows, zones,
// output formats), the expansion of --calls globs and the checks that
// every file named exists before any is read, opening --db URLs, the one
// app that wires the catalog, the clock and the writers, the words on
// stderr (notes, warnings, rejected rows, each file's row accounting,
// "nothing priced" and its hint), and the mapping of errors to exit codes
// (exitOK, exitFindings, exitUsage, exitFailure, exitInterrupted).
//
// What does not: the run itself (sources, the duplicate set, push-down or
// rows, the engine, observers, row accounting) is internal/run, which
// returns typed results and errors that this package turns into words;
// pricing, reconciling and blending are pricing's; every table, CSV, JSON,
// YAML, workbook and FOCUS file a user reads is rendered by reports;
// reading and writing gateway configs is gateway's. A command here parses,
// calls those, and maps what comes back to an exit code.
package cli

// Package hostile is the attack corpus of tokenfare, as a test suite: each
// case generates a hostile or faulty input (nothing large is committed),
// runs the built binary on it with a time limit and a memory limit, and
// checks one contract of docs/hostile.md — an input read whole or refused
// with its line, work bounded on any input, output that cannot hurt its
// reader.
//
// Run it with `make hostile` (go test ./internal/hostile); `make test`
// runs it too. A case's memory is bounded twice: the binary runs under
// prlimit --data (when prlimit is installed) so that a runaway case
// fails instead of taking the machine, and its peak resident set, read
// from the process's rusage, is checked against the case's bound.
package hostile

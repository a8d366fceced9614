// Package savings says what the calls of a run would have cost had they
// been served differently, priced exactly from the same catalog: each call
// re-priced under each lever, with the tariff version in force at its own
// instant.
//
// The levers, and what each assumes:
//   - Offpeak: a call billed in a dearer period of its version is priced at
//     the cheapest period of the same version, and the delay to the next
//     instant of that period (by the version's windows, weekdays, holidays,
//     make-up workdays and time zone) is counted in buckets: under 1 h,
//     1–3 h, 3–12 h, 12 h or more.
//   - Batch and Flex: a call served at the standard tier is priced at the
//     batch or flex tier's rates, where its version prices that tier for
//     the model (in the call's region, when it has one). Batch returns
//     results within 24 h; flex is slower and may be refused.
//   - Host: a call is priced on every other host whose lists price the
//     name it was logged under, at the call's instant, in the same service
//     tier, and the cheapest is kept. A call pinned to a region or a data
//     zone (a region logged with it, or a regional or data-zone
//     deployment) never moves, and a host whose rates leave a quantity of
//     the call unpriced is not a choice.
//
// A lever applies to a call only when it is strictly cheaper. Each lever
// is summed alone, and in a combined total each call counts under its best
// lever only (the cheapest; ties go to the first in the order above), so
// the combined saving is never counted twice. Calls that are unpriced,
// retired, failed or answered from the gateway's cache are outside every
// lever and counted as such; duplicates and calls outside the window are
// not calls of the period at all.
//
// # Invariants
//
// For every line, and the total: Served − Best.Saving() = Levered, where
// Levered is summed call by call (each call at its best lever's cost, or
// as served); a lever's Under never exceeds its Served; a call counts in
// Best at most once.
//
// The package does no I/O: it imports no os, path/filepath, syscall or
// YAML library (pricing/imports_test.go checks it).
package savings

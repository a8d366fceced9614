// Package tariffs holds versioned provider tariff tables and answers what a
// model costs at an instant.
//
// A Provider has a currency, an IANA time zone, a billing instant, a
// holiday calendar and a list of Versions. Each Version is a complete
// snapshot in force from its Effective instant until the next one: named
// periods defined by weekdays and local time windows (all remaining time is
// the default period), and Rates per model, period and prompt-size tier.
// Model.At(t) returns the Quote in force at t; a Cursor reuses the last
// quote while it holds, which makes time-ordered lookups nearly free.
//
// # Invariants
//
//   - Prices are exact decimals read from the file's text, never through
//     float64. Negative prices are rejected.
//   - Versions are strictly ordered; a model priced in one version is priced
//     or retired in the next.
//   - Every instant of every local day belongs to exactly one period:
//     windows include their start and exclude their end, a window may cross
//     midnight, and periods may not overlap.
//   - Weekdays, holidays and make-up workdays are judged on the version's
//     local calendar; instants are UTC everywhere else.
//   - A quote holds over [From, Until): the whole range has the same version,
//     period and rates, and never spans a change of UTC offset.
//   - A provider prices the calls of its Hosts (who served a call: a first
//     party such as openai, or a cloud or reseller such as azure). One name
//     belongs to one model within a host, and within the first-party lists
//     that price calls with no host known; model ids are unique across the
//     catalog.
//   - A name is looked up among its call's host's lists only
//     (Catalog.ResolveOn): nothing resolves to another host's list.
package tariffs

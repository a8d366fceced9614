// Package threeway sets three accounts of the same traffic side by side,
// per UTC day, model and (where both sides have it) key: what the gateway
// logged and recorded, what the tariff says the gateway's tokens cost, and
// what the provider itself counted and billed.
//
// A Builder is made from the provider's rows (Row: one time bucket of one
// model, in terms that carry no export's wire format; package provider
// converts its exports to them), then watches the run's priced calls go by
// as a pricing.Observer, and Build finishes the Reconciliation: Cells,
// their totals by provider, and the tariff Drifts. Like package pricing it
// does no I/O, reads no clock and imports no edge package.
//
// # Invariants
//
//   - A cell's gap is billed minus recorded, and its Parts add up to it
//     exactly: recorded against the tariff, usage the provider counted and
//     the gateway did not log (missing), usage the gateway logged and the
//     provider did not count (unknown), and the tariff drift. A provider's
//     totals add up its cells, parts by kind.
//   - Every provider row is counted once: in a cell, or as outside the
//     window.
//   - A provider row is priced at one rate set, the one in force over its
//     whole bucket, or not at all (the cell says why in Note).
//   - Money is exact: amounts are decimal.Decimal from the exports' text,
//     added without rounding.
package threeway

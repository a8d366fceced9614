// Package provider reads what the providers themselves say a gateway's
// traffic used and cost: OpenAI's organization Usage API (completions) and
// Costs API pages, Anthropic's Admin API messages usage report and cost
// report, and DeepSeek's usage export (CSV). docs/provider-usage.md
// documents each shape and where every figure comes from.
//
// Every format becomes Rows: one time bucket of one model (and key, when
// the export has it) with token counts by usage type, request counts where
// the provider gives them, and the amount billed, by usage type where the
// export splits it. ThreeWayRows converts them to the rows of package
// pricing/threeway, which aligns them with the gateway's calls; wire rules
// (Anthropic's context_window, how an export splits its amounts) stay here.
//
// # Invariants
//
//   - Counts and money are read from the text: integers with strconv,
//     amounts as decimal.Decimal from json.Number or strings, never a float.
//   - Raw API keys (DeepSeek exports carry them) are hashed on ingest with
//     ledger.HashKey and never kept, printed or put in an error message.
//   - Every result of every bucket becomes one Row or an error naming the
//     file and where in it; nothing is skipped silently. A row that only
//     carries zeros is kept.
//   - A bucket lies within one UTC day: alignment is by UTC day.
package provider

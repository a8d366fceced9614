// Package drift compares a tariff catalog with another price database a
// gateway already uses: LiteLLM's model_prices_and_context_window.json,
// the YAML provider files of pydantic's genai-prices and models.dev's
// api.json.
//
// Read decodes any of them into a Database of Entries: one model's prices
// as the other database states them, with the name it is listed under, the
// file and line, and the rules that choose among its prices (LiteLLM's
// off_peak_pricing block, genai-prices' start-date and time-of-day
// constraints). Compare puts the Database beside the catalog at an instant
// and returns every Finding: a price that differs, a model one side lacks,
// or time-of-use rules that disagree. OfferAt gives an entry's flat prices
// at an instant, for tariffs import (package tariffs/importer).
//
// # Invariants
//
//   - Prices are exact decimals read from the file's text, never through
//     float64: LiteLLM's per-token figures are read as JSON number text and
//     moved six places to give a price per 1M tokens, then rounded to 12
//     decimal places so that a binary float artifact such as
//     2.9999999999999997e-07 reads as the 0.3 it stands for. genai-prices'
//     and models.dev's prices per 1M tokens are taken as written.
//   - A usage type the other database does not list is not compared: its
//     fallback there is the other tool's business, not a price it states.
//   - A model counts as lacking only when the other side covers its
//     provider, so a file of one provider does not flag every other one.
package drift

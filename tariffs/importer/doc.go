// Package importer turns peer price tables (LiteLLM's
// model_prices_and_context_window.json, genai-prices' provider files,
// models.dev's api.json, as tariffs/drift reads them) into tariff files
// for the models the catalog lacks, so that their calls are priced
// knowingly at a secondary source's figures instead of left unpriced.
//
// Import takes the catalog and the tables read, and returns one file per
// host (provider imported-<host>, hosts: [<host>]), each a tariff file in
// the catalog's own format with one version in force from the table's
// date, and every entry it left out with why. Being other providers than
// the catalog's, the files lay over the catalog with --tariffs-overlay
// without replacing any of its lists; a model the catalog already prices
// on the host is left out unless Options.Replace, and then written with
// replaces: naming the catalog's model (see docs/tariffs.md).
//
// # Invariants
//
//   - Every entry of every table is imported, not selected (Options
//     filters), or skipped with a Reason; nothing is dropped unnamed.
//   - Prices are those drift read from the table's text, exact decimals,
//     written as they are: never through float64, never rounded.
//   - An imported model never takes a name the catalog prices on its host
//     but through replaces:, and only with Options.Replace.
//   - Every file Import returns parses as a tariff file and loads with the
//     catalog as an overlay; Import fails rather than return one that does
//     not.
//   - Imported files say what they rest on: a file comment, a source of
//     kind secondary naming the table, and a note on every model.
package importer

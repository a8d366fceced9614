// Package litellm reads a LiteLLM proxy config.yaml, checks it against the
// tariffs and for costly or leaky router settings, and writes prices back
// into it in place.
//
// The checks read each router setting where LiteLLM reads it
// (router_settings, litellm_settings for the keys the Router falls back
// to there, a deployment's litellm_params or model_info), and hold the
// model groups matching the private patterns to a fail-closed perimeter:
// no fallback leaves them at any hop, no alias crosses it, every
// deployment is on a private address.
//
// Each model_list entry is mapped to a tariff model through its
// model_info.base_model, its litellm_params.model and its model_name, in
// that order, each resolved by the catalog's names (provider prefixes
// dropped as needed). Per-token prices live under model_info or
// litellm_params: input_cost_per_token, cache_read_input_token_cost,
// cache_creation_input_token_cost, output_cost_per_token and
// output_cost_per_reasoning_token.
//
// # Invariants
//
//   - The file is edited, not regenerated: values are replaced at the byte
//     positions the YAML nodes give, keys are added after an existing key
//     at its indentation, and every other byte (comments, key order,
//     quoting, anchors, aliases, os.environ references, blank lines, line
//     endings) stays as it was. A second update with the same prices
//     changes nothing.
//   - Prices are written so that PyYAML, which LiteLLM reads the file with,
//     gets back the decimal meant: scientific notation with a dot and a
//     signed exponent, at most 15 significant digits (FormatPerToken).
//   - A file is replaced atomically and only if it still holds the bytes it
//     was read with; a config that does not parse is an error naming the
//     line, and nothing is written.
//   - An entry with an off_peak_pricing block never silently gets a flat
//     price: the update refuses it, or writes the block from the tariff.
//   - Moving a router setting between sections changes a check's findings
//     only when it changes what LiteLLM does.
package litellm

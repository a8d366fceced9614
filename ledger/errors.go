package ledger

import "errors"

// Errors Open returns, wrapped with the input's name and details. Test
// with errors.Is.
var (
	// ErrUnknownFormat: the content matches none of the formats in
	// docs/calls.md.
	ErrUnknownFormat = errors.New("unknown call log format")
	// ErrNoPerCallTimes: the input is an aggregate export (LiteLLM UI
	// usage export) without one row per call and its time.
	ErrNoPerCallTimes = errors.New("export has no per-call times")
	// ErrBadHeader: a CSV header lacks a required column or cannot be read.
	ErrBadHeader = errors.New("bad header")
)

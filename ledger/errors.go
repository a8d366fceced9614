package ledger

import (
	"context"
	"errors"
	"strconv"
)

// Errors a Source's Open and a Reader's Next return inside an *InputError.
// Test with errors.Is.
var (
	// ErrUnknownFormat: the content matches none of the formats in
	// docs/calls.md.
	ErrUnknownFormat = errors.New("unknown call log format")
	// ErrNoPerCallTimes: the input is an aggregate export (LiteLLM UI
	// usage export) without one row per call and its time.
	ErrNoPerCallTimes = errors.New("export has no per-call times")
	// ErrBadHeader: a CSV header lacks a required column or cannot be read.
	ErrBadHeader = errors.New("bad header")
	// ErrNotAFile: the path names a directory or something else that is
	// not a file of calls.
	ErrNotAFile = errors.New("not a file")
	// ErrRead: reading the input failed (an I/O error, not its content).
	// The operating system's error is wrapped beside it.
	ErrRead = errors.New("read failed")
)

// InputError is why an input cannot be read (further): the input's name
// and, where known, the line, as fields. Err wraps one of the sentinel
// errors above or the operating system's error.
type InputError struct {
	File string // the input's name, as the Source names it
	Line int    // 1-based line where reading stopped; 0 when not known
	Err  error
}

// Error formats the error as "file:line: err", or "file: err" without a line.
func (e *InputError) Error() string {
	if e.Line > 0 {
		return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Err.Error()
	}
	return e.File + ": " + e.Err.Error()
}

func (e *InputError) Unwrap() error { return e.Err }

// inputError wraps err with the input's name unless it is nil, already an
// *InputError, the reader's own stop signal or a context's error.
func inputError(file string, line int, err error) error {
	var ie *InputError
	if err == nil || err == errStopped || errors.As(err, &ie) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &InputError{File: file, Line: line, Err: err}
}

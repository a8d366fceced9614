package provider

import (
	"errors"
	"fmt"
)

// Errors Read returns inside an *Error. Test with errors.Is.
var (
	// ErrUnknownFormat: the content is none of the exports of
	// docs/provider-usage.md.
	ErrUnknownFormat = errors.New("unknown provider export format")
	// ErrBadValue: a field holds a value that cannot be read (a count that
	// is not a non-negative integer, an amount that is not a decimal, an
	// instant that is not one).
	ErrBadValue = errors.New("bad value")
	// ErrBucket: a time bucket does not lie within one UTC day, or ends
	// before it starts.
	ErrBucket = errors.New("bucket not within one UTC day")
	// ErrTooLarge: the export is longer than MaxBytes (decompressed).
	ErrTooLarge = fmt.Errorf("export is larger than %d MiB", MaxBytes>>20)
)

// MaxBytes is the longest export Read reads, after decompression: a
// month of hourly buckets for a hundred models is a few megabytes.
const MaxBytes = 64 << 20

// maxBytes is MaxBytes, lowered by tests.
var maxBytes int64 = MaxBytes

// Error is why an export cannot be read: where in the file, and why.
type Error struct {
	Where string // "file: data[2].results[0]" or "file:7"
	Err   error
}

func (e *Error) Error() string { return e.Where + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

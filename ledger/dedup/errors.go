package dedup

import "errors"

// ErrClosed is returned by FirstSeen after Close.
var ErrClosed = errors.New("dedup: set is closed")

package pricing

import "errors"

// ErrTokenSum is what Engine.Err returns when adding a call's tokens would
// take a sum beyond the int64 range: the call is refused rather than let a
// total wrap. Test with errors.Is.
var ErrTokenSum = errors.New("token sums would exceed 2^63-1")

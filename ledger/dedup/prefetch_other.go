//go:build !amd64

package dedup

// prefetch does nothing here: Set.Prefetch is only a hint.
func prefetch(*uint64) {}

package dedup

// prefetch asks the processor to bring the cache line of p closer, and
// returns at once.
//
//go:noescape
func prefetch(p *uint64)

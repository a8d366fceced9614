package pricing

import "github.com/tokenfare/tokenfare/ledger"

// Calls kept apart (Options.Apart) are priced like any other, into
// buckets of no grouping marked apart: their totals are summed as the
// calls come, so that nothing needs parting after the read, when a spill
// has collapsed the buckets' groupings. A spill writes no group of theirs
// and keeps them apart as it collapses the others.

// keptApart reports whether call c is kept apart from the groups.
func (e *Engine) keptApart(c *ledger.Call) bool {
	return e.opts.Apart != nil && e.opts.Apart(c.Key, c.KeyAlias)
}

// TakeApart removes the calls kept apart (Options.Apart) from e and
// returns an engine of them alone, grouped by nothing, with e's row
// accounting: its Line is their account. e's results, spilled groups
// among them, then leave them out: its totals, groups and blend are
// those of the other calls.
func (e *Engine) TakeApart() *Engine {
	apart := e.empty(nil)
	e.buckets.deleteWhere(func(b *bucket) bool {
		if !b.k.apart {
			return false
		}
		apart.mergeBucket(b.k, b)
		if b.k.collapsed {
			e.collapsed--
		}
		return true
	})
	return apart
}

// ReadsHolders reports whether an engine of o reads who a call is charged
// to, its Key, KeyAlias, Team or User: when it groups by key, team or
// user, or keeps calls apart. A run whose engine does not, and that has
// no observer, may read its calls without them (ledger.Options.SkipHolders).
func (o *Options) ReadsHolders() bool {
	s := setOf(o.Dims)
	return s.has(DimKey) || s.has(DimTeam) || s.has(DimUser) || o.Apart != nil
}

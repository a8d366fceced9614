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
	e.table.buckets.deleteWhere(func(b *bucket) bool {
		if !b.k.apart {
			return false
		}
		apart.mergeBucket(b.k, b)
		if b.k.collapsed {
			e.table.collapsed--
		}
		return true
	})
	return apart
}

// HoldersRead is who a call is charged to that an engine of o reads: its
// key and alias when it groups by key or keeps calls apart, its team when
// it groups by team, its user when by user. A run with no observer may
// read its calls without the others (ledger.Options.SkipHolders).
func (o *Options) HoldersRead() ledger.Holders {
	s := setOf(o.Dims)
	var h ledger.Holders
	if s.has(DimKey) || o.Apart != nil {
		h |= ledger.HolderKey
	}
	if s.has(DimTeam) {
		h |= ledger.HolderTeam
	}
	if s.has(DimUser) {
		h |= ledger.HolderUser
	}
	return h
}

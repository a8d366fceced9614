package ledger

import (
	"context"
	"time"

	"github.com/tokenfare/tokenfare/tariffs"
)

// Summer is a source that can hand a run the sums of its calls per group
// instead of the calls: a database that sums them itself (push-down), a
// store that summed them when it read them (tokenfare's state). A run
// prices each group as the calls it sums (pricing.Engine.AddSummed).
type Summer interface {
	Source
	// Identity tells the store the sums come from apart from every other:
	// two Summers of one identity (two host names of one database, a
	// primary and its replica) would count their calls twice.
	Identity(ctx context.Context) (string, error)
	// Sum hands to the groups of the calls billed in the source's window,
	// grouped as o asks and never across one of o's boundaries, and the
	// rows the source rejected when it read them. It returns a Reader of
	// the rows it could not sum, for the caller to read as rows and close,
	// or nil when there are none. An error of to's ends it and is returned
	// as it is.
	Sum(ctx context.Context, o SumOptions, to SumSink) (odd Reader, err error)
	// KeepsRows reports whether Open reads the calls the sums are made of:
	// a run reads them instead where the sums cannot give the exact answer.
	// A store of sums alone fails then.
	KeepsRows() bool
}

// Distributed is a Summer that can tell whether its store is spread over
// servers that sum their shares at once (Citus): summing there is the
// fast way to read it, where one server sends its rows faster than it
// sums them.
type Distributed interface {
	Distributed(ctx context.Context) (bool, error)
}

// SumSink takes what a Summer hands a run.
type SumSink interface {
	// Add adds the calls of one group.
	Add(s *Summed) error
	// Rejected counts rows the source rejected when it read them, none of
	// them listed.
	Rejected(rows int64)
}

// Summed is one group of calls a Summer hands a run: their sums, and what
// the Summer knew of them when it read them.
type Summed struct {
	Aggregate
	// BilledBy is the billing instant the calls were grouped by.
	BilledBy tariffs.BillingTime
	// As is what the calls were when read: new calls, which are priced
	// (again) at the run's tariffs, or copies counted as rows only.
	As SummedAs
	// Failure is the class of the failed calls (failures.Class) when
	// Classed; a Summer that sums failed calls without their error detail
	// leaves them unclassed.
	Failure uint8
	Classed bool
}

// SummedAs is what a store told the calls it summed apart as when it read
// them.
type SummedAs uint8

const (
	// SummedNew: calls read for the first time; failed ones by Status.
	SummedNew SummedAs = iota
	// SummedFailed: failed calls, whatever their Status.
	SummedFailed
	// SummedDuplicate: copies of calls read before from the same source.
	SummedDuplicate
	// SummedOverlap: copies of calls read before from another source.
	SummedOverlap
	// SummedCacheHit: calls the gateway answered from its own cache.
	SummedCacheHit
)

// SumOptions say how a Summer groups calls.
type SumOptions struct {
	// Boundaries chooses, from the first and last start instants of the
	// window's rows, the instants no group may straddle: tariff switches,
	// the window's edges, the report zone's days or hours.
	Boundaries func(first, last time.Time) []time.Time
	// Billing is the instant the calls are grouped by.
	Billing tariffs.BillingTime
	// TierBounds are the prompt sizes at which any tariff's tier changes,
	// ascending: a group's prompts all exceed the same ones.
	TierBounds []int64
	// ByKey, ByTeam and ByUser keep keys, teams and users apart.
	ByKey, ByTeam, ByUser bool
	// ByTags keeps calls of different request tags apart; ByKeyMeta
	// brings each key's metadata (it implies ByKey).
	ByTags, ByKeyMeta bool
}

// DailyComparer is a source that keeps a daily table of its own beside its
// calls (LiteLLM's PostgreSQL), which it can compare with them.
type DailyComparer interface {
	Source
	// CompareDaily compares the daily table with the calls per UTC day, key
	// and model over the whole UTC days [from, until) touches; nil and no
	// error when there is no daily table.
	CompareDaily(ctx context.Context, from, until time.Time) (*DailyComparison, error)
}

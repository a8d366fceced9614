package pricing

// Outcome is what became of one call read from a source.
type Outcome uint8

// Outcomes of a call. Rejected rows never become calls and are counted by
// Rows.Rejected.
const (
	// Priced: a tariff version in force prices the model.
	Priced Outcome = iota
	// Unpriced: the model is unknown, or no version in force prices it.
	Unpriced
	// Retired: a version in force retired the model.
	Retired
	// Failed: the gateway logged the call as failed; it is not priced.
	Failed
	// Duplicate: a call with the same identity was read before from the
	// same source: one row exported twice (LiteLLM's request_id is the
	// primary key of its spend logs). It counts nowhere but in
	// Rows.Duplicate: the copy read first counts, in calls, tokens and
	// recorded spend. Copies that disagree are explained as
	// conflicting_copies.
	Duplicate
	// Outside: the call's billing instant lies outside the window asked for.
	Outside
	// CacheHit: the gateway answered from its own response cache; the
	// provider was never called, so the call costs nothing officially.
	CacheHit
	// Overlap: a call with the same identity was read before from another
	// source (exports that overlap, a file and a database). It counts as a
	// Duplicate does: nowhere but in Rows.Duplicate.
	Overlap
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"priced", "unpriced", "retired", "failed", "duplicate", "outside", "cache_hit", "overlap"}

// String returns the outcome's name as reports spell it.
func (o Outcome) String() string { return outcomeNames[o] }

// Rows accounts for every input row: Read equals the sum of all the others.
type Rows struct {
	Read      int64
	Priced    int64
	Unpriced  int64
	Retired   int64
	Failed    int64
	Duplicate int64 // both Duplicate and Overlap calls
	Rejected  int64
	Outside   int64
	CacheHit  int64
}

// Sub returns the rows counted in r and not in before: the accounting of
// what was read since before was taken, field by field, every field.
func (r Rows) Sub(before Rows) Rows {
	return Rows{
		Read:      r.Read - before.Read,
		Priced:    r.Priced - before.Priced,
		Unpriced:  r.Unpriced - before.Unpriced,
		Retired:   r.Retired - before.Retired,
		Failed:    r.Failed - before.Failed,
		Duplicate: r.Duplicate - before.Duplicate,
		Rejected:  r.Rejected - before.Rejected,
		Outside:   r.Outside - before.Outside,
		CacheHit:  r.CacheHit - before.CacheHit,
	}
}

// Add returns the rows counted in r or in o, every field.
func (r Rows) Add(o Rows) Rows {
	neg := Rows{}.Sub(o)
	return r.Sub(neg)
}

// Count counts one row of outcome o: Read and o's field.
func (r *Rows) Count(o Outcome) { r.countN(o, 1) }

// count counts one row of outcome o.
func (r *Rows) count(o Outcome) { r.countN(o, 1) }

// countN counts n rows of outcome o.
func (r *Rows) countN(o Outcome, n int64) {
	r.Read += n
	switch o {
	case Priced:
		r.Priced += n
	case Unpriced:
		r.Unpriced += n
	case Retired:
		r.Retired += n
	case Failed:
		r.Failed += n
	case Duplicate, Overlap:
		r.Duplicate += n
	case Outside:
		r.Outside += n
	case CacheHit:
		r.CacheHit += n
	}
}

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
	// Duplicate: a call with the same identity was read before.
	Duplicate
	// Outside: the call's billing instant lies outside the window asked for.
	Outside
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"priced", "unpriced", "retired", "failed", "duplicate", "outside"}

// String returns the outcome's name as reports spell it.
func (o Outcome) String() string { return outcomeNames[o] }

// Rows accounts for every input row: Read equals the sum of all the others.
type Rows struct {
	Read      int64
	Priced    int64
	Unpriced  int64
	Retired   int64
	Failed    int64
	Duplicate int64
	Rejected  int64
	Outside   int64
}

func (r *Rows) count(o Outcome) { r.countN(o, 1) }

// countN counts n calls of outcome o.
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
	case Duplicate:
		r.Duplicate += n
	case Outside:
		r.Outside += n
	}
}

// Add adds o's counts to r.
func (r *Rows) Add(o Rows) {
	r.Read += o.Read
	r.Priced += o.Priced
	r.Unpriced += o.Unpriced
	r.Retired += o.Retired
	r.Failed += o.Failed
	r.Duplicate += o.Duplicate
	r.Rejected += o.Rejected
	r.Outside += o.Outside
}

// balanced reports whether every row read is accounted for exactly once.
func (r Rows) balanced() bool {
	return r.Read == r.Priced+r.Unpriced+r.Retired+r.Failed+r.Duplicate+r.Rejected+r.Outside
}

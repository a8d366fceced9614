package pricing

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// CopyValues are what one copy of a logged call says about it: what a
// repeat is compared on.
type CopyValues struct {
	Model    string // the model as logged
	Recorded decimal.Decimal
	Tokens   int64 // every token bucket, reasoning inside output
}

// CopyConflict is one repeated identity whose copies disagree: the copy
// read first, which counts, and the repeat, which is left out.
type CopyConflict struct {
	Identity string // the request id, or the record's identity
	Source   string // where the repeat was read
	Start    time.Time
	First    CopyValues
	Repeat   CopyValues
}

// CopyConflicts sum the repeats of one model whose copies disagree.
type CopyConflicts struct {
	Repeats       int64
	FirstRecorded decimal.Decimal // of the first copies, which count
	FirstTokens   int64
	Recorded      decimal.Decimal // of the repeats, left out
	Tokens        int64
	// Examples are the first maxCopyExamples conflicts, in reading order.
	Examples []CopyConflict
}

// maxCopyExamples is how many conflicts of a model its explanation lists.
const maxCopyExamples = 3

// recentCopies is how many first copies are kept, the last ones read;
// copyIndexSlots is the size of their index by identity. Both are powers
// of two. A repeat is compared with its first copy when the copy is still
// kept: a row written again follows its first copy, and overlapping
// exports repeat the rows read last, so the copies a repeat meets are
// nearly always there. The copies are written one after the other into a
// ring (104 bytes each, 1.6 MiB), so that a call's write costs no cache
// miss and no hashing (a repeat is compared field by field). The index (4
// bytes a slot, 256 KiB) is direct-mapped: a copy whose slot a later copy
// took is lost, about 1 - exp(-k/copyIndexSlots) of those read k
// identities before (6 % of the copies read 4,096 before, 22 % of those
// read 16,384 before).
const (
	recentCopies   = 1 << 14
	copyIndexSlots = 1 << 16
)

// recentCopy is a first copy kept in the engine's ring: its identity's
// fingerprint and what copies are compared on.
type recentCopy struct {
	fp       uint64
	tokens   ledger.Tokens
	recorded ledger.Amount
	model    string
}

// copyTable keeps the last first copies read, in a ring, with their
// place in it by identity.
type copyTable struct {
	ring  []recentCopy
	index []uint32 // by fingerprint: 1 + the copy's place in ring; 0 for none
	next  uint32   // copies written so far
}

func newCopyTable() *copyTable {
	return &copyTable{ring: make([]recentCopy, recentCopies), index: make([]uint32, copyIndexSlots)}
}

// put keeps c's values under fingerprint fp, in place of the oldest copy.
func (t *copyTable) put(fp uint64, c *ledger.Call) {
	at := t.next % recentCopies
	t.next++
	t.ring[at] = recentCopy{fp: fp, tokens: c.Tokens, recorded: c.Recorded, model: c.Model}
	t.index[fp%copyIndexSlots] = at + 1
}

// get returns the first copy kept under fp, if it is still there.
func (t *copyTable) get(fp uint64) (*recentCopy, bool) {
	at := t.index[fp%copyIndexSlots]
	if at == 0 {
		return nil, false
	}
	r := &t.ring[at-1]
	return r, r.fp == fp
}

// values returns what the kept copy says.
func (r *recentCopy) values() CopyValues {
	return CopyValues{Model: r.model, Tokens: r.tokens.Total(), Recorded: r.recorded.Decimal()}
}

// sameAs reports whether c says what the kept copy says: the model as
// logged, every token bucket and the recorded spend, as a number (1.50
// equals 1.5).
func (r *recentCopy) sameAs(c *ledger.Call) bool {
	return r.model == c.Model && r.tokens == c.Tokens && r.recorded.Equal(c.Recorded)
}

// Uncompared returns how many repeats were read too long after their
// first copy to be compared with it (recentCopies): each counts once all
// the same, as its first copy.
func (e *Engine) Uncompared() int64 { return e.gate.uncompared }

// detail says what the repeats of a model disagree on, in a sentence.
func (t *CopyConflicts) detail() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d repeated request id(s) whose copies disagree on model, tokens or spend: the copy read first counts, "+
		"the repeat is left out (it recorded %s for %d tokens)", t.Repeats, t.Recorded, t.Tokens)
	fmt.Fprintf(&b, "; their first copies recorded %s for %d tokens", t.FirstRecorded, t.FirstTokens)
	for _, x := range t.Examples {
		fmt.Fprintf(&b, "; %s at %s: repeat %s, first %s", x.Identity, x.Start.UTC().Format(time.RFC3339Nano), x.Repeat, x.First)
	}
	return b.String()
}

// String writes the values as "model m, 12 tokens, recorded 0.001".
func (v CopyValues) String() string {
	return fmt.Sprintf("model %s, %d tokens, recorded %s", v.Model, v.Tokens, v.Recorded)
}

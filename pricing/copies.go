package pricing

import (
	"fmt"
	"sort"
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
	First    CopyValues // zero with FirstKnown false when no longer at hand
	Repeat   CopyValues
	// FirstKnown says the first copy's values were still at hand: they are
	// kept for the last recentCopies identities read.
	FirstKnown bool
}

// CopyConflicts sum the repeats of one model whose copies disagree.
type CopyConflicts struct {
	Repeats int64
	// Known is how many of the repeats had their first copy at hand;
	// First sums those first copies, Repeat every repeat.
	Known         int64
	FirstRecorded decimal.Decimal
	FirstTokens   int64
	Recorded      decimal.Decimal // of the repeats, left out
	Tokens        int64           // of the repeats, left out
	// Examples are the first maxCopyExamples conflicts, in reading order.
	Examples []CopyConflict
}

// maxCopyExamples is how many conflicts of a model its explanation lists.
const maxCopyExamples = 3

// recentCopies is how many first copies are kept, by identity, to show
// what a later copy disagrees with; a power of two. A row written again
// follows its first copy, and overlapping exports repeat the rows read
// last, so the copies a repeat meets are nearly always among them.
const recentCopies = 1 << 13

// recentCopy is a first copy kept in the engine's direct-mapped table.
type recentCopy struct {
	fp       uint64 // the identity's fingerprint; 0 marks an empty entry
	tokens   int64
	model    string
	recorded ledger.Amount
}

// copyTable is a direct-mapped table of the last first copies read.
type copyTable []recentCopy

// put keeps c's values under fingerprint fp, replacing whatever shared
// its entry.
func (t copyTable) put(fp uint64, c *ledger.Call) {
	r := &t[fp&(recentCopies-1)]
	r.fp, r.tokens, r.model, r.recorded = fp|1, c.Tokens.Total(), c.Model, c.Recorded
}

// get returns the first copy kept under fp, if it is still there.
func (t copyTable) get(fp uint64) (CopyValues, bool) {
	r := &t[fp&(recentCopies-1)]
	if r.fp != fp|1 {
		return CopyValues{}, false
	}
	return CopyValues{Model: r.model, Recorded: r.recorded.Decimal(), Tokens: r.tokens}, true
}

// contentHash hashes what copies of one call are compared on: the model
// as logged, every token bucket and the recorded spend, the latter as a
// number (1.50 and 1.5 are equal).
func contentHash(c *ledger.Call) uint64 {
	t := &c.Tokens
	h := ledger.HashIdentity(c.Model)
	for _, n := range [...]int64{t.Input, t.CacheRead, t.CacheWrite, t.CacheWrite1h, t.Output, t.Reasoning, amountHash(c.Recorded)} {
		h = (h ^ uint64(n)) * 0x100000001B3
		h ^= h >> 29
	}
	return h
}

// amountHash hashes an amount's value, whatever its exponent.
func amountHash(a ledger.Amount) int64 {
	coef, exp, ok := a.Int64()
	if !ok {
		return int64(ledger.HashIdentity(a.Decimal().String()))
	}
	if coef == 0 {
		return 0
	}
	for coef%10 == 0 {
		coef /= 10
		exp++
	}
	return coef*31 + int64(exp)
}

// copySalt marks the fingerprints of a call's content apart from those
// of its identity.
const copySalt = 0xA24BAED4963EE407

// checkCopy records the content of the first copy of an identity (fp is
// the identity's fingerprint, ns its start), or, for a repeat, notes it
// as a conflict when no copy read before had the same content.
func (e *Engine) checkCopy(c *ledger.Call, pc *PricedCall, fp uint64, ns int64, repeat bool) {
	content := fingerprint(fp^copySalt, contentHash(c), ns)
	if !repeat {
		e.firstSeen(content, ns)
		if e.copies == nil {
			e.copies = make(copyTable, recentCopies)
		}
		e.copies.put(fp, c)
		return
	}
	if !e.firstSeen(content, ns) {
		return // the same values as a copy read before
	}
	first, known := e.copies.get(fp)
	e.noteConflict(pc, CopyConflict{Identity: c.Identity, Source: c.Source, Start: c.Start, First: first, FirstKnown: known,
		Repeat: CopyValues{Model: c.Model, Recorded: c.Recorded.Decimal(), Tokens: c.Tokens.Total()}})
}

// noteConflict adds a conflict to the tally of the repeat's model.
func (e *Engine) noteConflict(pc *PricedCall, x CopyConflict) {
	if e.conflicts == nil {
		e.conflicts = map[string]*CopyConflicts{}
	}
	name := pc.ModelName()
	t := e.conflicts[name]
	if t == nil {
		t = &CopyConflicts{FirstRecorded: decimal.Zero, Recorded: decimal.Zero}
		e.conflicts[name] = t
	}
	t.Repeats++
	t.Recorded, t.Tokens = t.Recorded.Add(x.Repeat.Recorded), t.Tokens+x.Repeat.Tokens
	if x.FirstKnown {
		t.Known++
		t.FirstRecorded, t.FirstTokens = t.FirstRecorded.Add(x.First.Recorded), t.FirstTokens+x.First.Tokens
	}
	if len(t.Examples) < maxCopyExamples {
		t.Examples = append(t.Examples, x)
	}
}

// Conflicts returns, by model, the repeated identities whose copies
// disagree on the model, the tokens or the recorded spend.
func (e *Engine) Conflicts() map[string]*CopyConflicts { return e.conflicts }

// conflictExplanations explain, model by model in name order, the repeats
// whose copies disagree. Their amount is zero: a repeat counts nowhere,
// so the gap is that of the copies read first.
func (e *Engine) conflictExplanations() []Explanation {
	names := make([]string, 0, len(e.conflicts))
	for n := range e.conflicts {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]Explanation, 0, len(names))
	for _, n := range names {
		t := e.conflicts[n]
		out = append(out, Explanation{Kind: KindConflictingCopies, Model: n, Calls: t.Repeats, Amount: decimal.Zero,
			Tokens: t.Tokens, Copies: t, Detail: t.detail()})
	}
	return out
}

// detail says what the repeats of a model disagree on, in a sentence.
func (t *CopyConflicts) detail() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d repeated request id(s) whose copies disagree on model, tokens or spend: the copy read first counts, "+
		"the repeat is left out (it recorded %s for %d tokens)", t.Repeats, t.Recorded, t.Tokens)
	if t.Known > 0 {
		fmt.Fprintf(&b, "; the first copies of %d of them recorded %s for %d tokens", t.Known, t.FirstRecorded, t.FirstTokens)
	}
	for _, x := range t.Examples {
		fmt.Fprintf(&b, "; %s at %s: repeat %s", x.Identity, x.Start.UTC().Format(time.RFC3339Nano), x.Repeat)
		if x.FirstKnown {
			fmt.Fprintf(&b, ", first %s", x.First)
		}
	}
	return b.String()
}

// String writes the values as "model m, 12 tokens, recorded 0.001".
func (v CopyValues) String() string {
	return fmt.Sprintf("model %s, %d tokens, recorded %s", v.Model, v.Tokens, v.Recorded)
}

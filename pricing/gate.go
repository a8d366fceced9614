package pricing

import (
	"sort"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// dupGate is the engine's duplicate gate: it keeps the identities of the
// calls read (Options.Seen) and tells a call read before, from the same
// source (Duplicate) or from an earlier one (Overlap), comparing each
// repeat with its first copy while that copy is kept (copies.go): a
// repeat that disagrees is a conflicting copy, one whose first copy has
// left the table is counted as not compared.
type dupGate struct {
	seen       Seen
	err        error                     // the first error of seen
	copies     *copyTable                // the last first copies read, by identity (copies.go)
	conflicts  map[string]*CopyConflicts // repeats whose copies disagree, by model name
	uncompared int64                     // repeats whose first copy had left copies
	gateway    ledger.Gateway            // of the last call fingerprinted
	gatewayFP  uint64                    // its hash
	source     int                       // the number of the source read, from 0 (nextSource)
	started    bool                      // a source was started
}

// newGate returns a duplicate gate keeping identities in seen, or in
// memory when seen is nil.
func newGate(seen Seen) dupGate {
	if seen == nil {
		seen = memorySeen{}
	}
	return dupGate{seen: seen}
}

// nextSource starts another source: see Engine.NextSource.
func (g *dupGate) nextSource() {
	if g.started {
		g.source++
	}
	g.started = true
}

// Seen records call identities as 64-bit fingerprints with the call's start
// instant (Unix nanoseconds); FirstSeen reports whether a fingerprint is new.
// The same identity always comes with the same start.
type Seen interface {
	FirstSeen(fp uint64, startNanos int64) (bool, error)
}

// memorySeen is a Seen that keeps every fingerprint in memory.
type memorySeen map[uint64]struct{}

func (m memorySeen) FirstSeen(fp uint64, _ int64) (bool, error) {
	if _, ok := m[fp]; ok {
		return false, nil
	}
	m[fp] = struct{}{}
	return true, nil
}

// seenBefore records a call's identity and reports whether it was read
// before, setting the call's outcome to Duplicate or Overlap when it was.
// The identity is the reader's Identity plus the start instant: gateways
// reuse request ids for different calls (LiteLLM logs "None" when a
// provider sends no id), while a row exported twice repeats both.
// Identities are kept as 64-bit hashes (Options.Seen decides how), so two
// different identities collide with probability about n²/2⁶⁵: under 10⁻⁶
// for ten million calls. Identity hashes are the same in every engine of a
// process, so that engines pricing parts of one stream can share a Seen.
//
// From the second source on, each identity is also recorded salted with
// the source's number, to tell a call this source repeats (the gateway
// logged it twice) from one an earlier source held (overlapping exports):
// the set then keeps two fingerprints per call of those sources.
//
// Each first copy's content (model, tokens, recorded spend) is kept in a
// table of recent copies, so that a repeat whose content differs from its
// first copy's is told as a conflict (checkCopy).
func (g *dupGate) seenBefore(c *ledger.Call, pc *PricedCall) bool {
	if c.Identity == "" {
		return false
	}
	if c.Gateway != g.gateway {
		g.gateway, g.gatewayFP = c.Gateway, ledger.HashIdentity(string(c.Gateway))
	}
	id := c.IdentityHash
	if id == 0 { // not computed by the reader (or truly 0: the same again)
		id = ledger.HashIdentity(c.Identity)
	}
	ns := c.Start.UnixNano()
	fp := fingerprint(g.gatewayFP, id, ns)
	if g.source > 0 {
		salt := uint64(g.source) * 0xD6E8FEB86659FD93
		if !g.firstSeen(fingerprint(g.gatewayFP^salt, id, ns), ns) {
			pc.Outcome = Duplicate
			g.checkCopy(c, pc, fp, true)
			return true
		}
	}
	if g.firstSeen(fp, ns) {
		g.checkCopy(c, pc, fp, false)
		return false
	}
	pc.Outcome = Duplicate
	if g.source > 0 {
		pc.Outcome = Overlap
	}
	g.checkCopy(c, pc, fp, true)
	return true
}

// firstSeen reports whether fingerprint fp is new to the identity set; on
// an error of the set it keeps the error and takes the call as new.
func (g *dupGate) firstSeen(fp uint64, ns int64) bool {
	first, err := g.seen.FirstSeen(fp, ns)
	if err != nil && g.err == nil {
		g.err = err
	}
	return first || err != nil
}

// fingerprint mixes a call's identity hash (ledger.HashIdentity) with its
// gateway's hash and its start instant. The instant is mixed in by a
// bijection, so two calls that differ only in their instant never share a
// fingerprint.
func fingerprint(gateway, identity uint64, startNanos int64) uint64 {
	x := identity ^ gateway ^ uint64(startNanos)*0x9E3779B97F4A7C15
	// The finalizer of SplitMix64, a bijection that spreads every bit.
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// checkCopy keeps the first copy of an identity (fp is the identity's
// fingerprint) in the table of recent copies, or compares a repeat with
// the first copy kept there: a repeat that disagrees is a conflict, one
// whose first copy has left the table is counted as not compared.
func (g *dupGate) checkCopy(c *ledger.Call, pc *PricedCall, fp uint64, repeat bool) {
	if g.copies == nil {
		g.copies = newCopyTable()
	}
	if !repeat {
		g.copies.put(fp, c)
		return
	}
	first, ok := g.copies.get(fp)
	switch {
	case !ok:
		g.uncompared++
	case !first.sameAs(c):
		g.noteConflict(pc, CopyConflict{Identity: c.Identity, Source: c.Where(), Start: c.Start, First: first.values(),
			Repeat: CopyValues{Model: c.Model, Recorded: c.Recorded.Decimal(), Tokens: c.Tokens.Total()}})
	}
}

// noteConflict adds a conflict to the tally of the repeat's model.
func (g *dupGate) noteConflict(pc *PricedCall, x CopyConflict) {
	if g.conflicts == nil {
		g.conflicts = map[string]*CopyConflicts{}
	}
	name := pc.ModelName()
	t := g.conflicts[name]
	if t == nil {
		t = &CopyConflicts{FirstRecorded: decimal.Zero, Recorded: decimal.Zero}
		g.conflicts[name] = t
	}
	t.Repeats++
	t.Recorded, t.Tokens = t.Recorded.Add(x.Repeat.Recorded), t.Tokens+x.Repeat.Tokens
	t.FirstRecorded, t.FirstTokens = t.FirstRecorded.Add(x.First.Recorded), t.FirstTokens+x.First.Tokens
	if len(t.Examples) < maxCopyExamples {
		t.Examples = append(t.Examples, x)
	}
}

// conflictExplanations explain, model by model in name order, the repeats
// whose copies disagree. Their amount is zero: a repeat counts nowhere,
// so the gap is that of the copies read first.
func (g *dupGate) conflictExplanations() []Explanation {
	names := make([]string, 0, len(g.conflicts))
	for n := range g.conflicts {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]Explanation, 0, len(names))
	for _, n := range names {
		t := g.conflicts[n]
		out = append(out, Explanation{Kind: KindConflictingCopies, Model: n, Calls: t.Repeats, Amount: decimal.Zero,
			Tokens: t.Tokens, Copies: t, Detail: t.detail()})
	}
	return out
}

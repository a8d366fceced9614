package pricing

import (
	"fmt"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/tokenfare/tokenfare/ledger"
)

// tierNoteKey groups the priced calls whose tier is worth a word: served
// at another tier than asked, or priced at the tier asked for.
type tierNoteKey struct {
	model         string
	asked, served ledger.ServiceTier
	source        ledger.TierSource
}

// noteTier counts a priced call whose tier the log tells apart: one
// served at another tier than it asked for, or one priced at the tier it
// asked for because only its request was stored (a tier other than
// standard: asking for the standard tier says nothing).
func (e *Engine) noteTier(c *ledger.Call, pc *PricedCall) {
	switch {
	case pc.Outcome != Priced || !c.Asked:
		return
	case c.TierSource == ledger.TierAsked && c.AskedTier == ledger.TierStandard:
		return
	case c.TierSource == ledger.TierServed && c.AskedTier == c.ServiceTier:
		return
	}
	if e.tierNotes == nil {
		e.tierNotes = map[tierNoteKey]int64{}
	}
	e.tierNotes[tierNoteKey{pc.ModelName(), c.AskedTier, c.ServiceTier, c.TierSource}]++
}

// tierExplanations say, model by model, which priced calls were served at
// another tier than they asked for (priced at the tier served), and which
// were priced at the tier asked for, no stored response saying which
// served them. Their amount is zero: the official cost is that of the
// tier each call is priced at.
func (e *Engine) tierExplanations() []Explanation {
	keys := make([]tierNoteKey, 0, len(e.tierNotes))
	for k := range e.tierNotes {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.model != b.model {
			return a.model < b.model
		}
		if a.source != b.source {
			return a.source < b.source
		}
		if a.asked != b.asked {
			return a.asked < b.asked
		}
		return a.served < b.served
	})
	out := make([]Explanation, 0, len(keys))
	for _, k := range keys {
		n := e.tierNotes[k]
		x := Explanation{Kind: KindTierNotServed, Model: k.model, Calls: n, Amount: decimal.Zero,
			Detail: fmt.Sprintf("%d priced call(s) asked for the %s tier and were served at %s (the stored response's service_tier): priced at %s",
				n, k.asked, k.served, k.served)}
		if k.source == ledger.TierAsked {
			x.Kind = KindTierAsRequested
			x.Detail = fmt.Sprintf("%d priced call(s) priced at the %s tier they asked for: only the request is stored, no response says which tier served them",
				n, k.asked)
		}
		out = append(out, x)
	}
	return out
}

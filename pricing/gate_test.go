package pricing

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tokenfare/tokenfare/ledger"
)

// gateCall is a call of identity id started at second s, of model m with
// in+out tokens and recorded spend rec.
func gateCall(id string, s int64, m string, in, out int64, rec string) ledger.Call {
	return ledger.Call{Identity: id, Gateway: ledger.LiteLLM, Start: time.Unix(s, 0), Model: m,
		Tokens: ledger.Tokens{Input: in, Output: out}, Recorded: ledger.AmountOf(dec(rec))}
}

func TestGateOutcomes(t *testing.T) {
	g := newGate(nil)
	steps := []struct {
		next bool // a new source starts before the call
		call ledger.Call
		want Outcome // 0: new
	}{
		{true, gateCall("r1", 100, "m", 100, 50, "0.002"), 0},
		{false, gateCall("r1", 100, "m", 100, 50, "0.002"), Duplicate},                              // the same source again
		{false, gateCall("r1", 101, "m", 100, 50, "0.002"), 0},                                      // another start: another call
		{false, gateCall("", 100, "m", 100, 50, "0.002"), 0},                                        // no identity: never a repeat
		{true, gateCall("r1", 100, "m", 100, 50, "0.002"), Overlap},                                 // an earlier source's
		{false, gateCall("r2", 100, "m", 1, 1, "0"), 0},                                             // new in the second source
		{false, gateCall("r2", 100, "m", 1, 1, "0"), Duplicate},                                     // repeated by the second source
		{true, gateCall("r2", 100, "m", 1, 1, "0"), Overlap},                                        // and met again in a third
		{false, gateCall("r1", 100, "m", 100, 50, "0.002"), Overlap},                                // the first source's, from the third
		{false, ledger.Call{Identity: "r1", Gateway: ledger.CLIProxy, Start: time.Unix(100, 0)}, 0}, // another gateway
	}
	for i, s := range steps {
		if s.next {
			g.nextSource()
		}
		pc := PricedCall{modelName: "m"}
		if got := g.seenBefore(&s.call, &pc); got != (s.want != 0) || pc.Outcome != s.want {
			t.Errorf("step %d: seen before %v as %v, want %v", i, got, pc.Outcome, s.want)
		}
	}
	if g.source != 2 || len(g.conflicts) != 0 || g.uncompared != 0 || g.err != nil {
		t.Errorf("source %d, conflicts %v, %d uncompared, error %v; want 2, none, 0, nil", g.source, g.conflicts, g.uncompared, g.err)
	}
}

func TestGateConflictingCopies(t *testing.T) {
	g := newGate(nil)
	calls := []ledger.Call{
		gateCall("r1", 100, "m", 100, 50, "0.002"),
		gateCall("r1", 100, "m", 100, 80, "0.003"),  // 30 more tokens, 0.001 more spend: a conflict
		gateCall("r2", 100, "m", 10, 10, "0.0001"),  //
		gateCall("r2", 100, "m", 10, 10, "0.00010"), // the same number: no conflict
		gateCall("r3", 100, "m", 5, 5, "0.5"),       //
		gateCall("r3", 100, "n", 5, 5, "0.5"),       // another model: a conflict
	}
	for i := range calls {
		pc := PricedCall{modelName: "m"}
		g.seenBefore(&calls[i], &pc)
	}
	c := g.conflicts["m"]
	if len(g.conflicts) != 1 || c == nil {
		t.Fatalf("conflicts %v, want one tally, of m", g.conflicts)
	}
	// Repeats: 180 + 10 tokens, 0.003 + 0.5 recorded; first copies: 150 + 10, 0.002 + 0.5.
	if c.Repeats != 2 || c.Tokens != 190 || !c.Recorded.Equal(dec("0.503")) || c.FirstTokens != 160 || !c.FirstRecorded.Equal(dec("0.502")) {
		t.Errorf("%d repeats of %d tokens recording %s, first copies %d tokens recording %s; want 2, 190, 0.503, 160, 0.502",
			c.Repeats, c.Tokens, c.Recorded, c.FirstTokens, c.FirstRecorded)
	}
	if len(c.Examples) != 2 || c.Examples[1].Repeat.Model != "n" || c.Examples[1].First.Model != "m" {
		t.Errorf("examples %+v, want r1's and r3's, r3 repeated as n", c.Examples)
	}
	ex := g.conflictExplanations()
	if len(ex) != 1 || ex[0].Kind != KindConflictingCopies || ex[0].Calls != 2 || ex[0].Tokens != 190 || !ex[0].Amount.IsZero() {
		t.Errorf("explanations %+v, want one of 2 calls, 190 tokens, no amount", ex)
	}
}

func TestGateUncompared(t *testing.T) {
	g := newGate(nil)
	first := gateCall("first", 1, "m", 1, 1, "0")
	g.seenBefore(&first, &PricedCall{})
	for i := range recentCopies { // every later copy: the first leaves the ring
		c := gateCall(fmt.Sprint("r", i), 2, "m", 1, 1, "0")
		g.seenBefore(&c, &PricedCall{})
	}
	repeat := gateCall("first", 1, "n", 9, 9, "1")
	pc := PricedCall{}
	if !g.seenBefore(&repeat, &pc) || pc.Outcome != Duplicate || g.uncompared != 1 || len(g.conflicts) != 0 {
		t.Errorf("outcome %v, %d uncompared, conflicts %v; want a duplicate, 1, none", pc.Outcome, g.uncompared, g.conflicts)
	}
}

// failingSeen fails from its n-th fingerprint on.
type failingSeen struct{ n int }

func (f *failingSeen) FirstSeen(uint64, int64) (bool, error) {
	if f.n--; f.n < 0 {
		return false, errors.New("disk full")
	}
	return true, nil
}

func TestGateKeepsTheFirstError(t *testing.T) {
	g := newGate(&failingSeen{n: 1})
	for i, id := range []string{"a", "a", "a"} {
		c := gateCall(id, 1, "m", 1, 1, "0")
		if pc := (PricedCall{}); g.seenBefore(&c, &pc) {
			t.Errorf("call %d: a repeat on a failing set, want each taken as new", i)
		}
	}
	if g.err == nil || g.err.Error() != "disk full" {
		t.Errorf("error %v, want disk full", g.err)
	}
}
